"""Benchmarks run (tiny inputs, seconds): a bench that breaks fails the suite, not a user."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


def test_grep_bench_runs_on_a_small_tree(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    for i in range(5):
        (tree / "pkg" / f"m{i}.py").write_text(
            f"class M{i}:\n    def __init__(self):\n        raise ValueError('x{i}')\n"
        )
    done = subprocess.run(
        [sys.executable, "-m", "arr.bench.grep"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        env={**os.environ, "ARR_GREP_TREE": str(tree)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "matches: channel 5, rg 5" in done.stdout, done.stdout


def test_workspace_gold_bench_says_when_its_data_is_absent(tmp_path: Path) -> None:
    from arr.bench import wsgold

    if (wsgold.wsgold_dir("werkzeug") / "gold.jsonl").is_file():
        ranked = wsgold.PlainRg(wsgold.wsgold_dir("werkzeug") / "tree").rank("form parser")
        assert ranked and all(isinstance(p, str) for p in ranked[:5])
    else:
        assert wsgold.main(["werkzeug"]) == 0  # prints "skipped ...", never crashes
