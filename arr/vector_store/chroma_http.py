"""Chroma behind a Chroma server (``HttpClient``), for teams that outgrow one machine.

Config: ``conf/vector_store/chroma_http.yaml`` (``vector_store=chroma_http
vector_store.host=... vector_store.port=...``). Same collections, manifests and failure codes
as the embedded store (arr.vector_store.chroma); a server that is down or goes away is a
``vector_store_unavailable`` degradation, never a failed search.
"""

from __future__ import annotations

import contextlib
from typing import Any

from arr.vector_store.chroma import ChromaStore


class ChromaHttpStore(ChromaStore):
    def __init__(self, host: str = "127.0.0.1", port: int = 8000, ssl: bool = False) -> None:
        if not host or "/" in host:
            raise ValueError(f"host must be a host name or address, got {host!r}")
        if not 0 < port < 65536:
            raise ValueError(f"port must be in 1..65535, got {port}")
        # exact search reads every vector over HTTP once per build: the former bound kept
        super().__init__(path=".", exact_max_items=20_000)
        self.snapshots = False  # the server holds the data, not this disk
        self.host, self.port, self.ssl = host, port, ssl

    def describe(self) -> str:
        return f"chroma server {'https' if self.ssl else 'http'}://{self.host}:{self.port}"

    def _between_processes(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()  # the server serialises its own schema changes

    def prune_segments(self) -> int:
        return 0  # the server owns its folders

    def _make_client(self) -> Any:
        import chromadb
        from chromadb.config import Settings

        return chromadb.HttpClient(
            host=self.host,
            port=self.port,
            ssl=self.ssl,
            settings=Settings(anonymized_telemetry=False),
        )
