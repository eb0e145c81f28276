"""The workspace: what may be searched, and the walk over it.

- ``workspace``: the Workspace (scopes, roots, chunking, the watched state).
- ``file``: ``.arr/workspace.yaml``, read, checked and written (``arr init``, ``arr scope``).
- ``locations``: where the workspace, the config and the state are found.
- ``roots``: trusted roots and root labels.
- ``sources``: the walk (files as Documents, chunking, skip records).
- ``documents``: reader files (PDF, notebook, LaTeX, BibTeX) as Documents.
- ``watch``: inotify over the roots, so freshness checks cost nothing when nothing changed.
- ``skip_reasons``: the words a skip reason is shown with.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    # ``arr.workspace.Workspace`` (a ``_target_`` in configs written before the house had rooms)
    # still names the class, without importing it with the package.
    if name == "Workspace":
        from arr.workspace.workspace import Workspace

        return Workspace
    raise AttributeError(f"module 'arr.workspace' has no attribute {name!r}")
