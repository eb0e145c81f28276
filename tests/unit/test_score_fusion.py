"""Score-based fusion (wsum with min-max / zmuv, dbsf): by hand and against ranx."""

from __future__ import annotations

import math
import random

import pytest

from arr.fusion.dbsf import DBSFFusion
from arr.fusion.norms import dbsf, min_max, zmuv
from arr.fusion.wsum import WSumFusion
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
    assert min_max([2.0, 2.0]) == [0.0, 0.0]
    assert zmuv([2.0, 2.0]) == [0.0, 0.0]
    assert dbsf([2.0, 2.0]) == [0.5, 0.5]
    assert all(0.0 <= v <= 1.0 for v in dbsf([100.0] + [0.0] * 50))


def test_wsum_min_max_by_hand() -> None:
    fused = WSumFusion(norm="min-max").fuse(
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
    fused = WSumFusion(norm="min-max", weights={"bm25": 0.5}).fuse(
        {"bm25": ranking("bm25", BM25), "vector": ranking("vector", VECTOR)}
    )
    assert [c.id for c in fused][:2] == ["c", "a"]
    assert fused[1].score == pytest.approx(0.5)


@pytest.mark.parametrize("fusion", [WSumFusion(), WSumFusion(norm="zmuv"), DBSFFusion()])
def test_single_channel_and_empty(fusion: object) -> None:
    original = ranking("bm25", BM25)
    fused = fusion.fuse({"bm25": original, "vector": []})  # type: ignore[attr-defined]
    assert [(c.id, c.score) for c in fused] == [(i, s) for i, s in BM25]
    assert fusion.fuse({}) == []  # type: ignore[attr-defined]


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="norm must be one of"):
        WSumFusion(norm="softmax")
    with pytest.raises(ValueError, match="top_k"):
        DBSFFusion(top_k=0)
    with pytest.raises(ValueError, match="weights must be >= 0"):
        WSumFusion(weights={"bm25": -1})
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
    fusion = WSumFusion(norm=norm, weights=weights, top_k=100)
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
        fused = WSumFusion(norm="zmuv", weighting="standout", top_k=10).fuse(rankings)
        assert [c.id for c in fused[:2]] == ["g1", "g2"]
    both = {
        "bm25": ranking("bm25", clear),
        "vector": ranking("vector", [("h1", 0.9)] + [(f"m{i}", 0.3 - i / 1000) for i in range(40)]),
    }
    fused = WSumFusion(norm="zmuv", weighting="standout", top_k=10).fuse(both)
    assert {c.id for c in fused[:2]} == {"g1", "h1"}


def test_standout_flat_lists_weigh_equally() -> None:
    flat = {
        "bm25": ranking("bm25", [("a", 1.0), ("b", 1.0)]),
        "vector": ranking("vector", [("c", 0.5), ("d", 0.5)]),
    }
    from arr.fusion.wsum import standout_weights

    assert standout_weights(flat) == {"bm25": 1.0, "vector": 1.0}
    with pytest.raises(ValueError, match="weighting"):
        WSumFusion(weighting="qpp")


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
