"""The rules a workspace root obeys, the same for ``arr scope add`` and every later command:
its text (no ``..``), where it may lie (not a system or withheld folder, not holding the
workspace's own index or state), and which root a file label belongs to."""

from __future__ import annotations

import functools
import os
from pathlib import Path

from arr.errors import WorkspaceError
from arr.safety.rules import holds_arr_data, unsafe_root_reason


def check_root_text(root: str, where: str) -> None:
    """What a workspace file may say of a root: a non-empty path without '..'."""
    if not root or ".." in Path(root).parts:
        raise WorkspaceError(
            f"{where} {root[:200]!r} refused: a root must be a non-empty path without "
            "'..' (give the folder's own path, e.g. its absolute path)"
        )


def trusted_root(path: Path, index_dir: Path, state_dir: Path, where: str) -> str:
    """``path`` resolved, when arr may trust it as a root: not unsafe (``/``, system folders,
    home, a folder withheld by name such as ``.arr``) and not holding the workspace's index or
    state folder outside ``.arr``; else one WorkspaceError naming why. The same rules for
    ``arr scope add`` and every later command."""
    resolved = os.path.realpath(path)
    reason = unsafe_root_reason(resolved)
    if reason is not None:
        raise WorkspaceError(f"{where} {str(path)!r} refused: {reason}")
    for what, own in (("index", index_dir), ("state", state_dir)):
        # resolved once per path (this runs before every walk)
        if holds_arr_data(resolved, resolved_path(str(own))):
            raise WorkspaceError(
                f"{where} {str(path)!r} refused: it holds the workspace's {what} "
                f"folder {str(own)!r}, whose files carry the text of every scope; "
                "move that folder out of the root or below a folder named .arr"
            )
    return resolved


def root_of_label(roots: list[Path], label: str) -> tuple[Path, str] | None:
    """(root, path below it) of a scope's file label: with several roots a label starts with
    its root's folder name (as the walk writes it); None when no root has that name."""
    if len(roots) == 1:
        return roots[0], label
    head, _, relative = label.partition("/")
    root = next((r for r in roots if r.name == head), None)
    return None if root is None else (root, relative)


@functools.lru_cache(maxsize=256)
def resolved_path(path: str) -> str:
    return os.path.realpath(path)  # per search otherwise: a few system calls each time
