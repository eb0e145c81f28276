"""ARR: Agentic Research Retrieval.

Importing ``arr`` is cheap: no torch, chromadb or Hydra is imported until a router is built.
Library mode: ``router = arr.load_router(overrides=[...]); router.search(query, scope)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from arr.router.router import RetrievalRouter


def load_router(
    overrides: list[str] | None = None, config_name: str = "search", warm: bool = True
) -> RetrievalRouter:
    """Compose the Hydra config with ``overrides`` and build a ready RetrievalRouter."""
    from arr.api import load_router as _load_router

    return _load_router(overrides=overrides, config_name=config_name, warm=warm)


def __getattr__(name: str) -> Any:
    raise AttributeError(f"module 'arr' has no attribute {name!r}")
