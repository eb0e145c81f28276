"""A memory as it may be shown: every credential-like value in its title, body, tags and
provenance replaced by ``[REDACTED]`` (the one secret judge, :func:`arr.safety.rules.
redact_credentials`). The store keeps what was written; what leaves it (MCP ``memory_get``,
``arr memory show``, the memory channel's snippets) is judged like every other text."""

from __future__ import annotations

from arr.models import ResearchMemory, replaced
from arr.safety.rules import redact_credentials, shown_name


def shown_memory(memory: ResearchMemory) -> ResearchMemory:
    def clean(text: str) -> str:
        return redact_credentials(text)[0]

    return replaced(
        memory,
        id=shown_name(memory.id),  # ids are text too (one written before ids were judged)
        title=clean(memory.title),
        body=clean(memory.body),
        tags=tuple(clean(tag) for tag in memory.tags),
        provenance=clean(memory.provenance),
    )
