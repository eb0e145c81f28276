"""The scope a search names by default, so ``arr search "x"`` works in a workspace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arr.errors import ConfigError


def default_scope(container: dict[str, Any], names: list[str]) -> str:
    """The scope a search names by default: the only one, or the workspace file's
    ``default_scope`` (the first scope ``arr scope add`` made); else a ConfigError."""
    if len(names) == 1:
        return names[0]
    if not names:
        raise ConfigError("this workspace has no scope yet: add one with arr scope add NAME PATH")
    folder = (container.get("paths") or {}).get("workspace_dir")
    node = container.get("workspace") or {}
    if folder and str(node.get("_target_", "")).endswith("Workspace.from_file"):
        from arr.workspace.file import read_file

        chosen = read_file(Path(folder)).scope_by_default()
        if chosen is not None:
            return chosen
    raise ConfigError(
        f"scope is required: add scope=<name> (or --scope NAME); known scopes: {names}"
    )
