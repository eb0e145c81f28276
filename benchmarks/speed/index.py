"""``make bench-index``: the first hour on a tree, measured side by side in one run.

1. Embedding throughput on the same passages of a real tree (the Werkzeug tree of
   ``../shared/data/wsgold``, else ``$ARR_BENCH_INDEX_TREE``, else bm25s' installed sources):
   the issue's fp32 path (the packaged weights exported as before 2026-12-03, unfused, batches
   of 32 texts), the fp32 export now (fused operators) and the shipped default
   (``conf/embedder/onnx.yaml``: int8, fused), interleaved slice by slice so the machine's
   drift hits all; cosine of every text against fp32.
2. Quality: nDCG@10 of exact vector search, fp32 against int8, on SciFact (every judged
   document plus random others up to ``$ARR_BENCH_INDEX_DOCS``, 1,000) and CoSQA dev (whole).
3. ``arr index`` of the tree in a fresh workspace (the user's model cache warm, as after the
   first use): lexical-ready and complete seconds, peak RSS, and the first hybrid answer (a
   search repeated while the build runs until the vector channel answers).
4. For a 10,000-file tree: the same measured rates, scaled (an estimate, said as one).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from arr.workspace.locations import PACKAGE_DIR
from benchmarks.common.core import bench_out, ndcg_at_10, read_qrels, read_queries, scifact_dir

SHARED = PACKAGE_DIR.parent.parent / "shared" / "data"
SLICES = 4


def tree_dir() -> Path:
    named = os.environ.get("ARR_BENCH_INDEX_TREE")
    if named:
        return Path(named)
    werkzeug = SHARED / "wsgold" / "werkzeug" / "tree"
    if werkzeug.is_dir():
        return werkzeug
    import bm25s

    return Path(bm25s.__file__).parent


def embedders() -> dict[str, object]:
    """The issue's fp32 path (unfused export, in the bench's cache), fp32 now and the shipped
    default (both from the user's model cache)."""
    from arr.embedder.onnx import OnnxEmbedder, export_onnx
    from benchmarks.common.core import shipped_stage

    before = OnnxEmbedder(
        quantize=False, batch_size=32, batch_tokens=10**9, cache_dir=bench_out() / "unfused"
    )
    if not before.model_file().is_file():
        export_onnx(before._model_path()[1], before.model_file(), fuse=False)
    return {
        "fp32 unfused": before,
        "fp32": OnnxEmbedder(quantize=False, batch_size=32, batch_tokens=10**9),
        "default": shipped_stage("embedder", "onnx"),
    }


def tree_passages(tree: Path, embedder: object) -> list[str]:
    """The texts the vector channel embeds for ``tree`` (40-line chunks, split to passages)."""
    from arr.models import ScopeKey
    from arr.tools.passages import split_all
    from arr.workspace.workspace import Workspace

    key = ScopeKey(
        team_id="b", project_id="b", repository="b", branch="b", experiment_environment="b"
    )
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Workspace(
            name="bench",
            root=tree,
            index_dir=Path(tmp) / "index",
            memory_db=Path(tmp) / "m.sqlite3",
            scopes={"t": {"key": key, "roots": ["."]}},
        )
        docs = list(workspace.documents(key))
    budget = embedder.max_tokens  # type: ignore[attr-defined]
    passages, _ = split_all(docs, embedder.token_counts, budget, 32)  # type: ignore[attr-defined]
    return [p.text for p in passages]


def throughput(texts: list[str], models: dict[str, object]) -> dict[str, float]:
    """Texts per second of each model on the same passages (slices in rotating order), and
    the default's cosine to fp32 text by text."""
    for model in models.values():
        model.embed(texts[:4])  # type: ignore[attr-defined]
    seconds = dict.fromkeys(models, 0.0)
    vectors: dict[str, list[np.ndarray]] = {name: [] for name in models}
    names = list(models)
    step = max(1, len(texts) // SLICES)
    for number, start in enumerate(range(0, len(texts), step)):
        part = texts[start : start + step]
        turn = number % len(names)
        for name in names[turn:] + names[:turn]:
            began = time.perf_counter()
            vectors[name].append(models[name].embed(part))  # type: ignore[attr-defined]
            seconds[name] += time.perf_counter() - began
    cosine = (np.vstack(vectors["fp32"]) * np.vstack(vectors["default"])).sum(axis=1)
    return {
        "texts": len(texts),
        **{f"{name}_per_s": len(texts) / spent for name, spent in seconds.items()},
        "cosine_min": float(cosine.min()),
        "cosine_mean": float(cosine.mean()),
    }


def beir_quality(folder: Path, split: str, limit: int | None, models: tuple) -> dict | None:
    if not (folder / "corpus.jsonl").is_file():
        return None
    queries = dict(read_queries(folder / "queries.jsonl"))
    qrels = read_qrels(folder / "qrels" / f"{split}.tsv")
    corpus = {}
    with (folder / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            corpus[str(record["_id"])] = f"{record.get('title', '')}\n{record.get('text', '')}"
    ids = sorted(corpus)
    if limit is not None and len(ids) > limit:
        judged = {d for rel in qrels.values() for d in rel if d in corpus}
        others = sorted(set(corpus) - judged)
        random.Random(7).shuffle(others)
        ids = sorted(judged) + others[: max(0, limit - len(judged))]
    asked = [q for q in qrels if q in queries]
    scores = {}
    for name, model in zip(("fp32", "int8"), models, strict=True):
        matrix = model.embed([corpus[i] for i in ids])
        found = model.embed([queries[q] for q in asked]) @ matrix.T
        scores[name] = [
            ndcg_at_10([ids[j] for j in np.argsort(-found[k])[:10]], qrels[q])
            for k, q in enumerate(asked)
        ]
    from arr.eval.stats import randomization_test

    fp32, int8 = np.mean(scores["fp32"]), np.mean(scores["int8"])
    p = randomization_test(scores["int8"], scores["fp32"])
    return {"documents": len(ids), "queries": len(asked), "fp32": fp32, "int8": int8, "p": p}


def index_run(tree: Path, probe: bool = True) -> dict[str, float]:
    """``arr index`` in a fresh workspace whose scope is ``tree``; with ``probe``, a search
    every second meanwhile until the vector channel answers (each a new process on the same
    two cores, so that run's complete time is the build's under load)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env.pop("ARR_WORKSPACE", None)
    arr = [sys.executable, "-m", "arr.cli"]
    with tempfile.TemporaryDirectory(dir=bench_out()) as tmp:
        folder = Path(tmp)
        subprocess.run([*arr, "init"], cwd=folder, env=env, check=True, capture_output=True)
        subprocess.run(
            [*arr, "scope", "add", "t", str(tree)],
            cwd=folder,
            env=env,
            check=True,
            capture_output=True,
        )
        began = time.perf_counter()
        child = subprocess.Popen(
            [*arr, "index", "progress=false", "--json"],
            cwd=folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        first_hybrid, peak, asked_at = None, 0.0, 0.0
        while child.poll() is None:
            # the index process's own high-water mark (VmHWM: reset at exec, so the bench's
            # memory, which a forked child shares until then, never counts)
            peak = max(peak, _high_water_mb(child.pid))
            time.sleep(0.25)
            if probe and first_hybrid is None and time.perf_counter() - asked_at >= 1.0:
                asked_at = time.perf_counter()
                asked = subprocess.run(
                    [*arr, "search", "how is the request body parsed", "scope=t", "--json"],
                    cwd=folder,
                    env=env,
                    capture_output=True,
                    text=True,
                )
                try:
                    evidence = json.loads(asked.stdout)["evidence"]
                except (ValueError, KeyError):
                    continue
                if any("vector" in e["ranks"] for e in evidence):
                    first_hybrid = time.perf_counter() - began
        complete = time.perf_counter() - began
        summary = json.loads(child.stdout.read() if child.stdout else "{}")
        vector = next((p for p in summary["partitions"] if p["tool"] == "vector"), {})
        return {
            "lexical_ready_s": float(summary.get("lexical_ready_s", float("nan"))),
            "complete_s": complete,
            "first_hybrid_s": first_hybrid if first_hybrid is not None else complete,
            "peak_rss_mb": peak,
            "vector_items": float(vector.get("documents", 0)),
            "files": float(sum(1 for p in tree.rglob("*") if p.is_file())),
        }


def _high_water_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    return 0.0


def main() -> int:
    bench_out().mkdir(parents=True, exist_ok=True)
    tree = tree_dir()
    models = embedders()
    texts = tree_passages(tree, models["default"])
    print(f"tree: {tree} ({len(texts)} passages)", flush=True)
    speed = throughput(texts, models)
    before = speed["fp32 unfused_per_s"]
    print(
        f"embedding, same {speed['texts']} passages: the issue's fp32 path (unfused, batch 32) "
        f"{before:.1f}/s; fp32 fused {speed['fp32_per_s']:.1f}/s "
        f"({speed['fp32_per_s'] / before:.2f}x); default int8 {speed['default_per_s']:.1f}/s: "
        f"{speed['default_per_s'] / before:.2f}x (goal >= 2.5x); cosine to fp32 min "
        f"{speed['cosine_min']:.4f} mean {speed['cosine_mean']:.4f} (goal >= 0.98)",
        flush=True,
    )
    limit = int(os.environ.get("ARR_BENCH_INDEX_DOCS", "1000"))
    for name, folder, split, cap in (
        ("SciFact", scifact_dir(), "test", limit),
        ("CoSQA dev", Path(os.environ.get("ARR_COSQA", SHARED / "cosqa_dev")), "dev", None),
    ):
        found = beir_quality(folder, split, cap, (models["fp32"], models["default"]))
        if found is None:
            print(f"{name}: skipped (no corpus at {folder})")
            continue
        print(
            f"{name} ({found['documents']} documents, {found['queries']} queries): nDCG@10 "
            f"fp32 {found['fp32']:.4f}, int8 {found['int8']:.4f}, loss "
            f"{found['fp32'] - found['int8']:+.4f} (goal <= 0.005), paired p {found['p']:.2f}",
            flush=True,
        )
    alone = index_run(tree, probe=False)
    run = index_run(tree)
    print(
        f"arr index of the tree ({run['files']:.0f} files, {run['vector_items']:.0f} vector "
        f"items): lexical ready {alone['lexical_ready_s']:.1f} s (goal <= 5), complete "
        f"{alone['complete_s']:.1f} s (goal <= 25), peak RSS {alone['peak_rss_mb']:.0f} MB "
        f"(goal <= 600); with a search every second until the first hybrid answer: that answer "
        f"after {run['first_hybrid_s']:.1f} s, complete {run['complete_s']:.1f} s, peak RSS "
        f"{run['peak_rss_mb']:.0f} MB",
        flush=True,
    )
    per_file = run["vector_items"] / max(1.0, run["files"])
    rate = speed["default_per_s"]
    embed_s = 10_000 * per_file / rate
    lexical_s = run["lexical_ready_s"] * 10_000 / max(1.0, run["files"])
    print(
        f"estimate for 10,000 such files: lexical ready ~{lexical_s / 60:.1f} min, first hybrid "
        f"answer ~{(lexical_s + 128 / rate) / 60:.1f} min (after the first stored "
        f"batch), complete vectors ~{embed_s / 60:.0f} min (goal: first hybrid answer <= 10 min)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
