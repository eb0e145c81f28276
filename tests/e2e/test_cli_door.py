"""A cold ``arr search`` answered by a running ``arr serve`` (arr.cli.door), as a user runs
both: the same answer as a search of its own, its run folder written the same way; another
config, another environment, a scope the server is not pinned to, or a killed server: the CLI
searches itself."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.service,
    pytest.mark.skipif(not hasattr(socket, "SO_PEERCRED"), reason="no SO_PEERCRED: no door"),
]
LEXICAL = ["tools=[bm25,grep]"]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ARR_")}
    return {**clean, "XDG_RUNTIME_DIR": str(runtime), "HF_HUB_OFFLINE": "1"}


def door_of(env: dict[str, str]) -> Path:
    (found,) = (Path(env["XDG_RUNTIME_DIR"]) / "arr").glob("*.sock")
    return found


def start(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    server = subprocess.Popen(
        [sys.executable, "-m", "arr.cli", "serve", *args],
        stdin=subprocess.PIPE,  # the MCP stdio transport waits on it
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    ends = time.monotonic() + 120
    while not answers(env):
        assert server.poll() is None, server.stderr.read() if server.stderr else ""
        assert time.monotonic() < ends, "no door within 120 s"
        time.sleep(0.2)
    return server


def answers(env: dict[str, str]) -> bool:
    """A door is there and a server listens at it (a killed server's socket file stays)."""
    for path in (Path(env["XDG_RUNTIME_DIR"]) / "arr").glob("*.sock"):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            try:
                probe.connect(str(path))
                return True
            except OSError:
                pass
    return False


@pytest.fixture
def server(demo_indexed: list[str], env: dict[str, str]) -> Iterator[subprocess.Popen[str]]:
    running = start([*demo_indexed, *LEXICAL], env)
    yield running
    running.terminate()
    running.wait(30)


def search(overrides: list[str], env: dict[str, str], *extra: str) -> tuple[str, str]:
    """(stdout, the run's log) of one ``arr search``."""
    done = subprocess.run(
        [sys.executable, "-m", "arr.cli", "search", "batch_size warmup", *extra, *overrides],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    output = next(o.split("=", 1)[1] for o in overrides if o.startswith("paths.output_dir="))
    runs = sorted((Path(output) / "search" / "runs").iterdir())
    assert (runs[-1] / "result.json").is_file() and (runs[-1] / "config.resolved.json").is_file()
    return done.stdout, (runs[-1] / "search.log").read_text()


def evidence(stdout: str) -> list[str]:
    return [e["id"] for e in json.loads(stdout)["evidence"]]


def test_the_server_answers_as_the_cli_would(
    server: subprocess.Popen[str], demo_indexed: list[str], env: dict[str, str]
) -> None:
    assert oct(door_of(env).stat().st_mode & 0o777) == "0o600"
    served, log = search([*demo_indexed, *LEXICAL], env, "--json")
    assert f"answered by arr serve (pid {server.pid})" in log
    here, log_here = search([*demo_indexed, *LEXICAL], {**env, "ARR_NO_SERVER": "1"}, "--json")
    assert "answered by arr serve" not in log_here
    assert evidence(served) == evidence(here) and evidence(served)
    # the text answer too, but for the time it took
    text, _ = search([*demo_indexed, *LEXICAL, "scope=nlp-main"], env)
    alone = {**env, "ARR_NO_SERVER": "1"}
    text_here, _ = search([*demo_indexed, *LEXICAL, "scope=nlp-main"], alone)
    drop = lambda s: [line for line in s.splitlines() if "elapsed:" not in line]  # noqa: E731
    assert drop(text) == drop(text_here) and "evidence" in text


def test_what_the_server_would_answer_otherwise_is_searched_here(
    server: subprocess.Popen[str], demo_indexed: list[str], env: dict[str, str]
) -> None:
    for overrides, environment in (
        ([*demo_indexed, *LEXICAL, "fusion=rrf"], env),  # another config
        ([*demo_indexed, *LEXICAL], {**env, "ARR_OTHER": "1"}),  # another environment
    ):
        stdout, log = search(overrides, environment, "--json")
        assert "answered by arr serve" not in log and evidence(stdout)


def test_a_pinned_server_answers_its_scopes_only(
    demo_indexed: list[str], env: dict[str, str]
) -> None:
    pinned = start(["--scope", "vision-main", *demo_indexed, *LEXICAL], env)
    try:
        _, log = search([*demo_indexed, *LEXICAL, "scope=vision-main"], env, "--json")
        assert f"answered by arr serve (pid {pinned.pid})" in log
        stdout, log = search([*demo_indexed, *LEXICAL, "scope=nlp-main"], env, "--json")
        assert "answered by arr serve" not in log and evidence(stdout)
    finally:
        pinned.terminate()
        pinned.wait(30)


def test_a_killed_servers_door_is_searched_past_and_replaced(
    demo_indexed: list[str], env: dict[str, str]
) -> None:
    killed = start([*demo_indexed, *LEXICAL], env)
    killed.send_signal(signal.SIGKILL)
    killed.wait(30)
    assert door_of(env).exists()  # nobody removed it
    stdout, log = search([*demo_indexed, *LEXICAL], env, "--json")
    assert "answered by arr serve" not in log and evidence(stdout)
    again = start([*demo_indexed, *LEXICAL], env)
    try:
        _, log = search([*demo_indexed, *LEXICAL], env, "--json")
        assert f"answered by arr serve (pid {again.pid})" in log
    finally:
        again.terminate()
        again.wait(30)
    assert not list(door_of_folder(env).glob("*.sock"))  # a stopped server takes its door


def door_of_folder(env: dict[str, str]) -> Path:
    return Path(env["XDG_RUNTIME_DIR"]) / "arr"
