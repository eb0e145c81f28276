"""The vector channel through a real Chroma server on 127.0.0.1 (marked `service`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arr.embedder.hashing import HashingEmbedder
from arr.models import QueryPlan
from arr.tools.vector import VectorTool
from arr.vector_store.chroma_http import ChromaHttpStore
from benchmarks.speed.scaleout import start_server, stop
from tests.conftest import SCOPE_A, FakeTool, make_router
from tests.integration.test_vector_tool import workspace

pytestmark = [pytest.mark.service, pytest.mark.slow]


class ChromaServer:
    """A Chroma server on 127.0.0.1 with its data in ``path`` (the scale-out benchmark's)."""

    def __init__(self, path: Path) -> None:
        try:
            self.process, self.port = start_server(path)
        except SystemExit as exc:  # the helper is a benchmark's: it ends with a message
            pytest.fail(str(exc))

    def stop(self) -> None:
        stop(self.process)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ChromaServer]:
    running = ChromaServer(tmp_path / "server-data")
    yield running
    running.stop()


def test_index_and_query_through_the_server(tmp_path: Path, server: ChromaServer) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = VectorTool("vector", ws, HashingEmbedder(), ChromaHttpStore(port=server.port))
    assert tool.build(SCOPE_A)["embedded"] == 3
    result = make_router(tool).search("warmup loss spikes", SCOPE_A)
    assert result.evidence[0].id == "doc:notes/warmup.md#L1"
    assert all(e.scope == SCOPE_A for e in result.evidence)
    # A second client (another process would do the same) sees the same fresh index.
    again = VectorTool("vector", ws, HashingEmbedder(), ChromaHttpStore(port=server.port))
    assert again.freshness(SCOPE_A).fresh and again.build(SCOPE_A)["embedded"] == 0


def test_server_stopping_mid_session_is_a_degradation(tmp_path: Path, server: ChromaServer) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = VectorTool(
        "vector", ws, HashingEmbedder(), ChromaHttpStore(port=server.port), manifest_ttl_s=0.0
    )
    tool.build(SCOPE_A)
    router = make_router(tool, FakeTool("bm25", ["kept"]))
    plan = QueryPlan.model_validate(
        {
            "tool_rounds": [
                {
                    "calls": [
                        {"tool": "vector", "query": "warmup"},
                        {"tool": "bm25", "query": "warmup"},
                    ]
                }
            ]
        }
    )
    assert router.search("warmup", SCOPE_A, plan=plan).degradations == ()
    server.stop()
    result = router.search("warmup", SCOPE_A, plan=plan)
    assert [e.id for e in result.evidence] == ["kept"]
    assert [(d.stage, d.code) for d in result.degradations] == [
        ("vector", "vector_store_unavailable")
    ]
    assert result.partial


def test_two_indexing_processes_and_a_searcher_share_one_server(
    tmp_path: Path, server: ChromaServer
) -> None:
    """Scale-out path: each indexing process embeds its part of the tree (a scope) into one
    Chroma server at the same time; a third process searches both, each only in its scope."""
    from tests.e2e.test_workspace_cli import arr

    project = tmp_path / "project"
    for part in ("part-a", "part-b"):
        for i in range(40):
            folder = project / part
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"n{i}.md").write_text(f"{part} note {i} about topic{i % 5} warmup\n")
    assert arr("init", "team_id=lab", cwd=project).returncode == 0
    for name in ("a", "b"):
        done = arr("scope", "add", name, f"part-{name}", f"branch={name}", cwd=project)
        assert done.returncode == 0, done.stderr
    shared = [
        "embedder=hashing",
        "progress=false",
        "vector_store=chroma_http",
        "vector_store.host=127.0.0.1",
        f"vector_store.port={server.port}",
    ]
    environment = {**os.environ, "HF_HUB_OFFLINE": "1"}
    environment.pop("ARR_WORKSPACE", None)
    indexers = [
        subprocess.Popen(
            [sys.executable, "-m", "arr.cli", "index", f"scope={name}", "tools=[vector]", *shared],
            cwd=project,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("a", "b")
    ]
    for indexer in indexers:
        out, err = indexer.communicate(timeout=300)
        assert indexer.returncode == 0, err
    for name in ("a", "b"):
        query = ["search", "query=topic3 warmup note", f"scope={name}", "tools=[vector]"]
        done = arr(*query, "--json", *shared, cwd=project)
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        paths = [e["location"]["path"] for e in result["evidence"]]
        assert paths and all(p.startswith(f"part-{name}/") or "/" not in p for p in paths)
        assert not result["degradations"]
        assert {e["scope"]["branch"] for e in result["evidence"]} == {name}
