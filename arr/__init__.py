"""ARR: Agentic Research Retrieval.

Importing ``arr`` is cheap: no torch, chromadb or Hydra is imported until a router is built.
Library mode: ``router = arr.load_router(workspace=PATH, overrides=[...]);
router.search(query, scope)`` (without ``workspace``: $ARR_WORKSPACE, then the current folder
upward, else the bundled demo of a checkout).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from arr.version import __version__

__all__ = ["__version__", "load_router"]

if TYPE_CHECKING:
    from arr.router.router import RetrievalRouter


def load_router(
    overrides: list[str] | None = None,
    config_name: str = "search",
    warm: bool = True,
    workspace: str | os.PathLike[str] | None = None,
) -> RetrievalRouter:
    """Compose the config with ``overrides`` (for ``workspace``) and build a ready router."""
    from arr.compose.library import load_router as _load_router

    return _load_router(
        overrides=overrides, config_name=config_name, warm=warm, workspace=workspace
    )


def __getattr__(name: str) -> Any:
    raise AttributeError(f"module 'arr' has no attribute {name!r}")
