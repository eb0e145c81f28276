"""Where a name is defined, first (``definition_first``)."""

from __future__ import annotations

import re

from arr.models import EvidenceChunk, ToolTrace
from arr.ordering.rule import note_moved

# one identifier, maybe dotted (``is_hop_by_hop_header``, ``Headers.get``, ``TrueTime``)
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
# a definition of NAME in the languages researchers write (Python, R, Julia, JS/TS, Go, Rust,
# C-like types, shell functions): a line that starts with it
_DEFINES = (
    r"^[ \t]*(?:async[ \t]+)?def[ \t]+{n}\b",
    r"^[ \t]*class[ \t]+{n}\b",
    r"^[ \t]*(?:export[ \t]+)?(?:async[ \t]+)?function[ \t]+{n}\b",
    r"^[ \t]*(?:pub[ \t]+)?(?:fn|struct|enum|trait|type|func)[ \t]+{n}\b",
    r"^[ \t]*{n}[ \t]*(?:<-|=(?!=)|:=)",
)


class DefinitionFirst:
    """A query that is one identifier asks where it is defined more often than where it is
    used (the question ctags answers): the first item among the first ``looked_at`` whose text
    defines the name (``def``/``class``/``function``/``fn``/an assignment at the start of a
    line) goes first. Usages that mention the name more often than its definition (a module
    that calls it twice, a file whose name holds its words) otherwise rank above it."""

    name = "definition_first"

    def __init__(self, looked_at: int = 20) -> None:
        if looked_at < 1:
            raise ValueError(f"looked_at must be >= 1, got {looked_at}")
        self.looked_at = looked_at

    def order(
        self, query: str, ranked: list[EvidenceChunk], traces: list[ToolTrace], channels: int
    ) -> list[EvidenceChunk]:
        name = query.strip().strip("`'\"").removesuffix("()")
        if not _IDENTIFIER.fullmatch(name) or len(name) < 3:
            return ranked
        last = re.escape(name.rsplit(".", 1)[-1])
        defines = re.compile("|".join(p.format(n=last) for p in _DEFINES), re.MULTILINE)
        for position, item in enumerate(ranked[: self.looked_at]):
            if item.location.unit_kind not in ("lines", "cell"):
                continue
            if defines.search(item.full_text()):
                if position == 0:
                    return ranked
                note_moved(traces, [item], f"definition_first: {item.location.render()} "
                           f"defines {name}")  # fmt: skip
                return [item, *ranked[:position], *ranked[position + 1 :]]
        return ranked
