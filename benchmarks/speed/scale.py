"""Scale benchmark (``make bench-scale``): trees of 1,000 to 33,000 files, as a researcher uses
them (``arr init``, ``arr scope add``, ``arr index``, then a warm library-mode router).

Trees are copied once from installed packages into ``outputs/bench/scale/<size>`` (without
``__pycache__``): S = networkx, M = transformers, L = M + sympy, pandas, scipy, sklearn, numpy,
matplotlib, XL = L + torch (``ARR_SCALE_SIZES=S,M`` to run some). Per tree, each in a fresh
process so its peak RSS is its own:

- ``arr index tools=[bm25,grep]``: wall time and peak RSS (the lexical index and grep's word
  index);
- a session: ``arr.load_router(tools=[memory,bm25,grep])`` (warm: trees watched), the first
  search, then 90 searches (identifiers, error text, natural-language questions) with p50/p95
  wall time, the freshness check's share (``refresh_us`` in the traces) and the session's
  peak RSS.

Goals (XL, from the scale issue): lexical p50 <= 100 ms, p95 <= 300 ms; first search <= 1 s;
warm router peak RSS <= 500 MB; ``arr index`` peak RSS <= 1 GB.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

from benchmarks.common.core import bench_out
from benchmarks.speed.freshness import DEFAULT_PACKAGES

_LARGE = tuple(name for name in DEFAULT_PACKAGES if name != "networkx")  # the freshness tree's
SIZES: dict[str, tuple[str, ...]] = {
    "T": ("tqdm",),  # tiny: the smoke test (not in the default run)
    "S": ("networkx",),
    "M": ("transformers",),
    "L": _LARGE,
    "XL": (*_LARGE, "torch"),
}
QUERIES = (
    "_prepare_4d_causal_attention_mask",
    "PositionalIndexer2D",
    "def __init__",
    "ValueError: shapes not aligned",
    "how to compute the gradient of the loss function",
    "sparse matrix multiplication with numpy arrays",
    "return the value of the matrix",
    "AttentionMaskConverter",
    "random seed for reproducible results",
    "RuntimeError: CUDA out of memory",
)
SESSION = """
import json, resource, sys, time
t0 = time.perf_counter()
from arr.compose.library import load_router
router = load_router(["tools=[memory,bm25,grep]"], workspace=sys.argv[1])
loaded = time.perf_counter() - t0
queries = json.loads(sys.argv[2])
t = time.perf_counter(); router.search(queries[0], "code"); first = time.perf_counter() - t
walls, refresh, partial = [], [], 0
for round_ in range(9):
    for query in queries:
        t = time.perf_counter()
        result = router.search(query, "code")
        walls.append((time.perf_counter() - t) * 1000)
        refresh.append(sum(tr.counters.get("refresh_us", 0) for tr in result.traces) / 1000)
        partial += result.partial
router.close()
walls.sort(); refresh.sort()
print(json.dumps({"load_s": loaded, "first_s": first, "p50": walls[len(walls) // 2],
                  "p95": walls[int(len(walls) * 0.95)], "refresh_p50": refresh[len(refresh) // 2],
                  "partial": partial,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def build_tree(target: Path, packages: tuple[str, ...]) -> None:
    if (target / ".arr" / "workspace.yaml").is_file():
        return
    site = Path(sysconfig.get_path("purelib"))
    shutil.rmtree(target, ignore_errors=True)
    for name in packages:
        if (site / name).is_dir():
            shutil.copytree(
                site / name, target / name, ignore=shutil.ignore_patterns("__pycache__")
            )
    arr(target, "init")
    arr(target, "scope", "add", "code", str(target.resolve()))


def arr(workspace: Path, *args: str) -> tuple[float, float]:
    """Run ``arr --workspace W ARGS`` in a child; (wall seconds, peak RSS MB of that child)."""
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "arr.cli", "--workspace", str(workspace), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        error = child.stderr.read().decode() if child.stderr else ""
        raise SystemExit(f"arr {' '.join(args)} failed: {error[-500:]}")
    return wall, usage.ru_maxrss / 1024


def count_files(root: Path) -> int:
    return sum(len(files) for folder, _, files in os.walk(root) if "/.arr" not in folder)


def session(workspace: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", SESSION, str(workspace), json.dumps(QUERIES)],
        capture_output=True,
        text=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    if done.returncode != 0:
        raise SystemExit(f"session failed: {done.stderr[-800:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    chosen = os.environ.get("ARR_SCALE_SIZES", "S,M,L,XL").split(",")
    base = bench_out() / "scale"
    rows = []
    for size in chosen:
        tree = base / size
        build_tree(tree, SIZES[size])
        shutil.rmtree(tree / ".arr" / "index", ignore_errors=True)
        index_s, index_rss = arr(tree, "index", "tools=[bm25,grep]")
        figures = session(tree)
        rows.append((size, count_files(tree), index_s, index_rss, figures))
        print(
            f"{size:<3} files {rows[-1][1]:>6,}  index {index_s:6.1f} s {index_rss:6.0f} MB  "
            f"load {figures['load_s']:.2f} s  first {figures['first_s']:.2f} s  "
            f"p50 {figures['p50']:6.1f} ms  p95 {figures['p95']:6.1f} ms  "
            f"freshness p50 {figures['refresh_p50']:.2f} ms  RSS {figures['rss_mb']:.0f} MB  "
            f"partial {figures['partial']:.0f}",
            flush=True,
        )
    print(
        "\ngoals (XL): p50 <= 100 ms, p95 <= 300 ms, first search <= 1 s, "
        "session RSS <= 500 MB, arr index RSS <= 1024 MB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
