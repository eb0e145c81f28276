from __future__ import annotations

import pytest

from arr.fusion.rrf import RRFFusion, rrf_scores
from tests.conftest import chunk


def ranking(channel: str, *ids: str) -> list:
    return [chunk(i, channel, score=float(10 - r), rank=r) for r, i in enumerate(ids, 1)]


def test_rrf_scores_by_hand() -> None:
    scores = rrf_scores(
        {"bm25": ranking("bm25", "a", "b", "c"), "memory": ranking("memory", "c", "a")},
        rank_constant=60,
    )
    assert scores["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert scores["b"] == pytest.approx(1 / 62)
    assert scores["c"] == pytest.approx(1 / 63 + 1 / 61)


def test_fusion_order_ranks_and_weights() -> None:
    fused = RRFFusion(rank_constant=60).fuse(
        {"bm25": ranking("bm25", "a", "b", "c"), "memory": ranking("memory", "c", "a")}
    )
    assert [c.id for c in fused] == ["a", "c", "b"]
    assert fused[0].ranks == {"bm25": 1, "memory": 2}
    weighted = RRFFusion(rank_constant=60, weights={"memory": 3.0}).fuse(
        {"bm25": ranking("bm25", "a", "b", "c"), "memory": ranking("memory", "c", "a")}
    )
    assert weighted[0].id == "c"
    assert weighted[0].score == pytest.approx(1 / 63 + 3 / 61)


def test_single_channel_keeps_its_order_and_scores() -> None:
    original = ranking("bm25", "z", "a", "m")
    fused = RRFFusion().fuse({"bm25": original, "memory": []})
    assert [(c.id, c.score) for c in fused] == [("z", 9.0), ("a", 8.0), ("m", 7.0)]


def test_ties_break_by_id_and_duplicates_keep_first_rank() -> None:
    fused = RRFFusion().fuse({"x": ranking("x", "b", "b", "d"), "y": ranking("y", "a", "c")})
    # b and a both sit at rank 1 of one channel: equal scores, id order decides.
    assert [c.id for c in fused] == ["a", "b", "c", "d"]
    assert fused[1].score == pytest.approx(1 / 61)


def test_matches_ranx_reference() -> None:
    ranx = pytest.importorskip("ranx")
    runs = {"bm25": ["a", "b", "c", "d"], "memory": ["d", "e", "a"], "vector": ["e", "a"]}
    ours = rrf_scores({c: ranking(c, *ids) for c, ids in runs.items()}, rank_constant=60)
    ranx_runs = [
        ranx.Run({"q": {i: float(100 - r) for r, i in enumerate(ids)}}, name=c)
        for c, ids in runs.items()
    ]
    ref = ranx.fuse(runs=ranx_runs, method="rrf", params={"k": 60}).to_dict()["q"]
    assert ours.keys() == ref.keys()
    for doc_id, score in ours.items():
        assert score == pytest.approx(ref[doc_id])


@pytest.mark.parametrize(
    "kwargs", [{"rank_constant": -1}, {"top_k": 0}, {"weights": {"bm25": -1.0}}]
)
def test_invalid_fusion_config(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        RRFFusion(**kwargs)


def test_agreement_weights_trust_the_corroborated_channel() -> None:
    from arr.fusion.rrf import agreement_weights

    strong = ranking("vector", "r1", "r2", "r3", "r4")
    noise = [f"n{i}" for i in range(1, 21)]
    weak = ranking("bm25", *noise, "r1")  # its head is noise; one relevant document, deep
    weights = agreement_weights({"vector": strong, "bm25": weak}, depth=3, pool_depth=30)
    # 1 of vector's top 3 is in bm25's pool (1/3); none of bm25's top 3 is in vector's (0/3).
    mean = (1 / 3 + 0.1 + 0.1) / 2
    assert weights["vector"] == pytest.approx((1 / 3 + 0.1) / mean)
    assert weights["bm25"] == pytest.approx(0.1 / mean)
    trusted = {c: w for c, w in weights.items()}
    fused = RRFFusion(weights=trusted).fuse({"vector": strong, "bm25": weak})
    assert [c.id for c in fused[:3]] == ["r1", "r2", "r3"]
    equal = RRFFusion().fuse({"vector": strong, "bm25": weak})
    assert [c.id for c in equal[:3]] == ["r1", "n1", "n2"]  # equal trust lets noise in


def test_agreement_is_neutral_for_channels_without_a_comparable_partner() -> None:
    from arr.fusion.rrf import agreement_weights

    weights = agreement_weights(
        {
            "memory": ranking("memory", "mem:a", "mem:b"),
            "bm25": ranking("bm25", "doc:x#L1"),
            "grep": ranking("grep", "grep:x#L3"),
        }
    )
    assert weights == {"memory": 1.0, "bm25": 1.0, "grep": 1.0}
    with pytest.raises(ValueError, match="weighting"):
        RRFFusion(weighting="magic")
