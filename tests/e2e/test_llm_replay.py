"""Controlled LLM scenarios replayed through the real client against the local HTTPS fake."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.test_cli import arr

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


def test_replay_counts_per_prompt_version(demo_overrides: list[str], tmp_path: Path) -> None:
    assert arr("index", *demo_overrides).returncode == 0
    done = subprocess.run(  # a benchmark of the checkout, not an arr command
        [sys.executable, "-m", "benchmarks.llm.replay", *demo_overrides],
        capture_output=True, text=True, timeout=600, cwd=REPO,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = next((tmp_path / "outputs" / "replay" / "runs").iterdir()) / "replay.json"
    summary = json.loads(report.read_text())
    counts = {
        v: (s["passed"], s["degraded"], s["timeout"], s["scope_leaks"]) for v, s in summary.items()
    }
    assert counts == {"arr-router-v1": (5, 5, 1, 0), "arr-router-v2": (7, 2, 2, 0)}
    v2 = {o["id"]: o for o in summary["arr-router-v2"]["outcomes"]}
    assert "llm_plan_invalid" in v2["s07"]["codes"]  # the plan that tried to set a path
    v1 = {o["id"]: o for o in summary["arr-router-v1"]["outcomes"]}
    assert "forbidden_identifier" in v1["s04"]["codes"]  # web_search rejected by the Router


def test_operator_script_refuses_without_a_key() -> None:
    env = {k: v for k, v in os.environ.items() if k != "SILICONFLOW_API_KEY"}
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.llm.operator"],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=60,
    )
    assert done.returncode == 2 and "refusing to run" in done.stderr
