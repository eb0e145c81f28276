"""How a Chroma failure reaches ARR: every failure is a ChannelError ``vector_store_unavailable``
naming the action and the repair; a collection deleted under an open handle (another process
rebuilt it) is told apart, so a reader can open the one that is there now."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from arr import codes
from arr.tools.base import ChannelError
from arr.tools.partition import IndexBusy
from arr.tools.store_contract import UNREADABLE

UNAVAILABLE = codes.VECTOR_STORE_UNAVAILABLE
# Chroma's words when a collection's own index files cannot be loaded (a damaged HNSW header)
_HNSW_UNLOADABLE = ("error loading hnsw index", "hnsw segment reader")
REPAIR = "arr index rebuild=true tools=[vector] (the store is derived: rebuilt from sources)"


class Replaced(Exception):
    """The cached collection no longer exists (another process dropped or rebuilt it)."""


def not_found(exc: BaseException) -> bool:
    """Chroma's "collection does not exist" (its NotFoundError, or the message the Rust
    bindings raise for a collection deleted under an open handle), raised as it is or already
    named as a ChannelError by ``chroma_errors``."""
    text = exc.detail if isinstance(exc, ChannelError) else f"{type(exc).__name__}: {exc}"
    return "NotFoundError" in text or "does not exist" in text


@contextmanager
def chroma_errors(action: str) -> Iterator[None]:
    try:
        yield
    except (ChannelError, IndexBusy, Replaced):  # already named (IndexBusy: index_building)
        raise
    except Exception as exc:  # chromadb raises many types (HTTP, sqlite, rust bindings)
        text = str(exc)
        damaged = any(words in text.lower() for words in _HNSW_UNLOADABLE)
        what = f"chroma {action} failed ({UNREADABLE})" if damaged else f"chroma {action} failed"
        raise ChannelError(
            UNAVAILABLE, f"{what}: {type(exc).__name__}: {text[:200]}; repair: {REPAIR}"
        ) from None
