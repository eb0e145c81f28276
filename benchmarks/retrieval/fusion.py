"""Benchmark: fusion methods and rule-reranker bonuses, one sweep per collection.

Collections: SciFact test (and its train split, which fitted parameters may use), CoSQA dev
(``../shared/data/cosqa_dev``; natural-language queries against Python functions, where BM25 is
far weaker than the dense channel) and a code-search set built here from an installed package's
docstrings (:mod:`benchmarks.retrieval.codesearch`). For every query the bm25 and vector
channels are run once through the Router (rule planner forced to plan both, top 100 each) and
their rankings are recorded; every fusion method and reranker variant is then applied to the
same recorded lists, so differences come from the method alone. Printed per collection:
nDCG@10, Recall@100, MRR@10, the p50 cost of the fusion step, and paired randomisation tests of
the default against the best single channel and plain RRF; then the share of queries the rule
planner routes lexical-only and their nDCG@10 routed vs always-hybrid.

Run: ``python -m benchmarks.retrieval.fusion [collection ...]`` (vector indexes are built on
first use under outputs/bench/fusion; SciFact reuses outputs/bench/hybrid).
"""

from __future__ import annotations

import pickle
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arr.compose.library import PROJECT_ROOT
from arr.eval.metrics import mrr_at, ndcg_at, recall_at
from arr.eval.stats import randomization_test
from arr.fusion.common import fuse
from arr.models import EvidenceChunk, ScopeKey
from benchmarks.common.core import (
    BENCH_SCOPE,
    bench_out,
    percentile,
    plain_wsum,
    read_qrels,
    read_queries,
    scifact_dir,
    shared_texts,
    shipped_embedder,
    shipped_stage,
)
from benchmarks.retrieval.codesearch import codesearch_dir

OUT = bench_out() / "fusion"
# Code-search sets built here from installed packages (benchmarks.retrieval.codesearch):
# networkx was the first; pandas and matplotlib were added as held-out sets for the code-gap
# weighting.
CODESEARCH_PACKAGES = ("networkx", "pandas", "matplotlib")
Rankings = dict[str, list[EvidenceChunk]]


@dataclass
class Collection:
    name: str
    root: Path
    split: str
    index_dir: Path
    scope: ScopeKey
    queries_file: str = "queries.jsonl"


def collections() -> dict[str, Collection]:
    shared = PROJECT_ROOT.parent / "shared" / "data"

    def key(repository: str, branch: str) -> ScopeKey:
        return ScopeKey(
            team_id="bench",
            project_id="beir",
            repository=repository,
            branch=branch,
            experiment_environment="cpu",
        )

    scifact = scifact_dir()
    base = bench_out() / "hybrid"
    return {
        "scifact": Collection("scifact", scifact, "test", base, BENCH_SCOPE),
        "scifact-train": Collection("scifact-train", scifact, "train", base, BENCH_SCOPE),
        "cosqa": Collection(
            "cosqa", shared / "cosqa_dev", "dev", OUT / "cosqa", key("cosqa", "dev")
        ),
        **{
            package: Collection(
                package, codesearch_dir(package), "test", OUT / package, key(package, "test")
            )
            for package in CODESEARCH_PACKAGES
        },
    }


@dataclass
class Recorded:
    """One query's channel rankings, as the Router handed them to fusion."""

    qid: str
    query: str
    rankings: Rankings
    qrels: dict[str, int]
    seconds: float = 0.0
    extra: dict[str, object] = field(default_factory=dict)


class _Recorder:
    """A fusion stage that records what it is given (and fuses by plain RRF)."""

    name = "recorder"

    def __init__(self) -> None:
        from arr.fusion.rrf import RRFFusion

        self.last: Rankings = {}
        self._rrf = RRFFusion(top_k=100)

    def fuse(self, rankings: Mapping[str, Sequence[EvidenceChunk]]) -> list[EvidenceChunk]:
        self.last = {c: list(r) for c, r in rankings.items()}
        return self._rrf.fuse(rankings)


def record(collection: Collection) -> list[Recorded]:
    """Both channels' top 100 for every judged query, the vectors by the embedder a user gets
    (cached in outputs/bench/fusion, one file per embedder: a changed embedder records again)."""
    embedder, tag = shipped_embedder()
    cache = OUT / f"{collection.name}-{tag}.pickle"
    if cache.exists():
        return [Recorded(*row) for row in pickle.loads(cache.read_bytes())]
    from arr.planner.rule import RuleQueryPlanner
    from arr.reranker.rule import RuleReranker
    from arr.router.router import RetrievalRouter
    from arr.tools.bm25 import BM25Tool
    from arr.tools.vector import VectorTool
    from arr.vector_store.chroma import ChromaStore
    from arr.workspace.workspace import Workspace

    if collection.name in CODESEARCH_PACKAGES and not (collection.root / "corpus.jsonl").exists():
        from benchmarks.retrieval.codesearch import build

        build(collection.name, 3000, 300)
    base = collection.index_dir
    workspace = Workspace(
        name=collection.name.split("-")[0],
        root=collection.root,
        index_dir=base,
        memory_db=base / "none.sqlite3",
        scopes={"collection": {"key": collection.scope, "corpus": "corpus.jsonl"}},
    )
    bm25 = BM25Tool("bm25", workspace)
    vector = VectorTool(
        "vector",
        workspace,
        embedder,  # type: ignore[arg-type]
        ChromaStore(base / "chroma"),
        show_progress=True,
    )
    for tool in (bm25, vector):
        if not tool.freshness(collection.scope).fresh:
            started = time.perf_counter()
            tool.build(collection.scope)
            took = time.perf_counter() - started
            print(f"[fusion] {collection.name}: built {tool.name} in {took:.0f} s")
    recorder = _Recorder()
    both = ("vector", "bm25")
    router = RetrievalRouter(
        tools={"bm25": bm25, "vector": vector},
        planner=RuleQueryPlanner(lexical_tools=both, semantic_tools=both, top_k=100),
        fusion=recorder,
        reranker=RuleReranker(),
    )
    qrels = read_qrels(collection.root / "qrels" / f"{collection.split}.tsv")
    queries = dict(read_queries(collection.root / collection.queries_file))
    recorded = []
    for qid in sorted(qrels, key=lambda q: (len(q), q)):
        if qid not in queries:
            continue
        started = time.perf_counter()
        router.search(queries[qid][:2000], collection.scope)
        recorded.append(
            Recorded(qid, queries[qid], recorder.last, qrels[qid], time.perf_counter() - started)
        )
    router.close()
    OUT.mkdir(parents=True, exist_ok=True)
    shared_texts(ranking for r in recorded for ranking in r.rankings.values())
    rows = [(r.qid, r.query, r.rankings, r.qrels, r.seconds) for r in recorded]
    cache.write_bytes(pickle.dumps(rows))
    return recorded


def judged(evidence: Sequence[EvidenceChunk]) -> list[str]:
    """Document ids in rank order, each once (a document's best chunk stands for it)."""
    seen: dict[str, None] = {}
    for chunk in evidence:
        seen.setdefault(chunk.location.document_id or chunk.id, None)
    return list(seen)


@dataclass
class Scores:
    ndcg: list[float]
    recall: list[float]
    mrr: list[float]
    fuse_us: list[float]

    def mean(self, name: str) -> float:
        return statistics.mean(getattr(self, name))


Pipeline = Callable[[Recorded], list[EvidenceChunk]]


def score(recorded: Sequence[Recorded], pipeline: Pipeline) -> Scores:
    out = Scores([], [], [], [])
    for item in recorded:
        started = time.perf_counter()
        ranked = judged(pipeline(item))
        out.fuse_us.append((time.perf_counter() - started) * 1e6)
        out.ndcg.append(ndcg_at(ranked, item.qrels, 10))
        out.recall.append(recall_at(ranked, item.qrels, 100))
        out.mrr.append(mrr_at(ranked, item.qrels, 10))
    return out


def fused_by(fusion: object, reranker: object | None = None) -> Pipeline:
    def run(item: Recorded) -> list[EvidenceChunk]:
        fused = fuse(fusion, item.query, item.rankings)  # as the Router calls it
        if reranker is not None:
            fused = reranker.rerank(item.query, fused)  # type: ignore[attr-defined]
        return fused

    return run


def channel(name: str) -> Pipeline:
    return lambda item: item.rankings.get(name, [])


def methods(
    fitted: Mapping[str, float] | None = None,
    code_gap_weight: float | None = None,
    shipped_code_gap: float | None = None,
) -> dict[str, Pipeline]:
    from arr.fusion.dbsf import DBSFFusion
    from arr.fusion.rrf import RRFFusion

    out = {
        "bm25_only": channel("bm25"),
        "vector_only": channel("vector"),
        "rrf": fused_by(RRFFusion(top_k=100)),
        "rrf_agreement": fused_by(RRFFusion(top_k=100, weighting="agreement")),
        "wsum_minmax": fused_by(plain_wsum(norm="min-max", top_k=100)),
        "wsum_zmuv": fused_by(plain_wsum(norm="zmuv", top_k=100)),
        "wsum_zmuv_standout": fused_by(plain_wsum(norm="zmuv", weighting="standout", top_k=100)),
        "dbsf": fused_by(DBSFFusion(top_k=100)),
    }
    out["wsum_minmax_standout"] = fused_by(
        plain_wsum(norm="min-max", weighting="standout", top_k=100)
    )
    if fitted:
        out["wsum_minmax_fitted"] = fused_by(plain_wsum(norm="min-max", weights=fitted, top_k=100))
    if code_gap_weight is not None:
        out["wsum_minmax_code_gap"] = fused_by(
            plain_wsum(code_gap_weight=code_gap_weight, top_k=100)
        )
        out[PREVIOUS] = fused_by(
            plain_wsum(weighting="standout", code_gap_weight=code_gap_weight, top_k=100)
        )
        out[FITTED_HERE] = fused_by(default_fusion(code_gap_weight))
        shipped = code_gap_weight if shipped_code_gap is None else shipped_code_gap
        out[DEFAULT] = fused_by(default_fusion(shipped))
    return out


def reranker_variants(fusion: object) -> dict[str, Pipeline]:
    """The rule reranker after ``fusion``: its defaults, every bonus on (the old defaults), and
    every bonus on but one."""
    from arr.reranker.rule import RuleReranker

    on = {"phrase_weight": 1.0, "symbol_weight": 0.5, "agreement_weight": 0.25}
    return {
        "no reranker": fused_by(fusion),
        "rule (defaults)": fused_by(fusion, RuleReranker()),
        "rule (all bonuses)": fused_by(fusion, RuleReranker(**on)),
        "rule, no phrase": fused_by(fusion, RuleReranker(**{**on, "phrase_weight": 0.0})),
        "rule, no symbol": fused_by(fusion, RuleReranker(**{**on, "symbol_weight": 0.0})),
        "rule, no agreement": fused_by(fusion, RuleReranker(**{**on, "agreement_weight": 0.0})),
    }


FIT_GRID = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def best_on_grid(
    recorded: Sequence[Recorded], fusion_for: Callable[[float], object], grid: Sequence[float]
) -> float:
    """The value of ``grid`` whose fusion maximises mean nDCG@10 on a training split (ties: the
    larger value)."""

    def quality(value: float) -> float:
        return score(recorded, fused_by(fusion_for(value))).mean("ndcg")

    return max(grid, key=lambda value: (quality(value), value))


def fit_bm25_weight(recorded: Sequence[Recorded]) -> float:
    """The bm25 weight (vector 1.0) of min-max wsum that maximises mean nDCG@10."""

    return best_on_grid(
        recorded, lambda w: plain_wsum(norm="min-max", weights={"bm25": w}, top_k=100), FIT_GRID
    )


def default_fusion(code_gap_weight: float) -> object:
    """The shipped default (floored min-max wsum, standout weights) with a given code-gap
    weight."""

    return plain_wsum(
        norm="min-max-floor", weighting="standout", code_gap_weight=code_gap_weight, top_k=100
    )


def fit_code_gap_weight(recorded: Sequence[Recorded]) -> float:
    """The code-gap weight of the default fusion that maximises mean nDCG@10."""
    return best_on_grid(recorded, default_fusion, (0.0, *FIT_GRID))


def cross_fitted_code_gap(recorded: Sequence[Recorded]) -> tuple[float, list[float]]:
    """Out-of-sample nDCG@10 of the code-gap weighting on the split it is fitted on: two folds
    (alternate queries), each scored with the weight fitted on the other."""
    folds = [list(recorded[0::2]), list(recorded[1::2])]
    ndcg, weights = [], []
    for held, train in ((folds[0], folds[1]), (folds[1], folds[0])):
        weight = fit_code_gap_weight(train)
        weights.append(weight)
        ndcg += score(held, fused_by(default_fusion(weight))).ndcg
    return statistics.mean(ndcg), weights


def table(
    name: str, recorded: Sequence[Recorded], pipelines: Mapping[str, Pipeline]
) -> dict[str, Scores]:
    results = {label: score(recorded, p) for label, p in pipelines.items()}
    print(f"\n## {name} ({len(recorded)} queries)\n")
    print("| method | nDCG@10 | Recall@100 | MRR@10 | fusion p50 us |")
    print("|---|---|---|---|---|")
    for label, s in results.items():
        print(
            f"| {label} | {s.mean('ndcg'):.4f} | {s.mean('recall'):.4f} | {s.mean('mrr'):.4f} "
            f"| {percentile(s.fuse_us, 0.5):.0f} |"
        )
    return results


def significance(results: Mapping[str, Scores], default: str) -> None:
    best = max(("bm25_only", "vector_only"), key=lambda m: results[m].mean("ndcg"))
    for other in (best, "rrf"):
        p = randomization_test(results[default].ndcg, results[other].ndcg)
        delta = results[default].mean("ndcg") - results[other].mean("ndcg")
        print(f"{default} vs {other}: delta nDCG@10 {delta:+.4f}, randomisation p = {p:.4f}")


def routing(name: str, recorded: Sequence[Recorded], fusion: object) -> None:
    """Share of queries the default rule planner sends lexical-only, and what that costs."""
    from arr.query.shape import query_shape

    lexical = [r for r in recorded if query_shape(r.query[:2000]) == "lexical"]
    line = f"{name}: {len(lexical)}/{len(recorded)} queries routed lexical-only"
    if lexical:
        routed = score(lexical, channel("bm25")).mean("ndcg")
        hybrid = score(lexical, fused_by(fusion)).mean("ndcg")
        line += f" (nDCG@10 routed {routed:.4f} vs always-hybrid {hybrid:.4f})"
    print(line)


DEFAULT = "wsum_floor_standout_code_gap (shipped)"
FITTED_HERE = "wsum_floor_standout_code_gap (weight fitted in this run)"
PREVIOUS = "wsum_minmax_standout_code_gap"  # the default before the floored min-max


def shipped_code_gap() -> float:
    """The code-gap weight the shipped fusion config uses (what a user's search runs)."""
    fusion: Any = shipped_stage("fusion", "wsum")
    return float(fusion.code_gap_weight or 0.0)


def planner_depth() -> int:
    """How deep the shipped rule planner asks each channel (what fusion sees in the product)."""
    planner: Any = shipped_stage("planner", "rule")
    return int(planner.top_k or 100)


def at_depth(recorded: list[Recorded], depth: int) -> list[Recorded]:
    """The recorded lists cut to ``depth`` items per channel (recorded at 100)."""
    for item in recorded:
        item.rankings = {c: r[:depth] for c, r in item.rankings.items()}
    return recorded


def main(names: Sequence[str], depth: int | None = None) -> None:
    depth = planner_depth() if depth is None else depth
    print(f"[fusion] each channel's list cut to {depth} items (the rule planner's depth)")
    available = collections()

    def record_at(collection: Collection) -> list[Recorded]:
        return at_depth(record(collection), depth)

    fits = {
        "scifact": ("scifact-train", "SciFact train qrels"),
        "cosqa": ("cosqa", "CoSQA dev (the only split)"),
    }
    routes = []
    # the code-gap weight is fitted once, on the CoSQA dev split (prose questions against code),
    # and applied unchanged everywhere else; CoSQA's own figure is also given cross-fitted
    code_gap = fit_code_gap_weight(record_at(available["cosqa"]))
    shipped = shipped_code_gap()
    print(
        f"[fusion] code_gap_weight {code_gap} fitted on CoSQA dev in this run; the shipped "
        f"default ({DEFAULT}) uses the config's {shipped}"
    )
    default = default_fusion(shipped)
    for name in names or ("scifact", "cosqa", *CODESEARCH_PACKAGES):
        recorded = record_at(available[name])
        fit_name, fit_label = fits.get(name, ("cosqa", "CoSQA dev (transfer)"))
        weight = fit_bm25_weight(record_at(available[fit_name]))
        print(f"\n[fusion] {name}: bm25 weight {weight} fitted on {fit_label}")
        results = table(name, recorded, methods({"bm25": weight}, code_gap, shipped))
        if name == "cosqa":
            held_out, fold_weights = cross_fitted_code_gap(recorded)
            print(
                f"cosqa, code_gap cross-fitted (2 folds, weights {fold_weights}): "
                f"nDCG@10 {held_out:.4f}"
            )
        significance(results, DEFAULT)
        table(
            f"{name}, rule reranker bonuses after {DEFAULT}",
            recorded,
            reranker_variants(default),
        )
        routes.append((name, recorded))
    print()
    for name, recorded in routes:
        routing(name, recorded, default)


if __name__ == "__main__":
    arguments = sys.argv[1:]
    given = None
    if "--depth" in arguments:
        at = arguments.index("--depth")
        given = int(arguments[at + 1])
        del arguments[at : at + 2]
    main(arguments, given)
