"""bench-cold's first line: what the secret judge adds to a cold identifier search.

In a folder already indexed (``outputs/bench/breadth/werkzeug``, made by ``make bench-breadth``,
or ``$ARR_BENCH_COLD_FOLDER``), one cold ``arr search <identifier> tools=[grep]`` (a new
process, as a terminal runs it) three ways, alternated so the machine's load falls on each
alike, beside ``python -c pass`` in the same run:

- ``gated``: as ARR runs it: the scanner's rule set is compiled only when a text may hold a
  finding (:mod:`arr.safety.scanner_gate`);
- ``compiled``: the same search in a process that compiles the rule set first (as every search
  did before the gate), from ARR's compiled-rule cache;
- ``uncached``: compiled with Kingfisher's cache off (a first run on a new machine).

Prints the median wall time of each and how many of the gated runs compiled the rule set.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.common.core import bench_out

RUNS = 5
QUERY = os.environ.get("ARR_BENCH_COLD_QUERY", "secure_filename")
SEARCH = """
import sys, time
started = time.perf_counter()
from arr.safety import scanner
if sys.argv[1] != "gated":
    if sys.argv[1] == "uncached":
        import kingfisher_sdk
        rules = kingfisher_sdk.Rules
        kingfisher_sdk.Rules = lambda **kw: rules(**{**kw, "cache": False})
    scanner.scanner()
from arr.cli.main import main
import contextlib, io
with contextlib.redirect_stdout(io.StringIO()):
    code = main(["search", sys.argv[2], "tools=[grep]"])
print(scanner.scanner.cache_info().currsize, file=sys.stderr)
raise SystemExit(code)
"""


def _wall(command: list[str], folder: Path) -> tuple[float, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env |= {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    started = time.perf_counter()
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{command} failed: {done.stderr[-500:]}")
    return wall, done.stderr.strip()


def main() -> int:
    folder = Path(os.environ.get("ARR_BENCH_COLD_FOLDER") or bench_out() / "breadth" / "werkzeug")
    if not (folder / ".arr").is_dir():
        print(f"no indexed folder at {folder}: run `make bench-breadth` first")
        return 1
    ways = ("gated", "compiled", "uncached")
    walls: dict[str, list[float]] = {way: [] for way in (*ways, "python -c pass")}
    compiled = 0
    for _ in range(RUNS):
        for way in ways:
            wall, err = _wall([sys.executable, "-c", SEARCH, way, QUERY], folder)
            walls[way].append(wall)
            compiled += way == "gated" and err.endswith("1")
        walls["python -c pass"].append(_wall([sys.executable, "-c", "pass"], folder)[0])
    print(f"bench-cold (judge): `arr search {QUERY} tools=[grep]` in {folder}, cold, ", end="")
    print(f"median of {RUNS}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    for way, values in walls.items():
        print(f"  {way:<16} {statistics.median(values):6.2f} s")
    print(f"  gated runs that compiled the rule set: {compiled} of {RUNS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
