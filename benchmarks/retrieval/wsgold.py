"""Benchmark: answers on a researcher's own tree, scored at file level (``make bench-wsgold``).

The workspace gold sets of ``../shared/data/wsgold/`` (Werkzeug, 65 questions; Sphinx, 1,126):
a maintainer's fix description is the query, the files the fix touched are relevant. Every
channel (bm25, vector, grep) is run once per query through the Router (top 100 each) and its
ranking recorded; each pipeline is then applied to the same recorded lists: each channel
alone, plain RRF (k = 60), the shipped default (the rule planner's choice of channels, the
default fusion and the rule reranker) and plain ``rg`` (files ranked by how many of the
query's words they hold, then by how often). Scored at file level (each file at the rank of
its first item): nDCG@10, Recall@10, MRR@10, with paired randomisation tests of the default
against each baseline.

Run: ``python -m benchmarks.retrieval.wsgold [werkzeug|sphinx ...] [--limit N]`` (indexes built
on first use under outputs/bench/wsgold; the vector index of Sphinx takes minutes).
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from arr.compose.library import PROJECT_ROOT
from arr.eval.metrics import mrr_at, ndcg_at, recall_at
from arr.eval.stats import randomization_test
from arr.models import EvidenceChunk, ScopeKey
from benchmarks.common.core import bench_out, shared_texts, shipped_embedder, shipped_stage

OUT = bench_out() / "wsgold"
SETS = ("werkzeug", "sphinx")
CHANNELS = ("bm25", "vector", "grep")
CHUNK_LINES = 40  # the bench workspace's chunk grid (the Workspace default)
SCOPE = ScopeKey(
    team_id="bench",
    project_id="wsgold",
    repository="tree",
    branch="main",
    experiment_environment="cpu",
)
Rankings = dict[str, list[EvidenceChunk]]


def wsgold_dir(name: str) -> Path:
    """The set's folder: under ``$ARR_WSGOLD`` (the smoke test's tiny set), else the shared
    data folder beside the checkout."""
    base = os.environ.get("ARR_WSGOLD")
    return (Path(base) if base else PROJECT_ROOT.parent / "shared" / "data" / "wsgold") / name


def read_gold(name: str) -> list[dict[str, object]]:
    path = wsgold_dir(name) / "gold.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@dataclass
class Recorded:
    qid: str
    query: str
    rankings: Rankings
    relevant: dict[str, int]


class _Recorder:
    """A fusion stage that records the channel lists it is given."""

    name = "recorder"

    def __init__(self) -> None:
        self.last: Rankings = {}

    def fuse(self, rankings: Mapping[str, Sequence[EvidenceChunk]]) -> list[EvidenceChunk]:
        self.last = {c: list(r) for c, r in rankings.items()}
        return [c for r in rankings.values() for c in r]


def workspace_for(name: str):  # type: ignore[no-untyped-def]
    from arr.workspace.workspace import Workspace

    base = OUT / name
    return Workspace(
        name=name,
        root=wsgold_dir(name),
        index_dir=base / "index",
        memory_db=base / "none.sqlite3",
        scopes={"tree": {"key": SCOPE, "roots": ["tree"]}},
    )


def tools_for(name: str, embedder: object) -> dict[str, object]:
    from arr.tools.bm25 import BM25Tool
    from arr.tools.grep import GrepTool
    from arr.tools.vector import VectorTool
    from arr.vector_store.chroma import ChromaStore

    workspace = workspace_for(name)
    base = OUT / name
    return {
        "bm25": BM25Tool("bm25", workspace),
        "grep": GrepTool("grep", workspace),
        "vector": VectorTool(
            "vector",
            workspace,
            embedder,
            ChromaStore(base / "index" / "chroma"),
            show_progress=True,
        ),
    }


def record(name: str, limit: int | None = None) -> list[Recorded]:
    """Every channel's top 100 for every question (cached under outputs/bench/wsgold, one
    file per embedder: a changed embedder records again)."""
    embedder, tag = shipped_embedder()  # the user's embedder (int8) and model cache
    cache = OUT / f"{name}-{tag}.pickle"
    gold = read_gold(name)[:limit] if limit else read_gold(name)
    if cache.exists():
        rows = [Recorded(*row) for row in pickle.loads(cache.read_bytes())]
        if len(rows) >= len(gold):
            return rows[: len(gold)]
    from arr.planner.rule import RuleQueryPlanner
    from arr.reranker.rule import RuleReranker
    from arr.router.router import RetrievalRouter

    tools = tools_for(name, embedder)
    for tool in tools.values():
        if not tool.freshness(SCOPE).fresh:  # type: ignore[attr-defined]
            started = time.perf_counter()
            tool.build(SCOPE)  # type: ignore[attr-defined]
            print(f"[wsgold] {name}: built {tool.name} in {time.perf_counter() - started:.0f} s")  # type: ignore[attr-defined]
    recorder = _Recorder()
    router = RetrievalRouter(
        tools=tools,  # type: ignore[arg-type]
        planner=RuleQueryPlanner(lexical_tools=CHANNELS, semantic_tools=CHANNELS, top_k=100),
        fusion=recorder,
        reranker=RuleReranker(),
        merge_places=False,  # each channel's own list, as it returned it
    )
    router.watch_changes()
    recorded = []
    for case in gold:
        router.search(str(case["query"])[:2000], SCOPE)
        relevant = {str(p): 1 for p in case["relevant"]}  # type: ignore[union-attr]
        recorded.append(Recorded(str(case["id"]), str(case["query"]), recorder.last, relevant))
    router.close()
    OUT.mkdir(parents=True, exist_ok=True)
    shared_texts(ranking for r in recorded for ranking in r.rankings.values())
    rows = [(r.qid, r.query, r.rankings, r.relevant) for r in recorded]
    cache.write_bytes(pickle.dumps(rows))
    return recorded


def places(evidence: Sequence[EvidenceChunk]) -> list[str]:
    """Files (or memories) in rank order, each at the rank of its first item."""
    seen: dict[str, None] = {}
    for chunk in evidence:
        where = chunk.location
        seen.setdefault(where.path or (f"mem:{where.memory_id}" if where.memory_id else chunk.id))
    return list(seen)


_WORD = re.compile(r"[A-Za-z0-9_]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "is",
        "it",
        "not",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "when",
        "with",
        "fix",
        "fixed",
        "don't",
        "do",
        "does",
        "handle",
        "avoid",
        "prevent",
        "correct",
        "bug",
    ]
)


class PlainRg:
    """The baseline a researcher has without ARR: files ranked by how many distinct query
    words they hold (case-insensitive, as ``rg -i -c`` per word), then by total count."""

    def __init__(self, root: Path) -> None:
        self.files: dict[str, Counter[str]] = {}
        for path in sorted(root.rglob("*")):
            if path.is_file() and not path.is_symlink():
                try:
                    text = path.read_text(encoding="utf-8").lower()
                except (OSError, UnicodeDecodeError):
                    continue
                self.files[str(path.relative_to(root))] = Counter(_WORD.findall(text))

    def rank(self, query: str) -> list[str]:
        words = {w for w in _WORD.findall(query.lower()) if w not in _STOP and len(w) > 1}
        scored = []
        for path, counts in self.files.items():
            held = [w for w in words if counts.get(w)]
            if held:
                scored.append((-len(held), -sum(counts[w] for w in held), path))
        return [path for *_, path in sorted(scored)]


Pipeline = Callable[[Recorded], list[str]]


def channel(name: str) -> Pipeline:
    return lambda item: places(item.rankings.get(name, []))


def fused_items(
    fusion: object, reranker: object | None = None, planned: bool = False, merged: bool = False
) -> Callable[[Recorded], list[EvidenceChunk]]:
    """Fusion (and a reranker) over the recorded lists; ``planned``: only the channels the
    rule planner calls; ``merged``: one item per place, as the Router does by default."""
    from arr.fusion.common import fuse
    from arr.fusion.places import merge_overlapping, place_rankings
    from arr.planner.rule import RuleQueryPlanner

    planner = shipped_stage("planner", "rule")
    assert isinstance(planner, RuleQueryPlanner)
    summaries = {name: "" for name in CHANNELS}

    def run(item: Recorded) -> list[EvidenceChunk]:
        rankings = item.rankings
        if planned:  # the channels the default rule planner would have called, as deep
            depth = planner.top_k or 100
            rankings = {c: r[:depth] for c, r in rankings.items()}
            plan = planner.plan(item.query[:2000], summaries).plan
            chosen = {c.tool for r in plan.tool_rounds for c in r.calls}
            rankings = {c: r for c, r in rankings.items() if c in chosen}
        rankings = {c: r for c, r in rankings.items() if r}
        if merged:
            rankings = place_rankings(rankings, CHUNK_LINES)
        out = fuse(fusion, item.query, rankings)
        if merged:
            out = merge_overlapping(out)
        if reranker is not None:
            out = reranker.rerank(item.query, out)  # type: ignore[attr-defined]
        return out

    return run


def fused(
    fusion: object, reranker: object | None = None, planned: bool = False, merged: bool = False
) -> Pipeline:
    """The files of ``fused_items``' list, each at the rank of its first item."""
    return _places_of(fused_items(fusion, reranker, planned, merged))


def same_region(a: EvidenceChunk, b: EvidenceChunk) -> bool:
    """Two items of one file whose lines overlap or lie in one chunk of the grid."""
    x, y = a.location, b.location
    if not x.path or x.path != y.path or not x.start_line or not y.start_line:
        return False
    if (x.start_line - 1) // CHUNK_LINES == (y.start_line - 1) // CHUNK_LINES:
        return True
    return x.start_line <= (y.end_line or y.start_line) and y.start_line <= (
        x.end_line or x.start_line
    )


def repeated_regions(items: Sequence[EvidenceChunk], k: int = 10) -> int:
    """Pairs of items in the top ``k`` that show the same file region."""
    head = list(items[:k])
    return sum(same_region(a, b) for i, a in enumerate(head) for b in head[i + 1 :])


def default_items() -> Callable[[Recorded], list[EvidenceChunk]]:
    """The shipped pipeline's items (planned, fused, merged, reranked, named paths first)."""
    from arr.query.named_paths import named_first

    run = fused_items(
        shipped_stage("fusion", "wsum"), shipped_stage("reranker", "rule"), True, True
    )
    return lambda item: named_first(item.query, run(item))


@dataclass
class Scores:
    ndcg: list[float]
    recall: list[float]
    mrr: list[float]

    def mean(self, name: str) -> float:
        return statistics.mean(getattr(self, name)) if getattr(self, name) else 0.0


def score(recorded: Sequence[Recorded], pipeline: Pipeline) -> Scores:
    out = Scores([], [], [])
    for item in recorded:
        ranked = pipeline(item)
        out.ndcg.append(ndcg_at(ranked, item.relevant, 10))
        out.recall.append(recall_at(ranked, item.relevant, 10))
        out.mrr.append(mrr_at(ranked, item.relevant, 10))
    return out


def pipelines(name: str, default: Callable[[Recorded], list[EvidenceChunk]]) -> dict[str, Pipeline]:
    """Every pipeline the report scores; ``default`` gives the shipped pipeline's items."""
    from arr.fusion.rrf import RRFFusion

    rg = PlainRg(wsgold_dir(name) / "tree")
    return {
        "bm25": channel("bm25"),
        "vector": channel("vector"),
        "grep": channel("grep"),
        "plain rg": lambda item: rg.rank(item.query),
        "plain RRF (all three)": fused(RRFFusion(top_k=100)),
        "default without file names (path_weight 0)": fused(
            _without_path_weight(shipped_stage("fusion", "wsum")),
            shipped_stage("reranker", "rule"),
            planned=True,
            merged=True,
        ),
        "default, file names by every word (path_words=all)": fused(
            _with_path_words(shipped_stage("fusion", "wsum"), "all"),
            shipped_stage("reranker", "rule"),
            planned=True,
            merged=True,
        ),
        DEFAULT: _places_of(default),
    }


def _places_of(items: Callable[[Recorded], list[EvidenceChunk]]) -> Pipeline:
    return lambda item: places(items(item))


def _without_path_weight(fusion: object) -> object:
    """The shipped fusion with ``path_weight`` 0 (the ablation of file-name matching)."""
    plain = copy.copy(fusion)
    plain.path_weight = 0.0  # type: ignore[attr-defined]
    return plain


def _with_path_words(fusion: object, words: str) -> object:
    """The shipped fusion with file names matched by ``words`` (``all``: every query word, the
    rule before ``naming``)."""
    other = copy.copy(fusion)
    other.path_words = words  # type: ignore[attr-defined]
    return other


DEFAULT = "default (planned, fused, reranked)"


def detectable_delta(a: Sequence[float], b: Sequence[float]) -> float:
    """The smallest mean difference a paired test on these questions can call significant
    (two-sided 5%, about 2 standard errors of the per-question differences)."""
    differences = [x - y for x, y in zip(a, b, strict=True)]
    if len(differences) < 2:
        return float("inf")
    return 1.96 * statistics.stdev(differences) / len(differences) ** 0.5


def report(name: str, recorded: Sequence[Recorded]) -> dict[str, Scores]:
    # the default's items once per question: scored and then checked for repeated regions
    run_default = default_items()
    lists = {item.qid: run_default(item) for item in recorded}
    results = {
        label: score(recorded, p)
        for label, p in pipelines(name, lambda item: lists[item.qid]).items()
    }
    print(f"\n## {name} ({len(recorded)} questions, file level)\n")
    print("| pipeline | nDCG@10 | Recall@10 | MRR@10 |")
    print("|---|---|---|---|")
    for label, s in results.items():
        print(f"| {label} | {s.mean('ndcg'):.4f} | {s.mean('recall'):.4f} | {s.mean('mrr'):.4f} |")
    for other in results:
        if other == DEFAULT:
            continue
        p = randomization_test(results[DEFAULT].ndcg, results[other].ndcg)
        delta = results[DEFAULT].mean("ndcg") - results[other].mean("ndcg")
        least = detectable_delta(results[DEFAULT].ndcg, results[other].ndcg)
        print(
            f"default vs {other}: delta nDCG@10 {delta:+.4f}, randomisation p = {p:.4f} "
            f"(smallest delta this set can show: {least:.3f})"
        )
    repeated = [repeated_regions(lists[item.qid]) for item in recorded]
    print(
        f"default top 10: {sum(repeated)} pairs of items from one file region "
        f"({sum(1 for r in repeated if r)} of {len(recorded)} questions)"
    )
    return results


def main(argv: Sequence[str]) -> int:
    names = [a for a in argv if not a.startswith("--")] or list(SETS)
    limit = None
    if "--limit" in argv:
        limit = int(argv[list(argv).index("--limit") + 1])
        names = [n for n in names if not n.isdigit()]
    for name in names:
        if not (wsgold_dir(name) / "gold.jsonl").is_file():
            print(f"[wsgold] skipped {name}: no {wsgold_dir(name)} (the shared data folder)")
            continue
        report(name, record(name, limit))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
