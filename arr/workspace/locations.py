"""Where things live: arr's packaged config, the checkout (when there is one) and workspaces.

The config groups (``conf/``), recipes (``pipelines/``) and prompts live at the top of the
checkout, beside ``arr/``; the wheel maps them into the package (``arr/conf``,
``arr/pipelines``), so an installed wheel works from any directory. A *workspace* is a folder
holding ``.arr/workspace.yaml``; it is found like git finds ``.git``: ``--workspace PATH``
first, then ``$ARR_WORKSPACE``, then the current directory and its ancestors. Everything arr
writes for a workspace goes under its ``.arr/``: derived indexes in ``.arr/index``
(rebuildable), run folders in ``.arr/outputs``, and state (memory store, approvals ledger) in
``.arr/state``, which no clean-up ever touches.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from arr.errors import WorkspaceError
from arr.version import __version__

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # arr/ (this module is arr/workspace/)


def _shipped(name: str) -> Path:
    """``arr/<name>`` inside an installed wheel, else the checkout's top-level ``<name>/``."""
    packaged = PACKAGE_DIR / name
    return packaged if packaged.is_dir() else PACKAGE_DIR.parent / name


CONF_DIR = _shipped("conf")
PIPELINES_DIR = _shipped("pipelines")


@functools.cache
def config_groups() -> frozenset[str]:
    """The config groups of ``conf/`` and ``pipelines/`` (read once per process)."""
    return frozenset(
        p.name
        for folder in (CONF_DIR, PIPELINES_DIR)
        if folder.is_dir()
        for p in folder.iterdir()
        if p.is_dir()
    )


WORKSPACE_DIRNAME = ".arr"
WORKSPACE_FILE = "workspace.yaml"
ENV_WORKSPACE = "ARR_WORKSPACE"


def checkout_root() -> Path | None:
    """The source checkout arr runs from (editable install), or None for an installed wheel."""
    root = PACKAGE_DIR.parent
    return (
        root if (root / "pyproject.toml").is_file() and (root / "data" / "demo").is_dir() else None
    )


def checkout_here() -> Path | None:
    """The checkout arr runs from when the current folder is inside it, else None: an editable
    install used from any other folder behaves as the wheel does (no checkout demo standing in
    for a workspace, nothing written into the checkout)."""
    root = checkout_root()
    if root is None:
        return None
    here = Path.cwd().resolve()
    return root if here == root.resolve() or root.resolve() in here.parents else None


def demo_home() -> Path:
    """The bundled demo's own folder in the user's data folder (per ARR version): outside a
    workspace and a checkout, run folders and state live here, never where the user stands."""
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "arr" / f"demo-{__version__}"


def workspace_config(folder: Path) -> Path:
    return folder / WORKSPACE_DIRNAME / WORKSPACE_FILE


def is_workspace(folder: Path) -> bool:
    return workspace_config(folder).is_file()


def find_workspace(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` that holds a workspace config."""
    current = start.resolve()
    for folder in (current, *current.parents):
        if is_workspace(folder):
            return folder
    return None


def enclosing_workspace(folder: Path) -> Path | None:
    """A workspace strictly above ``folder`` (workspaces may not nest)."""
    resolved = folder.resolve()
    return find_workspace(resolved.parent) if resolved.parent != resolved else None


def resolve_workspace(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """The active workspace: explicit path, then $ARR_WORKSPACE, then discovery from the cwd.

    An explicit path or the environment variable must name a workspace (the folder or its
    ``.arr/workspace.yaml``); discovery returns None when there is none.
    """
    named = explicit if explicit is not None else os.environ.get(ENV_WORKSPACE) or None
    if named is not None:
        where = "--workspace" if explicit is not None else f"${ENV_WORKSPACE}"
        path = Path(named).expanduser()
        if path.name == WORKSPACE_FILE and path.parent.name == WORKSPACE_DIRNAME:
            path = path.parent.parent
        if not is_workspace(path):
            raise WorkspaceError(
                f"{where} {str(named)[:300]!r} is not an ARR workspace "
                f"(no {WORKSPACE_DIRNAME}/{WORKSPACE_FILE}); create one there with arr init"
            )
        found = path.resolve()
    else:
        found = find_workspace(Path.cwd())
    if found is not None:
        outer = enclosing_workspace(found)
        if outer is not None:
            raise WorkspaceError(
                f"workspace {str(found)!r} is nested inside workspace {str(outer)!r}; "
                "workspaces may not nest: remove one of the two .arr folders"
            )
    return found


def _home_for(workspace: Path | None, in_workspace: str, in_checkout: str) -> Path:
    """The workspace's .arr/<in_workspace>, else (in the checkout) <checkout>/<in_checkout>,
    else the demo's own folder: a command outside both (``arr eval`` of a collection, ``arr
    audit``) creates nothing where the user stands."""
    if workspace is not None:
        return workspace / WORKSPACE_DIRNAME / in_workspace
    checkout = checkout_here()
    if checkout is not None:
        return checkout / in_checkout
    return demo_home() / in_checkout


def default_output_dir(workspace: Path | None) -> Path:
    """Run folders and reports (derived)."""
    return _home_for(workspace, "outputs", "outputs")


def default_state_dir(workspace: Path | None) -> Path:
    """State (approvals ledger): never under outputs/ or an index folder, so no clean-up
    removes it."""
    return _home_for(workspace, "state", "state")


def hydra_quote(value: str) -> str:
    """A value safe inside a Hydra override (paths may hold spaces, commas or quotes)."""
    escaped = value.replace("\\", "\\\\").replace("'", "\\'")
    return f"'{escaped}'"


def workspace_overrides(workspace: Path | None, overrides: list[str]) -> list[str]:
    """Overrides that point a composition at ``workspace`` (the user's own overrides win)."""
    given = {o.split("=", 1)[0].lstrip("+~") for o in overrides if "=" in o}
    added = []
    if workspace is not None:
        added.append(f"paths.workspace_dir={hydra_quote(str(workspace))}")
        # An eval preset (eval=scifact, or any collection's) brings its own workspace; so does an
        # explicit workspace= override.
        if "workspace" not in given and "eval" not in given:
            added.append("workspace=local")
    if "paths.output_dir" not in given:
        added.append(f"paths.output_dir={hydra_quote(str(default_output_dir(workspace)))}")
    if "paths.state_dir" not in given:
        added.append(f"paths.state_dir={hydra_quote(str(default_state_dir(workspace)))}")
    return added
