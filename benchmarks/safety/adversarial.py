"""Inputs written to make a rule slow, measured (part of ``make bench-secrets``): every secret
pattern runs on a linear-time engine or is proved linear here.

1. Each pathological input (1 MB runs of a rule's own prefix, separators and alphabet) judged
   by the content rules and the readers' walls: seconds each (goal <= 1 s).
2. ``arr index --lexical`` of a folder with and without such files (goal: within 30 s).
3. A search with ``router.deadline_ms=3000`` over that folder: wall time against the deadline
   (goal <= 1.1x; the process's start is counted apart).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MB = 1_000_000
PATHOLOGICAL = {
    "jwt prefix": b"eyJ" * (MB // 3),
    "openai prefix": b"sk-" * (MB // 3),
    "npm separators": b"//" * (MB // 2),
    "github prefix": b"ghp_" * (MB // 4),
    "aws prefix": b"AKIA" * (MB // 4),
    "pem header": b"-----BEGIN PRIVATE KEY-----\n" * (MB // 28),
    "keyword assignments": b"client_secret = " * (MB // 16),
    "keyword subscripts": b'cfg["token"]' * (MB // 12),
    "one letter": b"a" * MB,
    "base64 alphabet": (b"Ab0+/" * (MB // 5)),
    "hex": b"0123456789abcdef" * (MB // 16),
}


def judge_times() -> list[tuple[str, float, str]]:
    from arr.readers.view import Unit, View
    from arr.readers.walls import walled
    from arr.safety.rules import credential_kind

    rows = []
    for name, content in PATHOLOGICAL.items():
        started = time.perf_counter()
        kind = credential_kind(content)
        text = content.decode()
        view = View(tuple(text.split("\n")), (Unit(1, text.count("\n") + 1),), True)
        judged = walled(view)
        seconds = time.perf_counter() - started
        rows.append((name, seconds, kind or (judged if isinstance(judged, str) else "")))
    return rows


def _arr(args: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env.pop("ARR_WORKSPACE", None)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "arr.cli", *args], cwd=cwd, env=env, capture_output=True,
        text=True, timeout=900,
    )  # fmt: skip
    return time.perf_counter() - started, done


def folder(base: Path, hostile: bool) -> Path:
    project = base / ("hostile" if hostile else "plain")
    notes = project / "notes"
    notes.mkdir(parents=True)
    for number in range(20):
        (notes / f"n{number}.md").write_text(f"note {number}: warmup run {number} at step 3000\n")
    if hostile:
        for name, content in PATHOLOGICAL.items():
            (notes / f"{name.replace(' ', '_')}.txt").write_bytes(content)
    for args in (["init"], ["scope", "add", "notes", "notes"]):
        _arr(args, project)
    return project


def main() -> int:
    print("1. pathological inputs, 1 MB each, content rules and walls (goal <= 1 s each):")
    rows = judge_times()
    for name, seconds, kind in rows:
        print(f"   {name:<22}{seconds:>8.3f} s   {kind or '-'}")
    print(f"   slowest: {max(s for _, s, _ in rows):.3f} s")
    with tempfile.TemporaryDirectory() as temporary:
        base = Path(temporary)
        plain, hostile = folder(base, False), folder(base, True)
        plain_s, _ = _arr(["index", "--lexical", "progress=false"], plain)
        hostile_s, done = _arr(["index", "--lexical", "progress=false"], hostile)
        print("2. arr index --lexical (goal: hostile within 30 s of plain):")
        extra = hostile_s - plain_s
        print(f"   plain {plain_s:.1f} s, with {len(PATHOLOGICAL)} hostile 1 MB files "
              f"{hostile_s:.1f} s (+{extra:.1f} s), exit {done.returncode}")  # fmt: skip
        start_s, _ = _arr(["--version"], hostile)
        print("3. search with router.deadline_ms=3000 over the hostile folder (goal <= 1.1x):")
        for query in ("eyJ", "client_secret", "warmup run 7"):
            took, done = _arr(
                ["search", query, "router.deadline_ms=3000", "tools=[grep,bm25]"], hostile
            )
            ratio = max(0.0, took - start_s) / 3.0
            print(f"   {query!r:<18} {took:.2f} s wall, {took - start_s:.2f} s after start "
                  f"({ratio:.2f}x the deadline), exit {done.returncode}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
