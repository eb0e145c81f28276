"""A router that lives for days: memory stays flat over hundreds of rebuilds, and the same query
gives the same vector ranking in every fresh process."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arr.embedder.hashing import HashingEmbedder
from arr.fusion.wsum import WSumFusion
from arr.planner.rule import RuleQueryPlanner
from arr.reranker.rule import RuleReranker
from arr.router.router import RetrievalRouter
from arr.tools.bm25 import BM25Tool
from arr.tools.vector import VectorTool
from arr.vector_store.chroma import ChromaStore
from arr.workspace.workspace import Workspace
from tests.conftest import SCOPE_A

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


def rss_mb() -> float:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * 4096 / 2**20


def workspace(tmp_path: Path, files: int = 60) -> Workspace:
    root = tmp_path / "ws" / "a"
    root.mkdir(parents=True)
    for i in range(files):
        (root / f"note{i}.md").write_text(f"note {i} about topic{i % 7} and warmup {i}\n" * 5)
    return Workspace(
        name="t",
        root=tmp_path / "ws",
        index_dir=tmp_path / "idx",
        memory_db=tmp_path / "m.sqlite3",
        scopes={"a": {"key": SCOPE_A, "roots": ["a"]}},
    )


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs /proc")
def test_memory_stays_flat_over_hundreds_of_rebuilds(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    bm25 = BM25Tool("bm25", ws)
    bm25.build(SCOPE_A)
    router = RetrievalRouter(
        tools={"bm25": bm25},
        planner=RuleQueryPlanner(),
        fusion=WSumFusion(),
        reranker=RuleReranker(),
        scopes={"a": SCOPE_A},
    )
    target = ws.root / "a" / "note0.md"

    def cycle(i: int) -> None:
        target.write_text(f"note 0 revision {i} about warmup\n" * 5)
        BM25Tool("bm25", ws).build(SCOPE_A)  # a rebuild by "another process"
        result = router.search(f"revision {i} warmup", SCOPE_A)
        assert result.evidence and not result.rejections

    for i in range(60):  # warm: caches fill to their bounds
        cycle(i)
    gc.collect()
    before = rss_mb()
    for i in range(60, 360):
        cycle(i)
    gc.collect()
    grown = rss_mb() - before
    assert grown < 25, f"RSS grew {grown:.1f} MB over 300 rebuilds"
    from arr.tools.bm25 import MAX_CACHED_GENERATIONS

    assert len(bm25._cache.manifests) <= MAX_CACHED_GENERATIONS  # bounded
    assert len(bm25._loaded) <= 1
    router.close()


QUERY = textwrap.dedent("""
    import json, sys
    from arr.embedder.hashing import HashingEmbedder
    from arr.models import ToolCall, ScopeKey
    from arr.tools.vector import VectorTool
    from arr.vector_store.chroma import ChromaStore
    from arr.workspace.workspace import Workspace
    ws = Workspace.model_validate_json(sys.argv[1])
    tool = VectorTool("vector", ws, HashingEmbedder(), ChromaStore(sys.argv[3]))
    scope = ScopeKey.model_validate_json(sys.argv[2])
    hits = tool.retrieve(ToolCall(tool="vector", query="topic3 warmup note", top_k=25), scope)
    print(json.dumps([[e.id, e.score] for e in hits]))
""")


def test_same_query_same_vector_ranking_in_fresh_processes(tmp_path: Path) -> None:
    """Many re-embeds (the case where Chroma's HNSW, rebuilt from its write log at load,
    differed between processes): two fresh processes rank identically."""
    ws = workspace(tmp_path, files=300)
    chroma = tmp_path / "chroma"
    tool = VectorTool("vector", ws, HashingEmbedder(), ChromaStore(chroma))
    tool.build(SCOPE_A)
    for round_ in range(15):  # re-embed a tenth of the items again and again
        for i in range(0, 300, 10):
            (ws.root / "a" / f"note{i}.md").write_text(
                f"note {i} about topic{(i + round_) % 7} and warmup round {round_}\n" * 5
            )
        tool.build(SCOPE_A)
    runs = [
        subprocess.run(
            [
                sys.executable,
                "-c",
                QUERY,
                ws.model_dump_json(),
                SCOPE_A.model_dump_json(),
                str(chroma),
            ],
            capture_output=True,
            text=True,
            cwd=REPO,
            check=True,
        ).stdout
        for _ in range(2)
    ]
    first, second = (json.loads(r) for r in runs)
    assert len(first) == 25 and first == second


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="needs /proc")
def test_closed_routers_give_their_descriptors_back(tmp_path: Path) -> None:
    """A process that opens and closes routers over many workspaces (a server reloading its
    config, a notebook, a test session) keeps a bounded number of descriptors: Chroma held ~20
    per store path until the process ended, and select() fails above 1,024."""

    def descriptors() -> int:
        return len(list(Path("/proc/self/fd").iterdir()))

    def one_router(number: int) -> None:
        ws = workspace(tmp_path / f"w{number}", files=5)
        vector = VectorTool("vector", ws, HashingEmbedder(), ChromaStore(tmp_path / f"c{number}"))
        vector.build(SCOPE_A)
        router = RetrievalRouter(
            tools={"vector": vector},
            planner=RuleQueryPlanner(),
            fusion=WSumFusion(),
            reranker=RuleReranker(),
            scopes={"a": SCOPE_A},
        )
        assert router.search("what is the note about topic3", SCOPE_A).evidence
        router.close()

    one_router(0)  # the first store also starts Chroma's runtime (threads, a socket pair)
    gc.collect()
    before = descriptors()
    for number in range(1, 16):
        one_router(number)
    gc.collect()
    grown = descriptors() - before
    assert grown <= 5, f"{grown} descriptors more after 15 routers were opened and closed"
