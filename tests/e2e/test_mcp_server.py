"""``arr serve`` through the official MCP SDK's real client, over stdio and streamable HTTP.

The server is spawned as agents spawn it; every bad request comes back as a tool error with a
fixed code, and the server answers the next request after each one.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")
from mcp.client.client import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from tests.machine_speed import grace_s

pytestmark = [pytest.mark.slow, pytest.mark.service]
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
QUESTION = "Why did the warmup schedule fix the loss spikes?"


@pytest.fixture
def served(demo_overrides: list[str]) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "arr.cli", "index", *demo_overrides],
        capture_output=True,
        text=True,
        timeout=300,
        env=ENV,
    )
    assert done.returncode == 0, done.stderr
    return ["serve", "--scope", "vision-main", "--scope", "nlp-main", *demo_overrides]


def error_of(result: Any) -> dict[str, str]:
    """The error object; the text must be exactly the JSON the README promises."""
    assert result.is_error
    payload = json.loads(result.content[0].text)
    assert list(payload) == ["error"] and set(payload["error"]) == {"code", "message"}
    return payload["error"]


async def exercise(client: Client) -> None:
    listed = {t.name: t for t in (await client.list_tools()).tools}
    assert set(listed) == {"search", "list_scopes", "index_status", "memory_get"}
    # every input field described; bounds, channel names and the scope's five fields in the
    # schema itself, not only in prose
    for tool in listed.values():
        for name, field in tool.input_schema.get("properties", {}).items():
            assert field.get("description"), (tool.name, name)
    fields = listed["search"].input_schema["properties"]
    (bounded,) = [o for o in fields["top_k"]["anyOf"] if o.get("type") == "integer"]
    assert (bounded["minimum"], bounded["maximum"]) == (1, 100)
    (channels,) = [o for o in fields["tools"]["anyOf"] if o.get("type") == "array"]
    assert {"bm25", "grep", "vector", "memory"} <= set(channels["items"]["enum"])
    (five,) = [o for o in fields["scope"]["anyOf"] if o.get("type") == "object"]
    assert five["required"] == [
        "team_id",
        "project_id",
        "repository",
        "branch",
        "experiment_environment",
    ]

    scopes = (await client.call_tool("list_scopes", {})).structured_content
    assert [s["name"] for s in scopes["scopes"]] == ["nlp-main", "vision-main"]

    found = await client.call_tool("search", {"query": QUESTION, "scope": "vision-main"})
    assert not found.is_error
    result = found.structured_content
    assert result["evidence"] and result["scope_leak_count"] == 0
    assert all(e["scope"] == result["scope"] for e in result["evidence"])
    assert "mem:vis-warmup-001" in {e["id"] for e in result["evidence"]}
    assert result["traces"] and "partial" in result
    # An answer an agent can read: ten items by default, short snippets centred on the match.
    assert len(result["evidence"]) <= 10
    assert all(len(e["snippet"]) <= 240 for e in result["evidence"])
    for size, tools in ((3, None), (3, ["bm25", "grep"]), (25, ["bm25", "grep", "memory"])):
        arguments = {"query": "batch_size", "scope": "vision-main", "top_k": size}
        sized = (
            await client.call_tool("search", (arguments | {"tools": tools}) if tools else arguments)
        ).structured_content
        total = len(sized["evidence"]) + sized["omitted_evidence"]
        assert len(sized["evidence"]) == min(size, total), (size, tools)
    one = await client.call_tool("search", {"query": QUESTION, "scope": "vision-main", "top_k": 1})
    assert len(one.structured_content["evidence"]) == 1
    # a line named as a linter or a traceback names it (the path from the workspace folder)
    line = {"query": "vision-main/src/train.py:12", "scope": "vision-main", "top_k": 3}
    named = (await client.call_tool("search", line)).structured_content["evidence"][0]
    assert named["location"]["path"] == "src/train.py"
    assert named["location"]["start_line"] <= 12 <= named["location"]["end_line"]

    bad_requests = [
        ({"query": QUESTION, "scope": "vision-dev"}, "scope_not_allowed"),
        ({"query": QUESTION, "scope": "no-such-scope"}, "scope_invalid"),
        ({"query": QUESTION, "scope": {"team_id": "vision-lab"}}, "scope_invalid"),
        ({"query": QUESTION, "scope": "vision-main", "tools": ["shell"]}, "forbidden_identifier"),
        ({"query": QUESTION, "scope": "vision-main", "tools": ["teleport"]}, "tool_not_registered"),
        ({"query": "", "scope": "vision-main"}, "query_invalid"),
        ({"query": "x" * 100_000, "scope": "vision-main"}, "query_invalid"),
        ({"query": QUESTION, "scope": "vision-main", "top_k": 0}, "bad_request"),
        ({"query": QUESTION, "scope": "vision-main", "top_k": 101}, "bad_request"),
        ({"query": QUESTION, "scope": "vision-main", "path": "/etc"}, "bad_request"),
        ({"query": QUESTION, "scope": "vision-main", "regex": ".*", "evil": 1}, "bad_request"),
        ({"query": QUESTION, "scope": "vision-main", "top_k": "many"}, "bad_request"),
        ({"query": QUESTION, "scope": "vision-main", "tools": "bm25"}, "bad_request"),
        ({"query": ["a"], "scope": "vision-main"}, "bad_request"),
        ({"scope": "vision-main"}, "bad_request"),
    ]
    for arguments, code in bad_requests:
        answer = await client.call_tool("search", arguments)
        assert error_of(answer)["code"] == code, arguments
        assert len(answer.content[0].text) < 2000  # no echo of a 100 kB query
        again = await client.call_tool("search", {"query": "batch_size", "scope": "nlp-main"})
        assert not again.is_error  # the server is still up and answering

    # A pinned scope cannot be widened by naming its five fields either.
    dev = {
        "team_id": "vision-lab",
        "project_id": "vit-pretrain",
        "repository": "vit-pretrain",
        "branch": "dev",
        "experiment_environment": "a100-cluster",
    }
    widened = await client.call_tool("search", {"query": QUESTION, "scope": dev})
    assert error_of(widened)["code"] == "scope_not_allowed"
    # Unknown arguments and wrong types name the tool's fields; the values are not echoed.
    unknown = error_of(await client.call_tool("search", {"query": "q", "scope": "x", "evil": 1}))
    assert "'evil'" in unknown["message"] and "query, scope, tools, top_k" in unknown["message"]
    typed = error_of(await client.call_tool("search", {"query": "q", "scope": "x", "top_k": "zz"}))
    assert "top_k" in typed["message"] and "zz" not in typed["message"]
    stray = error_of(await client.call_tool("list_scopes", {"scope": "vision-main"}))
    assert stray["code"] == "bad_request"
    nothing = error_of(await client.call_tool("no_such_tool", {}))
    assert nothing["code"] == "unknown_tool"

    status = (await client.call_tool("index_status", {})).structured_content["status"]
    assert {(s["scope"], s["tool"]) for s in status} >= {("vision-main", "bm25")}
    assert all(s["scope"] != "vision-dev" for s in status)

    memory = await client.call_tool("memory_get", {"id": "vis-warmup-001", "scope": "vision-main"})
    assert memory.structured_content["status"] == "published"
    draft = await client.call_tool("memory_get", {"id": "vis-draft-004", "scope": "vision-main"})
    assert error_of(draft)["code"] == "not_found"

    results: list[Any] = []

    async def one(number: int) -> None:
        scope = "vision-main" if number % 2 else "nlp-main"
        results.append(await client.call_tool("search", {"query": QUESTION, "scope": scope}))

    async with anyio.create_task_group() as group:
        for number in range(24):
            group.start_soon(one, number)
    assert len(results) == 24 and not any(r.is_error for r in results)
    for answer in results:
        content = answer.structured_content
        assert all(e["scope"] == content["scope"] for e in content["evidence"])


def test_stdio_server(served: list[str]) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "arr.cli", *served], env=ENV)

    async def main() -> None:
        async with Client(params) as client:
            await exercise(client)

    anyio.run(main)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def http_server(served: list[str]) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "arr.cli", *served, "--http", "--port", str(port)],
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        # The start line names the URL to give the client (read before the first connect).
        start = process.stderr.readline()
        url = f"http://127.0.0.1:{port}/mcp"
        assert start.startswith("arr serve: MCP over streamable HTTP at ") and url in start, start
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert process.poll() is None, process.stderr.read()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)


def test_streamable_http_server(http_server: str) -> None:
    async def main() -> None:
        async with Client(http_server) as client:
            await exercise(client)

    anyio.run(main)


def test_http_refuses_a_non_loopback_address(demo_overrides: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arr.cli", "serve", "--http", "--host", "0.0.0.0", *demo_overrides],
        capture_output=True,
        text=True,
        timeout=120,
        env=ENV,
    )
    assert done.returncode == 2 and "loopback" in done.stderr


def test_a_busy_port_is_one_error_line(demo_overrides: list[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "arr.cli", "serve", "--http", "--port", str(port)]
            + demo_overrides,
            capture_output=True,
            text=True,
            timeout=120,
            env=ENV,
        )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("arr: error") and f"port {port}" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
    assert time.monotonic() - started < grace_s(30, at_most=110)  # before the router is built


def test_lexical_search_imports_no_model_stack(demo_overrides: list[str]) -> None:
    """A lexical query in a fresh process never imports torch, sentence-transformers or
    chromadb (the default tool set, vector included, is configured)."""
    subprocess.run(
        [sys.executable, "-m", "arr.cli", "index", "tools=[bm25,memory]", *demo_overrides],
        check=True,
        capture_output=True,
        env=ENV,
    )
    probe = (
        "import sys, json; from arr.cli import main; "
        "code = main(['search', 'query=batch_size=256 CUDA out of memory', 'scope=vision-main', "
        + ", ".join(repr(o) for o in demo_overrides)
        + "]); heavy = [m for m in ('torch', 'sentence_transformers', 'chromadb') "
        "if m in sys.modules]; print(json.dumps({'code': code, 'heavy': heavy}), file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=ENV
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report == {"code": 0, "heavy": []}, done.stdout + done.stderr
    assert "[grep]" in done.stdout or "[bm25]" in done.stdout
