"""Ctrl-C and SIGTERM end every long command with one line and the shell's 130, never a
traceback; an interrupted index keeps what it embedded and the next ``arr index`` finishes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.test_workspace_cli import arr

pytestmark = pytest.mark.slow


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    (folder / "notes").mkdir(parents=True)
    for number in range(2500):
        text = f"note {number}: the warmup run {number} spiked at step {number * 7}\n"
        (folder / "notes" / f"n{number}.md").write_text(text)
    assert arr("init", cwd=folder).returncode == 0
    assert arr("scope", "add", "notes", "notes", cwd=folder).returncode == 0
    return folder


def start(project: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env.pop("ARR_WORKSPACE", None)
    return subprocess.Popen(
        [sys.executable, "-m", "arr.cli", *args],
        cwd=project,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(found, seconds: float = 120.0) -> None:
    end = time.monotonic() + seconds
    while not found():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.05)


def ended(process: subprocess.Popen[str], how: signal.Signals) -> tuple[int, str]:
    process.send_signal(how)
    _, err = process.communicate(timeout=60)
    return process.returncode, err


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_index_keeps_its_passages_and_says_so(project: Path, how) -> None:
    process = start(project, "index", "progress=false")
    progress = project / ".arr" / "index" / "locks"
    wait_for(lambda: any(progress.glob("*.progress.json")) if progress.is_dir() else False)
    time.sleep(1.0)  # a batch or two stored
    code, err = ended(process, how)
    assert code == 130, err
    assert "Traceback" not in err
    (line,) = [line for line in err.splitlines() if line.startswith("arr: interrupted")]
    assert "passages embedded are kept" in line, err
    again = arr("index", "progress=false", "--json", cwd=project)
    assert again.returncode == 0, again.stderr
    found = arr("search", "warmup run 1234", "--json", cwd=project)
    assert found.returncode == 0 and json.loads(found.stdout)["evidence"]


@pytest.mark.parametrize("transport", [[], ["--http", "--port", "8797"]])
def test_an_interrupted_server_says_one_line(project: Path, transport: list[str]) -> None:
    assert arr("index", "--lexical", "progress=false", cwd=project).returncode == 0
    process = start(project, "serve", *transport)
    assert process.stderr is not None
    banner = process.stderr.readline()
    assert banner.startswith("arr serve:"), banner
    code, err = ended(process, signal.SIGINT)
    assert code == 130 and err.strip() == "arr: interrupted", err


def test_a_stdio_server_ends_on_sigterm_with_its_stdin_held_open(project: Path) -> None:
    # a host that stops its server with SIGTERM may keep the pipe open: the stdio transport's
    # reader thread waited on it, and the server said "interrupted" and lived on
    assert arr("index", "--lexical", "progress=false", cwd=project).returncode == 0
    process = start(project, "serve")
    assert process.stderr is not None
    assert process.stderr.readline().startswith("arr serve:")
    process.send_signal(signal.SIGTERM)
    try:
        assert process.wait(timeout=30) == 130
    finally:
        process.kill()
        process.communicate(timeout=30)
