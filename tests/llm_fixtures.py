"""Fixtures for LLM tests: a scripted HTTPS server on localhost and clients that trust it."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from arr.llm.client import LLMClient
from benchmarks.llm.fake_server import FakeLLMServer

KEY = "sk-test-" + "k3y" * 8


@pytest.fixture
def llm_server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every outgoing TCP connection's (host, port), to prove nothing else was contacted."""
    seen: list[tuple[str, int]] = []
    original = socket.create_connection

    def recording(address, *args, **kwargs):
        seen.append((address[0], address[1]))
        return original(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", recording)
    return seen


def make_client(server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch, **kwargs) -> LLMClient:
    monkeypatch.setenv("ARR_TEST_LLM_KEY", KEY)
    options = {"timeout_s": 2.0, "max_calls": 20, **kwargs}
    return LLMClient(
        base_url=server.base_url,
        model="fake",
        api_key_env="ARR_TEST_LLM_KEY",
        ca_bundle=server.ca_path,
        **options,
    )
