"""The scope a search names by default, so ``arr search "x"`` works in a workspace."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arr.errors import ConfigError

if TYPE_CHECKING:
    from arr.workspace.workspace import Workspace


def default_scope(workspace: Workspace | None, names: list[str]) -> str:
    """The scope a search names by default: the only one, or the workspace's
    ``default_scope`` (the first scope ``arr scope add`` made); else a ConfigError."""
    if len(names) == 1:
        return names[0]
    if not names:
        raise ConfigError("this workspace has no scope yet: add one with arr scope add NAME PATH")
    chosen = workspace.default_scope if workspace is not None else None
    if chosen is not None and chosen in names:
        return chosen
    raise ConfigError(
        f"scope is required: add scope=<name> (or --scope NAME); known scopes: {names}"
    )
