"""A query that is one identifier: where it is defined, first (issue 60: a module calling
``is_hop_by_hop_header`` twice outranked ``http.py``, which defines it)."""

from __future__ import annotations

from arr.models import EvidenceChunk, Location, ScopeKey
from arr.ordering.definition_first import DefinitionFirst

SCOPE = ScopeKey(team_id="t", project_id="p", repository="r", branch="b",
                 experiment_environment="e")  # fmt: skip


def chunk(path: str, line: int, text: str) -> EvidenceChunk:
    where = Location(path=path, start_line=line, end_line=line + 39)
    item = EvidenceChunk(id=f"doc:{path}#L{line}", scope=SCOPE, channel="bm25", location=where,
                         snippet=text[:80], score=1.0, ranks={"bm25": 1})  # fmt: skip
    return item.with_text(text)


USES = chunk("proxy.py", 81, "if is_hop_by_hop_header(key):\n    continue\n# is_hop_by_hop_header")
DEFINES = chunk("http.py", 1241, "\n\ndef is_hop_by_hop_header(header: str) -> bool:\n    ...")
OTHER = chunk("other.py", 1, "x = 1\n")


def test_the_definition_goes_first() -> None:
    ranked = DefinitionFirst().order("is_hop_by_hop_header", [USES, OTHER, DEFINES], [], 2)
    assert [c.location.path for c in ranked] == ["http.py", "proxy.py", "other.py"]
    # `Name`, Name() and a dotted name ask the same
    for query in ("`is_hop_by_hop_header`", "is_hop_by_hop_header()", "http.is_hop_by_hop_header"):
        assert DefinitionFirst().order(query, [USES, DEFINES], [], 2)[0] is DEFINES


def test_assignments_classes_and_other_languages_define_too() -> None:
    for text in ("class Headers(dict):", "Headers <- function(x) x", "export function Headers(",
                 "pub struct Headers {", "Headers = namedtuple('Headers', 'a b')"):  # fmt: skip
        defining = chunk("d.py", 1, f"# x\n{text}\n")
        assert DefinitionFirst().order("Headers", [USES, defining], [], 2)[0] is defining


def test_prose_a_comparison_or_a_definition_beyond_the_head_moves_nothing() -> None:
    assert DefinitionFirst().order("hop by hop header", [USES, DEFINES], [], 2)[0] is USES
    compared = chunk("c.py", 1, "is_hop_by_hop_header == other\n")
    assert DefinitionFirst().order("is_hop_by_hop_header", [USES, compared], [], 2)[0] is USES
    late = [USES, *[OTHER] * 3, DEFINES]
    assert DefinitionFirst(looked_at=3).order("is_hop_by_hop_header", late, [], 2)[0] is USES
