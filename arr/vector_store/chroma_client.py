"""Opening an embedded Chroma client, and forgetting the per-path "system" Chroma keeps for the
life of the process (a half-started one must not be handed to the next open)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any


def open_client(path: Path) -> Any:
    """A ``PersistentClient`` on ``path`` with telemetry off (the caller holds the store's
    open lock: Chroma migrates a new store's SQLite file on first open, unguarded)."""
    import chromadb
    from chromadb.config import Settings

    try:
        return chromadb.PersistentClient(
            path=str(path), settings=Settings(anonymized_telemetry=False)
        )
    except Exception:
        # Chroma keeps a half-started system per path for the life of the process: the next
        # open (after space was freed, the store repaired) must start a new one.
        with contextlib.suppress(Exception):
            from chromadb.api.shared_system_client import SharedSystemClient

            SharedSystemClient._identifier_to_system.pop(str(path), None)
            SharedSystemClient._identifier_to_refcount.pop(str(path), None)
        raise


def forget_systems() -> None:
    """Drop every system Chroma cached (best effort; a fresh process starts clean anyway)."""
    try:
        from chromadb.api.client import SharedSystemClient

        SharedSystemClient.clear_system_cache()
    except Exception:  # noqa: BLE001
        pass
