"""One item per place, lone hits, snippets centred on the match, highlights and the trace's
fusion weights (arr.fusion.places, arr.query.snippets, the Router)."""

from __future__ import annotations

from arr.cli.render import render_result
from arr.fusion.places import chunk_id, lone_hits_forward, merge_overlapping, place_rankings
from arr.models import EvidenceChunk, Location, ScopeKey, ToolCall, replaced
from arr.planner.rule import RuleQueryPlanner
from arr.query.snippets import centred, highlights
from arr.reranker.rule import RuleReranker
from arr.router.router import RetrievalRouter
from benchmarks.common.core import (
    plain_wsum,  # the class's tuned defaults off
    shipped_stage,
)
from tests.conftest import SCOPE_A


def item(
    cid: str, channel: str, path: str, start: int, end: int, score: float = 1.0, text: str = ""
) -> EvidenceChunk:
    return EvidenceChunk(
        id=cid,
        scope=SCOPE_A,
        channel=channel,
        location=Location(path=path, start_line=start, end_line=end),
        snippet=text or cid,
        score=score,
        ranks={channel: 1},
    )


def test_a_grep_line_joins_the_chunk_that_holds_it() -> None:
    assert chunk_id("a.py", 1, 40) == "doc:a.py#L1"
    assert chunk_id("a.py", 41, 40) == "doc:a.py#L41"
    lines = [
        item("grep:a.py#L45", "grep", "a.py", 45, 45),
        item("grep:a.py#L50", "grep", "a.py", 50, 50),
    ]
    chunks = [item("doc:a.py#L41", "bm25", "a.py", 41, 80)]
    placed = place_rankings({"grep": lines, "bm25": chunks}, 40)
    assert [c.id for c in placed["grep"]] == ["doc:a.py#L41"]  # one place, its best line
    fused = plain_wsum().fuse(placed)
    assert len(fused) == 1 and fused[0].channel == "bm25"
    assert set(fused[0].ranks) == {"bm25", "grep"}


def test_overlapping_items_of_a_file_merge_into_the_better_one() -> None:
    line = item("grep:a.py#L12", "grep", "a.py", 12, 12, score=3.0)
    chunk = item("doc:a.py#L1", "vector", "a.py", 1, 40, score=2.0, text="the chunk")
    other = item("doc:b.py#L1", "bm25", "b.py", 1, 40, score=1.5)
    far = item("doc:a.py#L81", "bm25", "a.py", 81, 120, score=1.0)
    merged = merge_overlapping([line, other, chunk, far])
    assert [c.id for c in merged] == ["doc:a.py#L1", "doc:b.py#L1", "doc:a.py#L81"]
    assert merged[0].snippet == "the chunk" and merged[0].score == 3.0  # the line's rank


def test_a_lone_hit_of_a_channel_is_shown_within_the_top_three() -> None:
    fused = [item(f"doc:f{i}.py#L1", "bm25", f"f{i}.py", 1, 40) for i in range(8)]
    memory = EvidenceChunk(
        id="mem:m1", scope=SCOPE_A, channel="memory", location=Location(memory_id="m1"),
        snippet="m", score=0.1, ranks={"memory": 1},
    )  # fmt: skip
    out = lone_hits_forward([*fused, memory], {"bm25": fused, "memory": [memory]})
    assert [c.id for c in out].index("mem:m1") == 2


class Channel:
    read_only, provider, summary = True, "local", "fake"

    def __init__(self, name: str, found: list[EvidenceChunk]) -> None:
        self.name, self.found = name, found

    def warm_up(self) -> None:
        pass

    def freshness(self, scope: ScopeKey):
        from arr.models import FRESH

        return FRESH

    def retrieve(self, call: ToolCall, scope: ScopeKey) -> list[EvidenceChunk]:
        return self.found


def test_a_single_memory_that_answers_ranks_in_the_top_three_through_the_router() -> None:
    """bm25 and vector agree on ten chunks (each found by both); the one published memory
    that matched weighs 1.0 (min-max of a lone item was 0) and is shown within the top 3."""
    docs = [
        item(f"doc:f{i}.py#L1", "x", f"f{i}.py", 1, 40, score=10.0 - i, text=f"chunk {i}")
        for i in range(10)
    ]
    memory = EvidenceChunk(
        id="mem:warmup", scope=SCOPE_A, channel="memory", location=Location(memory_id="warmup"),
        snippet="Warmup: linear warmup removed the spikes", score=3.2, ranks={"memory": 1},
    )  # fmt: skip
    router = RetrievalRouter(
        tools={
            "bm25": Channel("bm25", docs),
            "vector": Channel("vector", docs),
            "memory": Channel("memory", [memory]),
        },  # fmt: skip
        planner=RuleQueryPlanner(),
        fusion=plain_wsum(weighting="standout", code_gap_weight=0.2),
        reranker=RuleReranker(),
    )
    result = router.search("why did the warmup remove the loss spikes", SCOPE_A)
    ids = [e.id for e in result.evidence]
    assert ids.index("mem:warmup") <= 2
    assert result.evidence[0].score > 0  # the fused score, never 0 at rank 1
    notes = {t.tool: t.note for t in result.traces}
    assert notes["bm25"].startswith("fusion weight ") and "standout" in notes["bm25"]


def test_an_item_lifted_from_the_bottom_of_its_only_channel_shows_a_score_above_zero() -> None:
    """The only chunk naming the symbol is last in bm25, and grep found other lines (all tied);
    the rule reranker lifts the chunk to rank 1. With plain min-max it fused to 0 and showed
    score 0 at rank 1; the shipped fusion (floored min-max, standout floor) gives every
    returned item weight."""
    bm25 = [
        item(f"doc:f{i}.py#L1", "bm25", f"f{i}.py", 1, 40, score=12.0 - i, text=f"chunk {i}")
        for i in range(11)
    ]
    bm25.append(item("doc:mask.py#L1", "bm25", "mask.py", 1, 40, score=0.5, text="weight_mask(x)"))
    grep = [item(f"grep:g{i}.py#L3", "grep", f"g{i}.py", 3, 3, score=2.0) for i in range(12)]

    def top(fusion: object) -> EvidenceChunk:
        router = RetrievalRouter(
            tools={"bm25": Channel("bm25", bm25), "grep": Channel("grep", grep)},
            planner=RuleQueryPlanner(),
            fusion=fusion,
            reranker=RuleReranker(),
            merge_places=False,
        )
        result = router.search("weight_mask", SCOPE_A)
        assert {t.tool for t in result.traces} == {"bm25", "grep"}  # fused, not one channel
        return result.evidence[0]

    shipped = top(shipped_stage("fusion", "wsum"))
    assert shipped.id == "doc:mask.py#L1" and shipped.score > 0
    plain = top(plain_wsum(norm="min-max", weighting="standout", code_gap_weight=0.2))
    assert plain.id == "doc:mask.py#L1" and plain.score == 0.0  # what the floor fixes


def test_the_snippet_is_centred_on_the_matching_line() -> None:
    head = [f"# licence line {i}" for i in range(30)]
    tail = [f"    step_{i} = x" for i in range(30)]
    text = "\n".join([*head, "def weight_mask(x):", *tail])
    shown = centred(text, "weight_mask", 120)
    assert shown.startswith("# licence line 29\ndef weight_mask(x):")  # one line before
    near_end = "\n".join([*head, "def weight_mask(x):", "    return x"])
    assert centred(near_end, "weight_mask", 120).endswith("def weight_mask(x):\n    return x")
    assert centred("short", "weight_mask", 120) == "short"
    assert centred(text, "nothing matches", 50) == text[:50]


def test_highlights_mark_the_phrase_then_identifiers_and_words() -> None:
    text = "Call weight_mask before the Loss spikes; loss spikes again"
    spans = highlights(text, "loss spikes")  # the phrase first
    assert [text[a:b] for a, b in spans] == ["Loss spikes", "loss spikes"]
    spans = highlights(text, "loss spikes weight_mask")  # no phrase: identifier and words
    assert [text[a:b] for a, b in spans] == ["weight_mask", "Loss", "spikes", "loss", "spikes"]
    assert highlights(text, "the") == ()


def test_text_output_shows_the_fused_score_and_no_marks_off_a_terminal() -> None:
    docs = [item("doc:a.py#L1", "x", "a.py", 1, 40, score=5.0, text="x = weight_mask(y)")]
    router = RetrievalRouter(
        tools={"bm25": Channel("bm25", docs), "grep": Channel("grep", [])},
        planner=RuleQueryPlanner(),
        fusion=plain_wsum(),
        reranker=RuleReranker(),
    )
    result = router.search("weight_mask", SCOPE_A)
    assert result.evidence[0].highlights == ((4, 15),)
    text = render_result(result)
    assert "score 5.0000" in text and "weight_mask" in text


def test_the_symbol_bonus_reads_the_whole_chunk_not_its_snippet() -> None:
    """Two identifiers 30 lines apart: the snippet is a window around one of them, the chunk
    holds both; the chunk gets the whole bonus, ahead of a line that names only one."""
    lines = ["weight_mask = build()"] + ["pass"] * 30 + ["attention_bias = 0"]
    whole = item("doc:a.py#L1", "bm25", "a.py", 1, 32, score=1.0, text="weight_mask = build()")
    whole = whole.with_text("\n".join(lines))
    line = item("grep:b.py#L3", "grep", "b.py", 3, 3, score=2.0, text="attention_bias = 1")
    out = RuleReranker().rerank("weight_mask attention_bias", [line, whole])
    assert [c.id for c in out] == ["doc:a.py#L1", "grep:b.py#L3"]
    assert out[0].rerank_score == 0.5 and out[1].rerank_score == 0.25


def test_the_whole_text_travels_with_copies_and_is_never_serialised() -> None:
    chunk = item("doc:a.py#L1", "bm25", "a.py", 1, 40, text="short").with_text("SECRET-FREE BODY")
    copy = replaced(chunk, score=3.0).for_query("body")
    assert copy.full_text() == "SECRET-FREE BODY" and copy.highlights == ()
    assert "BODY" not in copy.model_dump_json() and "BODY" not in str(copy.model_dump())
    assert item("x", "grep", "b.py", 1, 1, text="the line").full_text() == "the line"
