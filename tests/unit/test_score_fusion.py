"""Score-based fusion (wsum with min-max / zmuv, dbsf): by hand and against ranx."""

from __future__ import annotations

import math
import random

import pytest

from arr.fusion.dbsf import DBSFFusion
from arr.fusion.norms import dbsf, min_max, min_max_floor, zmuv
from benchmarks.common.core import plain_wsum  # the class's tuned defaults off
from tests.conftest import chunk


def ranking(channel: str, scored: list[tuple[str, float]]) -> list:
    return [chunk(i, channel, score=s, rank=r) for r, (i, s) in enumerate(scored, 1)]


BM25 = [("a", 12.0), ("b", 6.0), ("c", 3.0)]
VECTOR = [("c", 0.9), ("d", 0.5), ("a", 0.4)]


def test_norms_by_hand() -> None:
    assert min_max([12.0, 6.0, 3.0]) == pytest.approx([1.0, 1 / 3, 0.0])
    mean, std = 7.0, math.sqrt(((5**2) + 1 + 16) / 3)
    assert zmuv([12.0, 6.0, 3.0]) == pytest.approx([(s - mean) / std for s in (12, 6, 3)])
    low, span = mean - 3 * std, 6 * std
    assert dbsf([12.0, 6.0, 3.0]) == pytest.approx([(s - low) / span for s in (12, 6, 3)])
    # flat lists: no division by zero; dbsf clips into [0, 1]
    assert min_max([2.0, 2.0]) == [1.0, 0.5]  # no spread: by rank, the first is 1.0
    assert min_max([7.5]) == [1.0]  # a lone item is its channel's best
    assert zmuv([2.0, 2.0]) == [0.0, 0.0]
    assert dbsf([2.0, 2.0]) == [0.5, 0.5]
    assert all(0.0 <= v <= 1.0 for v in dbsf([100.0] + [0.0] * 50))


def test_the_floored_min_max_gives_every_returned_item_weight() -> None:
    """min-max onto [MIN_MAX_FLOOR, 1]: the last item weighs the floor (never 0), the first 1.0,
    the order and the relative spacing of min-max kept."""
    from arr.fusion.norms import MIN_MAX_FLOOR

    f = MIN_MAX_FLOOR
    assert min_max_floor([12.0, 6.0, 3.0]) == pytest.approx([1.0, f + (1 - f) / 3, f])
    assert min_max_floor([2.0, 2.0]) == pytest.approx([1.0, f + (1 - f) * 0.5])  # by rank
    assert min_max_floor([7.5]) == [1.0]
    assert min_max_floor([]) == []
    rng = random.Random(3)
    for _ in range(50):
        scores = sorted((rng.random() * 30 for _ in range(rng.randint(1, 40))), reverse=True)
        floored = min_max_floor(scores)
        assert min(floored) >= f - 1e-12 and max(floored) == pytest.approx(1.0)
        assert floored == sorted(floored, reverse=True)


def test_a_tied_channel_keeps_a_floor_weight_under_standout() -> None:
    """grep lines with the same term count do not stand out (z = 0): the channel weighs the
    floor, not 0, so an item only it found still fuses above 0."""
    from arr.fusion.wsum import STANDOUT_MIN_WEIGHT, standout_weights

    spread = ranking("bm25", [(f"b{i}", 20.0 - i * i / 5) for i in range(12)])
    tied = ranking("grep", [(f"g{i}", 2.0) for i in range(12)])
    weights = standout_weights({"bm25": spread, "grep": tied})
    assert weights["grep"] == STANDOUT_MIN_WEIGHT and weights["bm25"] > 1.0
    fused = plain_wsum(norm="min-max-floor", weighting="standout").fuse(
        {"bm25": spread, "grep": tied}
    )
    assert all(c.score > 0 for c in fused)


def test_wsum_min_max_by_hand() -> None:
    fused = plain_wsum(norm="min-max").fuse(
        {"bm25": ranking("bm25", BM25), "vector": ranking("vector", VECTOR)}
    )
    # bm25: a 1, b 1/3, c 0; vector: c 1, d 0.2, a 0
    assert [(c.id, round(c.score, 6)) for c in fused] == [
        ("a", 1.0),
        ("c", 1.0),
        ("b", round(1 / 3, 6)),
        ("d", 0.2),
    ]
    assert fused[0].ranks == {"bm25": 1, "vector": 3}


def test_weights_shift_the_order() -> None:
    fused = plain_wsum(norm="min-max", weights={"bm25": 0.5}).fuse(
        {"bm25": ranking("bm25", BM25), "vector": ranking("vector", VECTOR)}
    )
    assert [c.id for c in fused][:2] == ["c", "a"]
    assert fused[1].score == pytest.approx(0.5)


@pytest.mark.parametrize("fusion", [plain_wsum(), plain_wsum(norm="zmuv"), DBSFFusion()])
def test_single_channel_and_empty(fusion: object) -> None:
    original = ranking("bm25", BM25)
    fused = fusion.fuse({"bm25": original, "vector": []})  # type: ignore[attr-defined]
    assert [(c.id, c.score) for c in fused] == [(i, s) for i, s in BM25]
    assert fusion.fuse({}) == []  # type: ignore[attr-defined]


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="norm must be one of"):
        plain_wsum(norm="softmax")
    with pytest.raises(ValueError, match="top_k"):
        DBSFFusion(top_k=0)
    with pytest.raises(ValueError, match="weights must be >= 0"):
        plain_wsum(weights={"bm25": -1})
    with pytest.raises(ValueError, match="must be a number"):
        DBSFFusion(weights={"bm25": "heavy"})


def _random_runs(seed: int) -> dict[str, dict[str, list[tuple[str, float]]]]:
    rng = random.Random(seed)
    runs: dict[str, dict[str, list[tuple[str, float]]]] = {"bm25": {}, "vector": {}}
    for q in range(20):
        docs = [f"d{i}" for i in range(40)]
        for name, scale in (("bm25", 25.0), ("vector", 1.0)):
            picked = rng.sample(docs, rng.randint(2, 30))
            scored = sorted(
                ((d, round(rng.random() * scale, 6)) for d in picked), key=lambda x: -x[1]
            )
            runs[name][f"q{q}"] = scored
    return runs


@pytest.mark.parametrize("norm", ["min-max", "zmuv"])
@pytest.mark.parametrize("weighted", [False, True])
def test_wsum_matches_ranx(norm: str, weighted: bool) -> None:
    ranx = pytest.importorskip("ranx")
    runs = _random_runs(7)
    weights = {"bm25": 0.3, "vector": 0.7} if weighted else None
    fusion = plain_wsum(norm=norm, weights=weights, top_k=100)
    reference = ranx.fuse(
        runs=[ranx.Run({q: dict(r) for q, r in runs[c].items()}) for c in ("bm25", "vector")],
        norm=norm,
        method="wsum" if weighted else "sum",
        params={"weights": [0.3, 0.7]} if weighted else None,
    ).to_dict()
    for qid in runs["bm25"]:
        fused = fusion.fuse({c: ranking(c, runs[c][qid]) for c in ("bm25", "vector")})
        assert {c.id: c.score for c in fused} == pytest.approx(reference[qid], abs=1e-6)


def test_dbsf_equals_sum_of_dbsf_normalised_runs_in_ranx() -> None:
    """ranx has no DBSF: normalise each run as DBSF does, then fuse with ranx's CombSUM."""
    ranx = pytest.importorskip("ranx")
    runs = _random_runs(11)
    normalised = []
    for c in ("bm25", "vector"):
        per_query = {}
        for qid, scored in runs[c].items():
            values = dbsf([s for _, s in scored])
            per_query[qid] = {d: v for (d, _), v in zip(scored, values, strict=True)}
        normalised.append(ranx.Run(per_query))
    reference = ranx.fuse(runs=normalised, norm=None, method="sum").to_dict()
    for qid in runs["bm25"]:
        fused = DBSFFusion(top_k=100).fuse(
            {c: ranking(c, runs[c][qid]) for c in ("bm25", "vector")}
        )
        assert {c.id: c.score for c in fused} == pytest.approx(reference[qid], abs=1e-6)


def test_standout_weighting_follows_the_channel_whose_head_stands_out() -> None:
    """Synthetic lists: one channel has a clear head (the good channel), the other is flat noise;
    with standout weighting the fused head is the clear channel's head. When both channels have
    clear heads, both heads make the fused top 2 (it fuses)."""
    rng = random.Random(3)
    clear = [("g1", 30.0), ("g2", 22.0)] + [(f"n{i}", 5.0 - i * 0.01) for i in range(40)]
    noise = [(f"r{i}", 0.50 - i * 0.001 + rng.random() * 0.0005) for i in range(40)]
    for _ in range(20):
        rng.shuffle(noise)
        ordered = sorted(noise, key=lambda x: -x[1])
        rankings = {"bm25": ranking("bm25", clear), "vector": ranking("vector", ordered)}
        fused = plain_wsum(norm="zmuv", weighting="standout", top_k=10).fuse(rankings)
        assert [c.id for c in fused[:2]] == ["g1", "g2"]
    both = {
        "bm25": ranking("bm25", clear),
        "vector": ranking("vector", [("h1", 0.9)] + [(f"m{i}", 0.3 - i / 1000) for i in range(40)]),
    }
    fused = plain_wsum(norm="zmuv", weighting="standout", top_k=10).fuse(both)
    assert {c.id for c in fused[:2]} == {"g1", "h1"}


def test_standout_flat_lists_weigh_equally() -> None:
    flat = {
        "bm25": ranking("bm25", [("a", 1.0), ("b", 1.0)]),
        "vector": ranking("vector", [("c", 0.5), ("d", 0.5)]),
    }
    from arr.fusion.wsum import standout_weights

    assert standout_weights(flat) == {"bm25": 1.0, "vector": 1.0}
    with pytest.raises(ValueError, match="weighting"):
        plain_wsum(weighting="qpp")


def test_standout_leaves_a_list_too_short_to_judge_at_weight_one() -> None:
    """Three published memories have no tail to stand out of (their z-scores average 0): the
    channel keeps weight 1.0 instead of being weighed to nothing; long lists are still judged."""
    from arr.fusion.wsum import standout_weights

    clear = [("g1", 30.0), ("g2", 22.0)] + [(f"n{i}", 5.0 - i * 0.01) for i in range(40)]
    flat = [(f"r{i}", 0.50 - i * 0.001) for i in range(40)]
    channels = {
        "bm25": ranking("bm25", clear),
        "memory": ranking("memory", [("m1", 3.0), ("m2", 2.0), ("m3", 1.0)]),
        "vector": ranking("vector", flat),
    }
    weights = standout_weights(channels)
    assert weights["memory"] == 1.0
    assert weights["bm25"] > 1.0 > weights["vector"]
    assert (weights["bm25"] + weights["vector"]) / 2 == pytest.approx(1.0)
    fused = plain_wsum(weighting="standout").fuse(channels)
    assert "m1" in [c.id for c in fused[:3]]


def test_rrf_matches_ranx() -> None:
    ranx = pytest.importorskip("ranx")
    from arr.fusion.rrf import RRFFusion

    runs = _random_runs(5)
    reference = ranx.fuse(
        runs=[ranx.Run({q: dict(r) for q, r in runs[c].items()}) for c in ("bm25", "vector")],
        method="rrf",
        params={"k": 60},
    ).to_dict()
    for qid in runs["bm25"]:
        fused = RRFFusion(top_k=100).fuse({c: ranking(c, runs[c][qid]) for c in ("bm25", "vector")})
        assert {c.id: c.score for c in fused} == pytest.approx(reference[qid], abs=1e-9)


CODE = "def step_next_line(self):\n    self._eol.append(self.position)\n    self._lineno += 1"
PROSE = "Perinatal mortality in rural China: a retrospective cohort study of 1999-2000 births."


def test_code_is_told_from_prose() -> None:
    from arr.fusion.code_gap import looks_like_code

    assert looks_like_code(CODE)
    assert looks_like_code("x = {'a': [1, 2]}; f(x)  # set up")
    assert not looks_like_code(PROSE)
    claim = (  # parentheses, a comparison and a citation are prose
        "Interleukin-6 (IL-6) rose 1.5-fold in sepsis [12] (p < 0.01) and stayed high for 72 "
        "hours after admission in most of the patients we followed."
    )
    assert not looks_like_code(claim)
    assert not looks_like_code("")
    assert not looks_like_code("() [] {} == ;;")  # no letters: nothing to read


def _code_gap_case(snippet_of_bm25_head: str) -> dict[str, list]:
    bm25 = [
        chunk(i, "bm25", score=s, rank=r, snippet=snippet_of_bm25_head)
        for r, (i, s) in enumerate([("a", 12.0), ("b", 6.0), ("c", 3.0)], 1)
    ]
    vector = [
        chunk(i, "vector", score=s, rank=r, snippet=CODE)
        for r, (i, s) in enumerate([("c", 0.9), ("d", 0.5), ("a", 0.4)], 1)
    ]
    return {"bm25": bm25, "vector": vector}


def test_code_gap_lowers_word_matches_for_a_prose_question_about_code() -> None:
    fusion = plain_wsum(code_gap_weight=0.25)
    fused = fusion.fuse_for_query("how to move the cursor to the next line", _code_gap_case(CODE))
    # bm25 (weight 0.25): a 1, b 1/3, c 0; vector: c 1, d 0.2, a 0
    assert [(c.id, round(c.score, 6)) for c in fused] == [
        ("c", 1.0),
        ("a", 0.25),
        ("d", 0.2),
        ("b", round(0.25 / 3, 6)),
    ]


@pytest.mark.parametrize(
    ("query", "head"),
    [
        ("how to move the cursor to the next line", PROSE),  # the lexical head is prose
        ("step_next_line cursor", CODE),  # the query names an identifier: a look-up
        ("why does step_next_line move the cursor to the next line", CODE),  # prose + identifier
    ],
)
def test_code_gap_keeps_equal_weights_where_words_are_evidence(query: str, head: str) -> None:
    rankings = _code_gap_case(head)
    gap = plain_wsum(code_gap_weight=0.25).fuse_for_query(query, rankings)
    equal = plain_wsum().fuse(rankings)
    assert [(c.id, c.score) for c in gap] == [(c.id, c.score) for c in equal]


def test_code_gap_follows_the_good_channel_and_still_fuses() -> None:
    """A prose question against code where the word channel is noise: the dense head leads;
    where both channels agree on a document, it still gains from both."""
    rng = random.Random(5)
    noise = [(f"n{i}", 9.0 - i * 0.1 + rng.random() * 0.01) for i in range(30)]
    # the noise's head is also somewhere in the dense list, so equal weights put it first
    dense = [("good", 0.8), ("n0", 0.6)] + [(f"m{i}", 0.5 - i * 0.01) for i in range(30)]
    both = [("good", 0.8), ("shared", 0.79)] + [(f"m{i}", 0.5 - i * 0.01) for i in range(30)]
    query = "how do I read a file line by line"
    fusion = plain_wsum(code_gap_weight=0.25, top_k=5)

    def lists(vector: list, bm25: list) -> dict[str, list]:
        return {
            name: [chunk(i, name, s, r, snippet=CODE) for r, (i, s) in enumerate(scored, 1)]
            for name, scored in (("bm25", bm25), ("vector", vector))
        }

    assert fusion.fuse_for_query(query, lists(dense, noise))[0].id == "good"
    assert plain_wsum().fuse(lists(dense, noise))[0].id == "n0"  # equal weights follow the noise
    fused = fusion.fuse_for_query(query, lists(both, [("shared", 9.5), *noise]))
    assert fused[0].id == "shared"  # found by both: fused above either channel's own head


def test_code_gap_and_standout_weights_multiply() -> None:
    from arr.fusion.wsum import standout_weights

    rankings = _code_gap_case(CODE)
    query = "how to move the cursor to the next line"
    standout = standout_weights(rankings)
    fusion = plain_wsum(weighting="standout", code_gap_weight=0.25)
    combined = fusion.fuse_for_query(query, rankings)
    by_hand = plain_wsum(
        weights={"bm25": 0.25 * standout["bm25"], "vector": standout["vector"]}
    ).fuse(rankings)
    assert [(c.id, c.score) for c in combined] == [(c.id, c.score) for c in by_hand]


def test_code_gap_options_are_checked() -> None:
    for bad in (-0.1, 1.5, "x", True, float("nan")):
        with pytest.raises(ValueError, match="code_gap_weight"):
            plain_wsum(code_gap_weight=bad)  # type: ignore[arg-type]
    # fuse() without a query (no query to read) keeps equal weights
    rankings = _code_gap_case(CODE)
    plain = plain_wsum(code_gap_weight=0.2).fuse(rankings)
    assert [c.id for c in plain] == [c.id for c in plain_wsum().fuse(rankings)]


def test_a_file_is_supported_by_its_best_few_other_items_not_by_its_length() -> None:
    """One chunk of a short file scores 1.0; a long file has ten chunks of 0.3. Summed over
    every chunk the long file's support (0.5 x 2.7) put it first; from its best SUPPORTERS
    other items it stays behind the short file."""
    from arr.fusion.wsum import SUPPORTERS, file_supported

    short, long = "doc:short.py#L1", [f"doc:long.py#L{40 * n + 1}" for n in range(10)]
    path_of = {short: "short.py", **{item: "long.py" for item in long}}
    scores = {short: 1.0, **{item: 0.3 for item in long}}
    scores[long[0]] = 0.35  # the long file's head
    supported = file_supported(path_of, scores, 0.5)
    assert supported[short] == 1.0  # nothing else in its file
    assert supported[long[0]] == pytest.approx(0.35 + 0.5 * 0.3 * SUPPORTERS)
    assert supported[long[0]] < supported[short]
    # an item below the file's head is supported by the head's best SUPPORTERS
    assert supported[long[-1]] == pytest.approx(0.3 + 0.5 * (0.35 + 0.3 * (SUPPORTERS - 1)))
    # a memory or a document (no path) is never supported
    assert file_supported({}, {"mem:1": 0.4}, 0.5) == {"mem:1": 0.4}


def test_the_pages_of_one_volume_support_each_other_only_within_a_paper() -> None:
    """A volume of papers: bm25 finds one page of paper B; grep finds three pages of paper A
    in the same PDF. A's pages must not lift B's page (the issue's volumes lost 0.016-0.044
    nDCG@10 against the same text as plain files), while the pages of one paper still do."""
    from arr.models import EvidenceChunk, Location
    from tests.conftest import SCOPE_A

    def page(number: int, paper: str, channel: str, score: float, rank: int) -> EvidenceChunk:
        cid = f"doc:vol.pdf#page={number}"
        return EvidenceChunk(
            id=cid,
            scope=SCOPE_A,
            channel=channel,
            location=Location(path="vol.pdf", anchor=f"page={number}", title=paper),
            snippet=cid,
            score=score,
            ranks={channel: rank},
        )

    rankings = {
        "bm25": [page(7, "Paper B", "bm25", 9.0, 1), page(2, "Paper A", "bm25", 3.0, 2)],
        "grep": [
            page(1, "Paper A", "grep", 5.0, 1),
            page(2, "Paper A", "grep", 4.0, 2),
            page(3, "Paper A", "grep", 3.0, 3),
        ],
    }
    fused = plain_wsum(norm="min-max-floor", file_support=0.5, page_support=None).fuse(rankings)
    scores = {c.id: c.score for c in fused}
    alone = plain_wsum(norm="min-max-floor").fuse(rankings)
    base = {c.id: c.score for c in alone}
    assert scores["doc:vol.pdf#page=7"] == pytest.approx(base["doc:vol.pdf#page=7"])
    assert scores["doc:vol.pdf#page=2"] > base["doc:vol.pdf#page=2"]


def test_pages_stand_alone_by_default_while_a_files_chunks_still_support_each_other() -> None:
    """``page_support`` 0 (the default): a long paper's many half-matching pages do not lift it
    over the paper one page of which matches best; chunks of a code file still support each
    other (``file_support``)."""
    from arr.fusion.wsum import WSumFusion
    from arr.models import EvidenceChunk, Location
    from tests.conftest import SCOPE_A

    def item(cid: str, path: str, score: float, rank: int, page: bool) -> EvidenceChunk:
        if page:
            where = Location(path=path, anchor=f"page={rank}", title=path)
        else:
            where = Location(path=path, start_line=rank, end_line=rank)
        return EvidenceChunk(id=cid, scope=SCOPE_A, channel="bm25", location=where,
                             snippet=cid, score=score, ranks={"bm25": rank})  # fmt: skip

    def both(found: list[EvidenceChunk]) -> dict[str, list[EvidenceChunk]]:
        return {
            "bm25": found,
            "vector": [c.model_copy(update={"channel": "vector"}) for c in found],
        }

    low = item("other#9", "other.pdf", 1.0, 9, True)  # the list's low end
    pages = [item(f"long#{n}", "long.pdf", 5.0 - n / 100, n + 2, True) for n in range(4)]
    fused = WSumFusion(weighting="equal").fuse_for_query(
        "q", both([item("right#1", "right.pdf", 5.05, 1, True), *pages, low])
    )
    assert fused[0].id == "right#1"
    code = [item(f"a.py#{n}", "a.py", 5.0 - n / 100, n + 2, False) for n in range(4)]
    fused = WSumFusion(weighting="equal").fuse_for_query(
        "q",
        both(
            [item("b.py#1", "b.py", 5.05, 1, False), *code, item("z.py#9", "z.py", 1.0, 9, False)]
        ),
    )
    assert fused[0].id == "a.py#0"  # four chunks of a.py support its best
