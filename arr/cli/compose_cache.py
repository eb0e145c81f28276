"""A cache of resolved configs, so a repeated ``arr search`` never imports Hydra.

Composing a config costs about 0.5 s on a small machine (importing Hydra and OmegaConf, then
walking the defaults tree), which is half of what a cold lexical search may cost. The resolved
container of a composition depends only on: arr's version, the packaged config files, the
config name, the overrides, the workspace file, the current directory (``paths.root_dir`` is
the cwd outside a checkout) and the environment variables that the config files read with
``oc.env``. All of these make up the cache key; any change is a miss and a normal compose.
Overrides that read the environment themselves are never cached. The container holds no
secret (LLM keys are read from the environment when a client is built, never composed).
Entries are written atomically; an unreadable entry is a miss.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from arr import atomic_write
from arr.version import __version__
from arr.workspace.locations import (
    CONF_DIR,
    PIPELINES_DIR,
    WORKSPACE_DIRNAME,
    default_output_dir,
    workspace_config,
)

_ENV_REFERENCE = re.compile(r"oc\.env:([A-Za-z_][A-Za-z0-9_]*)")
MAX_ENTRIES = 64


def _config_files() -> list[Path]:
    return sorted([*CONF_DIR.rglob("*.yaml"), *PIPELINES_DIR.rglob("*.yaml")])


def cache_key(config_name: str, overrides: list[str], workspace: Path | None) -> str | None:
    """The key of a composition, or None when it must not be cached."""
    if any("oc.env" in o or "${" in o for o in overrides):
        return None
    digest = hashlib.sha256(f"{__version__}\0{config_name}\0{os.getcwd()}\0".encode())
    env_names: set[str] = set()
    for path in _config_files():
        try:
            info = path.stat()
        except OSError:
            return None
        digest.update(f"{path}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
        env_names.update(_ENV_REFERENCE.findall(path.read_text(encoding="utf-8")))
    for name in sorted(env_names):
        digest.update(f"env:{name}={os.environ.get(name)}\n".encode())
    if workspace is not None:
        try:
            info = workspace_config(workspace).stat()
        except OSError:
            return None
        digest.update(f"ws:{workspace}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    for override in overrides:
        digest.update(f"o:{override}\n".encode())
    return digest.hexdigest()[:40]


def cache_dir(workspace: Path | None) -> Path:
    if workspace is not None:
        return workspace / WORKSPACE_DIRNAME / "cache" / "compose"
    return default_output_dir(None) / ".cache" / "compose"


def load(directory: Path, key: str) -> dict[str, Any] | None:
    try:
        value = json.loads((directory / f"{key}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def store(directory: Path, key: str, container: dict[str, Any]) -> None:
    """Best effort: a cache that cannot be written is simply not used."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        # whole or not at all, and no temporary file left when the disk is full
        atomic_write.write_text(directory / f"{key}.json", json.dumps(container, default=str))
        entries = sorted(directory.glob("*.json"), key=lambda p: p.stat().st_mtime)
        for old in entries[:-MAX_ENTRIES]:
            old.unlink(missing_ok=True)
    except OSError:
        pass
