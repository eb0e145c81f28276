"""bench-cold: one search on a real folder, as a new user's terminal and an agent pay for it.

On the real folder ``make bench-papers`` assembles (Debian's PDFs, ``outputs/bench/papers/real``:
about 9,000 pages, 39,000 vector passages), each figure beside its baseline, measured in the
same run on the same machine:

1. a cold ``arr search`` (a new process, as a terminal runs it) of identifiers (grep + bm25) and
   of prose questions (hybrid): median wall time and peak RSS; baseline: the same index read
   through Chroma (``vector_store.exact_max_items=0``: a client start and its HNSW index, the
   read path before the snapshot);
2. library mode: a fresh router's first search, then warm searches (p50 / p95);
3. the vector read path at 1x, 2x and 4x the folder's passages (the snapshot tiled: the cost of
   reading and scanning more vectors, not a re-index);
4. items 1 and 2 again on the folder 2x and 4x over: its tree copied (``docs``, ``docs-2``, ...)
   with a real lexical index of the copies, and the vector index tiled from the folder's own
   (every copy with its own ids and paths, the same vectors: embedding 4x anew takes ~40 minutes
   on 2 cores). ``ARR_BENCH_COLD_TIMES=0`` skips it.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common.core import bench_out, percentile

IDENTIFIERS = ("fancyhead", "pdfpageheight", "marginparwidth")
PROSE = (
    "how do I change the page margins of a document",
    "put a running header with the chapter title on each page",
    "which package draws hyperlinks in the PDF",
)
RUNS = 3
EXACT_MAX = 200_000  # conf/vector_store/chroma.yaml's exact_max_items
LIMIT = "vector_store.exact_max_items"


# GNU time measures the child alone: a child this process starts directly inherits this
# process's peak RSS (Linux records the vfork'ed memory's high-water mark at exec).
GNU_TIME = "/usr/bin/time" if Path("/usr/bin/time").is_file() else None


def _run(command: list[str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, peak RSS MB) of one child process."""
    # with compiled bytecode, as a user's interpreter has it (see benchmarks.retrieval.agents.ENV)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env |= {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        timed = [GNU_TIME, "-f", "%M", "-o", rss.name, *command] if GNU_TIME else command
        started = time.perf_counter()
        child = subprocess.Popen(timed, cwd=cwd, env=env, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        if status != 0:
            raise RuntimeError(f"{command} failed ({status})")
        kilobytes = float(rss.read().split()[-1]) if GNU_TIME else usage.ru_maxrss
    return wall, kilobytes / 1024


def _cold(folder: Path, queries: tuple[str, ...], extra: list[str]) -> tuple[float, float]:
    arr = str(Path(sys.executable).parent / "arr")
    runs = [_run([arr, "search", q, "scope=papers", *extra], folder) for q in queries * RUNS]
    return statistics.median(w for w, _ in runs), max(r for _, r in runs)


LIBRARY = """
import json, sys, time
started = time.perf_counter()
import arr
router = arr.load_router(workspace=".", overrides=json.loads(sys.argv[3]))
loaded = time.perf_counter() - started
scope = router.scopes["papers"]
router.search(sys.argv[1], scope)
first = time.perf_counter() - started - loaded
warm = []
for query in json.loads(sys.argv[2]) * 4:
    t = time.perf_counter()
    router.search(query, scope)
    warm.append(time.perf_counter() - t)
print(json.dumps({"loaded": loaded, "first": first, "warm": warm}))
"""

SCAN = """
import sys, time
started = time.perf_counter()
import numpy as np
from arr.vector_store.snapshot import open_snapshot, read_manifest
folder = sys.argv[1]
from pathlib import Path
manifest, version = read_manifest(Path(folder))
snapshot = open_snapshot(Path(folder), version)
query = np.asarray(snapshot.matrix[7], dtype=np.float32)
snapshot.nearest(query, 30)
print(time.perf_counter() - started)
"""


def _with_server(folder: Path) -> None:
    """Item 1 again while ``arr serve --warm`` runs on the folder: the CLI asks its warm router
    through the door (arr.cli.door); beside it Python's own start and ``rg`` on the tree."""
    from arr.cli.door import door_path

    arr = str(Path(sys.executable).parent / "arr")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    server = subprocess.Popen([arr, "serve", "--warm"], cwd=folder, env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        door = door_path(str(folder / ".arr" / "index"))
        ends = time.monotonic() + 300
        while door is not None and not door.exists() and time.monotonic() < ends:
            time.sleep(0.2)
        if door is None or not door.exists():
            print("   (no door for the CLI on this system: item 1 with a server skipped)")
            return
        print("1b. the same, while `arr serve --warm` runs on the folder (the CLI asks it)")
        for label, queries in (("identifier", IDENTIFIERS), ("prose", PROSE)):
            wall, rss = _cold(folder, queries, [])
            print(f"   {label:<12} {wall:7.2f} s {rss:5.0f} MB")
        python = statistics.median(_run([sys.executable, "-c", "pass"], folder)[0] for _ in "abc")
        rg = shutil.which("rg") or str(Path(sys.executable).parent / "rg")
        # rg exits 1 when nothing matches: through sh, whose start is a millisecond
        line = ["sh", "-c", f"'{rg}' -n {IDENTIFIERS[0]} . >/dev/null; true"]
        grep = statistics.median(_run(line, folder)[0] for _ in range(RUNS))
        print(f"   beside them: python -c pass {python:.2f} s, rg {IDENTIFIERS[0]} {grep:.2f} s")
        _imports(folder)
    finally:
        server.terminate()
        server.wait(60)


def _imports(folder: Path) -> None:
    """Where a cold identifier search's imports go without a server: ``-X importtime``'s ten
    costliest top-level imports (cumulative) of one run."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "ARR_NO_SERVER": "1"}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "arr.cli", "search", IDENTIFIERS[0],
         "scope=papers", "--json"],
        cwd=folder, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    top = []
    for line in done.stderr.splitlines():
        parts = line.split("|")
        name = parts[2] if len(parts) == 3 else ""
        if line.startswith("import time:") and parts[1].strip().isdigit() and name[1:2] != " ":
            top.append((int(parts[1]) / 1e6, name.strip()))  # depth 0: cumulative us
    top.sort(reverse=True)
    total = sum(seconds for seconds, _ in top)
    shown = ", ".join(f"{name} {seconds:.2f}" for seconds, name in top[:10])
    print(f"   imports of a cold identifier search alone: {total:.2f} s; top 10 (s): {shown}")


def _library(folder: Path, extra: list[str]) -> tuple[dict[str, Any], list[float]]:
    """Library mode in a new process: its figures, and its warm searches in ms."""
    out = subprocess.run(
        [sys.executable, "-c", LIBRARY, PROSE[0], json.dumps([*PROSE, *IDENTIFIERS]),
         json.dumps(extra)],
        cwd=folder, capture_output=True, text=True, check=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )  # fmt: skip
    found = json.loads(out.stdout.strip().splitlines()[-1])
    return found, [w * 1000 for w in found["warm"]]


def _tiled(source: Path, times: int, into: Path) -> Path:
    """A copy of the snapshot in ``source`` with its items ``times`` over (new ids)."""
    from arr.vector_store.snapshot import open_snapshot, read_blob, read_manifest, write_snapshot

    manifest, version = read_manifest(source) or ({}, "")
    snapshot = open_snapshot(source, version)
    assert snapshot is not None
    n = len(snapshot.ids)
    ids = [f"{i}~{k}" for k in range(times) for i in snapshot.ids]
    documents = [read_blob(snapshot.documents, i % n).decode() for i in range(n * times)]
    metadatas = [json.loads(read_blob(snapshot.metadatas, i % n)) for i in range(n * times)]
    matrix = np.tile(np.asarray(snapshot.matrix), (times, 1))
    folder = into / f"x{times}"
    write_snapshot(folder, manifest, version, (ids, matrix, documents, metadatas))
    return folder


def _tiled_folder(folder: Path, times: int, into: Path, extra: list[str]) -> Path:
    """The real folder ``times`` over as a workspace of its own (see item 4 above)."""
    import arr
    from arr.vector_store.snapshot import open_snapshot, read_blob, read_manifest, write_pages

    target = into / f"x{times}"
    (target / ".arr" / "index").mkdir(parents=True)
    shutil.copy(folder / ".arr" / "workspace.yaml", target / ".arr")
    # the readers' cache is keyed by content: the copies' PDFs are read once, as at 1x
    shutil.copytree(folder / ".arr" / "index" / "text", target / ".arr" / "index" / "text")
    for k in range(times):
        shutil.copytree(folder / "tree" / "docs", target / "tree" / _copy("docs/", k).rstrip("/"))
    arr_cli = str(Path(sys.executable).parent / "arr")
    subprocess.run([arr_cli, "index", "lexical=true", "progress=false"], cwd=target,
                   check=True, capture_output=True)  # fmt: skip
    router = arr.load_router(workspace=target, overrides=["tools=[bm25]"])
    fingerprint, newest = router.tools["bm25"].workspace.source_state(router.scopes["papers"])
    router.close()
    source = next((folder / ".arr" / "index" / "chroma" / "read").iterdir())
    manifest, version = read_manifest(source) or ({}, "")
    snapshot = open_snapshot(source, version)
    assert snapshot is not None
    manifest = manifest | {"source_fingerprint": fingerprint, "source_newest_mtime_ns": str(newest)}

    def pages():  # one copy at a time, its ids and places renamed
        for k in range(times):
            ids = [_copy(i, k) for i in snapshot.ids]
            metadatas = []
            for row in range(len(snapshot.ids)):
                meta = json.loads(read_blob(snapshot.metadatas, row))
                for key in ("path", "unit"):
                    if key in meta:
                        meta[key] = _copy(meta[key], k)
                metadatas.append(meta)
            documents = [read_blob(snapshot.documents, r).decode() for r in range(len(ids))]
            yield ids, np.asarray(snapshot.matrix), documents, metadatas

    count = len(snapshot.ids) * times
    write_pages(target / ".arr" / "index" / "chroma" / "read" / source.name, manifest, version,
                count, pages(), unit=True)  # fmt: skip
    router = arr.load_router(workspace=target, overrides=extra)  # it must answer as an index
    result = router.search(PROSE[0], router.scopes["papers"])
    router.close()
    problems = [d.code for d in result.degradations]
    assert any("vector" in e.ranks for e in result.evidence) and not problems, problems
    return target


def _copy(label: str, k: int) -> str:
    """``docs/...`` (or ``doc:docs/...``) as it is named in copy ``k`` (0: the original)."""
    if k == 0:
        return label
    return label.replace("docs/", f"docs-{k + 1}/", 1)


def bench_cold(folder: Path) -> None:
    read = folder / ".arr" / "index" / "chroma" / "read"
    snapshots = sorted(read.iterdir()) if read.is_dir() else []
    if not snapshots:
        print(f"no indexed real folder with a read snapshot at {folder}: run `make bench-papers` "
              "(section 5 builds it), then one search there")  # fmt: skip
        return
    passages = json.loads((snapshots[0] / "manifest.json").read_text())["count"]
    print(f"bench-cold: {folder} ({passages} vector passages), {os.cpu_count()} cores")
    print(f"1. cold `arr search` (new process; median of {RUNS} x {len(PROSE)} queries)")
    print(f"   {'':<12} {'snapshot':>18} {'Chroma (before)':>18} {'ratio':>7}")
    for label, queries in (("identifier", IDENTIFIERS), ("prose", PROSE)):
        now = _cold(folder, queries, [])
        before = _cold(folder, queries, ["vector_store.exact_max_items=0"])
        print(f"   {label:<12} {now[0]:7.2f} s {now[1]:5.0f} MB {before[0]:7.2f} s "
              f"{before[1]:5.0f} MB {before[0] / now[0]:6.1f}x")  # fmt: skip
    _with_server(folder)
    found, warm = _library(folder, [])
    print(f"2. library mode: load_router {found['loaded']:.2f} s, then a fresh router's first "
          f"search {found['first']:.2f} s; warm "
          f"p50 {percentile(warm, 0.5):.0f} ms, p95 {percentile(warm, 0.95):.0f} ms "
          f"({len(warm)} searches)")  # fmt: skip
    print("3. the vector read path (a new process: open the snapshot, scan, read 30 hits)")
    bench_out().mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=bench_out()) as tmp:
        for times in (1, 2, 4):
            tiled = snapshots[0] if times == 1 else _tiled(snapshots[0], times, Path(tmp))
            env_runs = [_run([sys.executable, "-c", SCAN, str(tiled)], folder) for _ in range(RUNS)]
            wall = statistics.median(w for w, _ in env_runs)
            rss = max(r for _, r in env_runs)
            print(f"   {times}x {passages * times:>7} passages  {wall * 1000:6.0f} ms  "
                  f"{rss:5.0f} MB")  # fmt: skip
            if times > 1:
                shutil.rmtree(tiled, ignore_errors=True)
    tiles = [int(t) for t in os.environ.get("ARR_BENCH_COLD_TIMES", "2,4").split(",") if t != "0"]
    if not tiles:
        return
    print("4. the folder 2x and 4x over (tree copied, lexical index real, vectors tiled)")
    print(f"   {'':<4} {'passages':>8} {'identifier':>17} {'prose':>17} {'first search':>13} "
          f"{'warm p95':>9}")  # fmt: skip
    with tempfile.TemporaryDirectory(dir=bench_out()) as tmp:
        for times in tiles:
            started = time.perf_counter()
            # above exact_max_items a build keeps no snapshot and Chroma's HNSW index answers;
            # these tiles have no Chroma collection, so the limit is raised to read the tiles
            extra = [] if passages * times <= EXACT_MAX else [f"{LIMIT}={passages * times}"]
            tiled = _tiled_folder(folder, times, Path(tmp), extra)
            built = time.perf_counter() - started
            ident, prose = _cold(tiled, IDENTIFIERS, extra), _cold(tiled, PROSE, extra)
            found, warm = _library(tiled, extra)
            print(f"   {times}x {passages * times:>8} {ident[0]:7.2f} s {ident[1]:5.0f} MB "
                  f"{prose[0]:7.2f} s {prose[1]:5.0f} MB {found['first']:11.2f} s "
                  f"{percentile(warm, 0.95):6.0f} ms   (set up in {built:.0f} s) "
                  f"{' '.join(extra)}")  # fmt: skip
            shutil.rmtree(tiled, ignore_errors=True)


if __name__ == "__main__":
    bench_cold(Path(os.environ.get("ARR_BENCH_COLD_FOLDER", bench_out() / "papers" / "real")))
