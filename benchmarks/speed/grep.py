"""Grep benchmark (``make bench-grep``): the grep channel vs plain ``rg -n``, same tree, same run.

Tree: an installed package of this environment of at least 50 MB (``transformers`` by default,
``$ARR_GREP_TREE`` to choose another), copied to a temporary folder outside any git checkout:
in place, plain ``rg`` obeys the checkout's ``.gitignore`` (``__pycache__/``) and reads half the
files the channel (``--no-ignore``, by design: a researcher's ignore rules are not a safety
rule) must read, so the two would not do the same work. Both file counts are printed.
For a literal and a regex pattern it times the channel's
full scan (engine + verified re-read of every matching file + ranking input) against plain
``rg -n PATTERN`` over the same tree (best of several runs, interleaved) and compares the match
sets: every (file, line) of ripgrep must be in the channel's set unless its file is refused by a
safety rule, and the channel must return nothing ripgrep does not. Goal: wall time <= 1.5x.
"""

from __future__ import annotations

import contextlib
import math
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections import Counter
from pathlib import Path

from arr.models import ScopeKey, ToolCall
from arr.safety.file_rule import read_path
from arr.tools.grep import GrepTool, find_rg
from arr.workspace.workspace import Workspace

SCOPE = ScopeKey(
    team_id="bench",
    project_id="grep",
    repository="site-packages",
    branch="main",
    experiment_environment="cpu",
)
CASES = (("literal", "def __init__", False), ("regex", r"raise \w+Error\(", True))


def tree_root() -> Path:
    chosen = os.environ.get("ARR_GREP_TREE")
    return Path(chosen) if chosen else Path(sysconfig.get_paths()["purelib"]) / "transformers"


def tree_megabytes(root: Path) -> float:
    total = 0
    for dirpath, _, files in os.walk(root):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, name)).st_size
    return total / 1e6


def plain_rg(rg: str, root: Path, patterns: list[str], regex: bool) -> set[tuple[str, int]]:
    args = [rg, "-n", "--no-heading", "--with-filename", "--null"]
    args += [] if regex else ["-F", "-i"]
    for pattern in patterns:
        args += ["-e", pattern]
    done = subprocess.run([*args, "."], cwd=root, capture_output=True)
    found = set()
    for raw in done.stdout.split(b"\n"):
        path, sep, rest = raw.partition(b"\x00")
        if sep:
            found.add(
                (path.decode("utf-8", "replace").removeprefix("./"), int(rest.partition(b":")[0]))
            )
    return found


def refused_by_safety(root: Path, relative: str, cap: int) -> bool:
    content, _ = read_path(str(root), relative, cap)  # the one file rule, content included
    return content is None


def main(repeats: int = 5) -> int:
    source = tree_root().resolve()
    rg = find_rg(None)
    if rg is None or not source.is_dir():
        print(f"[grep] skipped: rg={rg} tree={source}")
        return 0
    with tempfile.TemporaryDirectory(prefix="arr-grep-bench-") as tmp:
        root = Path(tmp) / source.name
        shutil.copytree(source, root, symlinks=True)
        return run(root, rg, repeats)


def files_rg_searches(rg: str, root: Path, *flags: str) -> int:
    done = subprocess.run([rg, "--files", *flags, "."], cwd=root, capture_output=True)
    return done.stdout.count(b"\n")


def run(root: Path, rg: str, repeats: int) -> int:
    workspace = Workspace(
        name="bench",
        root=root,
        # beside the tree, not in it: a root that holds ARR's own folders is refused
        index_dir=root.parent / "arr-bench-index",
        memory_db=root.parent / "arr-bench-memory.sqlite3",
        scopes={"tree": {"key": SCOPE, "roots": ["."]}},
    )
    # No per-file engine cap, so the match sets are comparable with plain rg.
    tool = GrepTool(
        "grep",
        workspace,
        max_engine_matches_per_file=1_000_000,
        max_file_bytes=100_000_000,
        deadline_ms=120_000,
    )
    tool.warm_up()
    print(
        f"[grep] tree {root} ({tree_megabytes(root):.0f} MB), rg {rg}, best of {repeats}; files "
        f"plain rg reads {files_rg_searches(rg, root)}, the channel's engine "
        f"{files_rg_searches(rg, root, '--no-ignore', '--hidden')}"
    )
    for label, pattern, regex in CASES:
        call = ToolCall(tool="grep", query=pattern, regex=regex)
        # Benchmark patterns are frequent, so the channel's exact-query stage fills the
        # answer and its word stage never runs: rg gets the same single pattern.
        patterns = [pattern]
        channel_s = rg_s = math.inf
        for _ in range(repeats):
            started = time.perf_counter()
            answer = tool.retrieve(call, SCOPE)
            channel_s = min(channel_s, time.perf_counter() - started)
            started = time.perf_counter()
            reference = plain_rg(rg, root, patterns, regex)
            rg_s = min(rg_s, time.perf_counter() - started)
        results, counters, cut = tool.scan(call, SCOPE)  # full verified set, untimed
        ours = {(c.hit.path, c.hit.line) for c in results}
        missing = reference - ours
        refused = {p for p, _ in missing if refused_by_safety(root, p, tool.max_file_bytes)}
        unexplained = {m for m in missing if m[0] not in refused}
        extra = ours - reference
        ratio = channel_s / rg_s
        print(
            f"  {label:<8} {pattern!r:<22} channel {channel_s * 1000:7.1f} ms "
            f"({len(answer.evidence)} evidence)   rg -n "
            f"{rg_s * 1000:7.1f} ms   ratio {ratio:.2f} "
            f"({'meets' if ratio <= 1.5 else 'MISSES'} <= 1.5)"
        )
        print(
            f"           matches: channel {len(ours)}, rg {len(reference)}; in rg only: "
            f"{len(missing)} (files refused by safety rules: {len(refused)}, unexplained: "
            f"{len(unexplained)}); in channel only: {len(extra)}; "
            f"files scanned {counters.get('files_scanned', 0)}, cut {cut or 'none'}"
        )
        skipped = Counter({k: v for k, v in counters.items() if k.startswith("skipped_")})
        if skipped:
            print(f"           skipped: {dict(skipped)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
