"""A query none of whose words a lexical index holds (another script, a language the folder is
not in) says so: ``query_words_unknown``, instead of the embedding's nearest passages read as
answers (issue 63). Judged from the calls' traces: a lexical channel that read its whole index
and found nothing, and no channel but a semantic one that found anything."""

from __future__ import annotations

import pytest

from arr import codes
from arr.models import EvidenceChunk, QueryPlan, ToolCall, ToolRound
from arr.tools.base import ChannelAnswer
from tests.conftest import SCOPE_A, FakeTool, make_router


class Channel(FakeTool):
    """A fake channel that declares itself lexical (``semantic=False``), semantic, or memory
    (``None``: the memory store) in its traits; ``cut``: its scan stopped early."""

    def __init__(self, name: str, ids: list[str], semantic: bool | None, cut: str = "") -> None:
        super().__init__(name, ids)
        kind = "memory" if semantic is None else "semantic" if semantic else "lexical"
        self.traits = frozenset({kind})
        self.cut = cut

    def retrieve(self, call: ToolCall, scope) -> ChannelAnswer:  # type: ignore[no-untyped-def, override]
        found: list[EvidenceChunk] = super().retrieve(call, scope)
        return ChannelAnswer(found, {}, self.cut)


def search(*channels: Channel) -> list[str]:
    router = make_router(*channels)
    calls = tuple(ToolCall(tool=c.name, query="损失为什么突然上升") for c in channels)
    result = router.search(
        "损失为什么突然上升", SCOPE_A, QueryPlan(tool_rounds=(ToolRound(calls=calls),))
    )
    unknown = [d for d in result.degradations if d.code == codes.QUERY_WORDS_UNKNOWN]
    return [d.detail for d in unknown]


VECTOR = ("vector", ["v1", "v2"], True)


@pytest.mark.parametrize(
    ("channels", "says"),
    [
        pytest.param(
            [VECTOR, ("bm25", [], False), ("grep", [], False)],
            "no index holds a word of the query (bm25 and grep found none): the results are the "
            "nearest passages by meaning, not matches",
            id="lexical-empty-vector-answers",
        ),
        pytest.param(
            [VECTOR, ("bm25", [], False), ("memory", [], None)],
            "(bm25 found none)",
            id="memory-empty-too",
        ),
        pytest.param([VECTOR, ("bm25", ["b1"], False)], None, id="bm25-holds-a-word"),
        pytest.param(
            [VECTOR, ("bm25", [], False), ("memory", ["m1"], None)], None, id="memory-holds-it"
        ),
        pytest.param([VECTOR], None, id="no-lexical-channel-ran"),
        pytest.param([("vector", [], True), ("bm25", [], False)], None, id="nothing-to-show"),
    ],
)
def test_said_when_no_lexical_index_holds_a_word(
    channels: list[tuple[str, list[str], bool | None]], says: str | None
) -> None:
    details = search(*(Channel(*c) for c in channels))
    if says is None:
        assert details == []
    else:
        assert len(details) == 1 and says in details[0]


def test_a_scan_cut_short_proves_nothing() -> None:
    cut = Channel("grep", [], False, cut="deadline")
    assert search(Channel(*VECTOR), cut) == []
    assert search(Channel(*VECTOR), cut, Channel("bm25", [], False)) != []
