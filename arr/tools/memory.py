"""Research-memory channel: published memories of the request scope, via SQLite FTS5.

Config: ``conf/tools/memory.yaml``. The store is live (no derived index), so it is always
fresh; a missing or corrupt database is a ChannelError the Router turns into a degradation.
"""

from __future__ import annotations

from pathlib import Path

from arr import codes
from arr.errors import MemoryStoreError
from arr.memory.store import ResearchMemoryStore
from arr.models import FRESH, EvidenceChunk, Freshness, Location, ScopeKey, ToolCall
from arr.safety.rules import redact_credentials, shown_name
from arr.tools.base import ChannelError, seconds_left
from arr.workspace.workspace import Workspace


class MemoryTool:
    read_only = True
    traits = frozenset({"memory"})  # arr.fusion.traits
    provider = "local"
    summary = (
        "research-memory: published research notes and findings of this project "
        "(conclusions, decisions, known pitfalls); good for natural-language questions"
    )

    def __init__(
        self,
        name: str,
        workspace: Workspace,
        top_k: int = 10,
        snippet_chars: int = 300,
        time_limit_s: float = 5.0,
    ) -> None:
        if top_k < 1:
            raise ValueError(f"top_k must be >= 1, got {top_k}")
        self.name = name
        self.db_path = Path(workspace.memory_db)
        self.top_k = top_k
        self.snippet_chars = snippet_chars
        self.time_limit_s = time_limit_s
        self.time_limit_s = time_limit_s
        self._store = ResearchMemoryStore(self.db_path)

    def warm_up(self) -> None:
        """Nothing to load: every search opens a short-lived connection."""

    def freshness(self, scope: ScopeKey) -> Freshness:
        return FRESH

    def retrieve(self, call: ToolCall, scope: ScopeKey) -> list[EvidenceChunk]:
        try:  # a missing file comes back as memory_db_missing (one lstat, in the store)
            hits = self._store.search(
                call.query,
                scope,
                call.top_k or self.top_k,
                time_limit_s=seconds_left(self.time_limit_s),
            )
        except MemoryStoreError as exc:
            raise ChannelError(exc.code or codes.MEMORY_DB_CORRUPT, str(exc)) from None
        return [
            EvidenceChunk(
                id=f"mem:{shown_name(memory.id)}",
                scope=memory.scope,
                channel=self.name,
                location=Location(memory_id=shown_name(memory.id)),  # an id is text too
                # Redacted whole, then cut: a secret never straddles the snippet's edge.
                snippet=redact_credentials(f"{memory.title}: {memory.body}")[0][
                    : self.snippet_chars
                ],
                score=score,
                ranks={self.name: rank},
            )
            for rank, (memory, score) in enumerate(hits, 1)
        ]
