"""The vector channel with a real Chroma store (embedded) and the fast hashing embedder."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from arr import codes
from arr.embedder.hashing import HashingEmbedder
from arr.models import SCOPE_FIELDS, QueryPlan, ScopeKey, ToolCall
from arr.tools.vector import EMBEDDER_MISMATCH, VectorTool
from arr.vector_store.chroma import ChromaStore, collection_name
from arr.workspace.workspace import Workspace
from tests.conftest import SCOPE_A, file_workspace, make_router

FILES = {
    "notes/warmup.md": "Linear warmup removed the loss spikes.\nWarmup over 2000 steps.\n",
    "notes/augment.md": "RandAugment and mixup improved accuracy.\n",
    "src/train.py": "def train():\n    return 'cosine schedule'\n",
}


def workspace(tmp_path: Path, scopes: dict[str, ScopeKey], chunk_lines: int = 40) -> Workspace:
    return file_workspace(tmp_path, scopes, FILES, chunk_lines)


def make_tool(ws: Workspace, embedder: HashingEmbedder | None = None, **kwargs) -> VectorTool:
    return VectorTool(
        "vector",
        ws,
        embedder or HashingEmbedder(),
        ChromaStore(ws.index_dir / "c"),
        manifest_ttl_s=0.0,
        **kwargs,
    )


def touch_later(path: Path, text: str) -> None:
    path.write_text(text)
    later = time.time_ns() + 2 * 10**9
    os.utime(path, ns=(later, later))


def test_build_query_and_locations(tmp_path: Path) -> None:
    tool = make_tool(workspace(tmp_path, {"a": SCOPE_A}))
    assert tool.freshness(SCOPE_A).code == codes.INDEX_MISSING
    manifest = tool.build(SCOPE_A)
    assert (manifest["documents"], manifest["embedded"], manifest["deleted"]) == (3, 3, 0)
    assert tool.freshness(SCOPE_A).fresh
    hits = tool.retrieve(ToolCall(tool="vector", query="warmup loss spikes"), SCOPE_A)
    assert hits[0].id == "doc:notes/warmup.md#L1"
    assert hits[0].location.path == "notes/warmup.md" and hits[0].location.end_line == 2
    assert hits[0].scope == SCOPE_A and hits[0].score > hits[-1].score
    # the whole passage is kept for the reranker (never serialised)
    assert hits[0].full_text().startswith(hits[0].snippet[:20])
    assert "text" not in hits[0].model_dump()


def test_incremental_reindex_embeds_only_changes(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    embedder = HashingEmbedder()
    tool = make_tool(ws, embedder)
    tool.build(SCOPE_A)
    assert embedder.texts_embedded == 3
    assert tool.build(SCOPE_A)["embedded"] == 0 and embedder.texts_embedded == 3
    touch_later(ws.root / "a" / "notes" / "augment.md", "CutMix hurt small patches.\n")
    assert tool.freshness(SCOPE_A).code == codes.INDEX_STALE
    assert tool.build(SCOPE_A)["embedded"] == 1 and embedder.texts_embedded == 4
    (ws.root / "a" / "src" / "train.py").unlink()
    rebuilt = tool.build(SCOPE_A)
    assert (rebuilt["embedded"], rebuilt["deleted"]) == (0, 1)
    assert tool.store.existing(SCOPE_A).keys() == {
        "doc:notes/warmup.md#L1",
        "doc:notes/augment.md#L1",
    }
    assert tool.freshness(SCOPE_A).fresh


def test_other_embedder_makes_the_index_stale(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    make_tool(ws, HashingEmbedder(dim=64)).build(SCOPE_A)
    other = make_tool(ws, HashingEmbedder(dim=32))
    assert other.freshness(SCOPE_A).code == EMBEDDER_MISMATCH
    result = make_router(other).search("warmup", SCOPE_A)
    assert [r.code for r in result.rejections] == [EMBEDDER_MISMATCH]
    other.build(SCOPE_A)  # a different model: everything re-embedded into a fresh collection
    assert other.freshness(SCOPE_A).fresh
    assert len(other.retrieve(ToolCall(tool="vector", query="warmup"), SCOPE_A)) == 3


@pytest.mark.parametrize("field", SCOPE_FIELDS)
def test_identical_text_never_crosses_scopes(tmp_path: Path, field: str) -> None:
    other = ScopeKey(**{**SCOPE_A.model_dump(), field: getattr(SCOPE_A, field) + "2"})
    ws = workspace(tmp_path, {"a": SCOPE_A, "b": other})
    tool = make_tool(ws)
    tool.build(SCOPE_A)
    tool.build(other)
    assert collection_name(SCOPE_A) != collection_name(other)
    for scope in (SCOPE_A, other):
        hits = make_router(tool).search("warmup loss spikes", scope).evidence
        assert hits and all(h.scope == scope for h in hits)


def test_chunk_overlap_keeps_locations(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    (ws.root / "a" / "notes" / "four.md").write_text("one\ntwo\nthree\nfour\n")
    tool = make_tool(ws, chunk_lines=2, overlap_lines=1)
    tool.build(SCOPE_A)
    ids = {i for i in tool.store.existing(SCOPE_A) if "four" in i}
    assert ids == {"doc:notes/four.md#L1", "doc:notes/four.md#L2", "doc:notes/four.md#L3"}
    hit = tool.retrieve(ToolCall(tool="vector", query="two three"), SCOPE_A)[0]
    assert (hit.location.start_line, hit.location.end_line) == (2, 3)
    changed = make_tool(ws, chunk_lines=3, overlap_lines=1)
    assert changed.freshness(SCOPE_A).code == EMBEDDER_MISMATCH  # chunking changed


@pytest.mark.parametrize("read_from", ["snapshot", "chroma"])
def test_item_with_foreign_scope_metadata_is_dropped_by_the_router(
    tmp_path: Path, read_from: str
) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = make_tool(ws)
    tool.build(SCOPE_A)
    collection = tool.store._collection(SCOPE_A)
    got = collection.get(ids=["doc:notes/warmup.md#L1"], include=["metadatas"])
    collection.update(
        ids=["doc:notes/warmup.md#L1"], metadatas=[{**got["metadatas"][0], "branch": "intruder"}]
    )
    # what the store holds, read either way: its snapshot made again, or Chroma itself
    name = collection_name(SCOPE_A)
    tool.store._forget_snapshot(name)
    if read_from == "snapshot":
        tool.store._save_snapshot(name, collection, tool.store.manifest(SCOPE_A) or {})
    plan = QueryPlan.model_validate(
        {"tool_rounds": [{"calls": [{"tool": "vector", "query": "warmup loss spikes"}]}]}
    )
    result = make_router(tool).search("warmup", SCOPE_A, plan=plan)
    assert "doc:notes/warmup.md#L1" not in [e.id for e in result.evidence]
    assert result.scope_dropped == 1 and result.evidence


def test_broken_store_is_a_degradation_while_others_answer(tmp_path: Path) -> None:
    from tests.conftest import FakeTool

    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = make_tool(ws)
    tool.build(SCOPE_A)

    class Down:
        def __getattr__(self, name):
            raise ConnectionError("server went away")

    tool.store._collections = {collection_name(SCOPE_A): Down()}
    tool.store.snapshots = False  # Chroma itself is read (a snapshot would answer without it)
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
    result = make_router(tool, FakeTool("bm25", ["a"])).search("warmup", SCOPE_A, plan=plan)
    assert [e.id for e in result.evidence] == ["a"]
    assert [(d.stage, d.code) for d in result.degradations] == [
        ("vector", "vector_store_unavailable")
    ]


def test_corrupt_store_file_is_reported_cleanly(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    path = ws.index_dir / "broken"
    path.mkdir(parents=True)
    (path / "chroma.sqlite3").write_bytes(b"not a database" * 1000)
    tool = VectorTool("vector", ws, HashingEmbedder(), ChromaStore(path))
    from arr.tools.base import ChannelError

    with pytest.raises(ChannelError) as info:
        tool.warm_up()
        tool.freshness(SCOPE_A)
    assert info.value.code == "vector_store_unavailable"


def test_rebuild_reads_only_changed_files_and_survives_a_lost_file_list(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    embedder = HashingEmbedder()
    tool = make_tool(ws, embedder)
    assert tool.build(SCOPE_A)["files_reread"] == 3
    touch_later(ws.root / "a" / "notes" / "warmup.md", "Warmup fixed it.\nThird line.\n")
    again = tool.build(SCOPE_A)
    assert (again["files_reread"], again["embedded"], again["documents"]) == (1, 1, 3)
    assert tool.freshness(SCOPE_A).fresh
    # Without its file list (or with one from another build), everything is re-read and
    # compared by content hash: nothing is embedded twice, nothing is lost.
    sidecar = ws.index_dir / "vector-files" / f"{SCOPE_A.fingerprint()}.json"
    sidecar.write_text('{"build_token": "other", "files": {}}')
    full = tool.build(SCOPE_A)
    assert (full["files_reread"], full["embedded"], full["deleted"]) == (3, 0, 0)
    assert len(tool.store.existing(SCOPE_A)) == 3


def test_refresh_before_a_search_embeds_the_change(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = make_tool(ws)
    tool.build(SCOPE_A)
    touch_later(ws.root / "a" / "notes" / "new.md", "quokka habitat notes\n")
    result = make_router(tool).search("where do quokka live", SCOPE_A)
    assert result.rejections == () and result.partial is False
    assert "doc:notes/new.md#L1" in [e.id for e in result.evidence]


def test_same_query_same_ranking_in_two_fresh_processes(tmp_path: Path) -> None:
    """Small collections are searched exactly: no dependence on an HNSW graph rebuilt
    differently by each process."""
    import json
    import subprocess
    import sys

    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = make_tool(ws)
    for number in range(30):
        touch_later(ws.root / "a" / "notes" / f"extra{number}.md", f"warmup variant {number}\n")
    tool.build(SCOPE_A)
    probe = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from arr.embedder.hashing import HashingEmbedder\n"
        "from arr.models import ToolCall\n"
        "from arr.tools.vector import VectorTool\n"
        "from arr.vector_store.chroma import ChromaStore\n"
        "from tests.integration.test_vector_tool import workspace\n"
        "from tests.conftest import SCOPE_A\n"
        "ws = workspace(Path(sys.argv[1]), {'a': SCOPE_A})\n"
        "tool = VectorTool('vector', ws, HashingEmbedder(), ChromaStore(ws.index_dir / 'c'))\n"
        "hits = tool.retrieve(ToolCall(tool='vector', query='warmup variant'), SCOPE_A)\n"
        "print(json.dumps([[h.id, h.score] for h in hits]))\n"
    )
    repo = Path(__file__).resolve().parents[2]
    runs = [
        subprocess.run(
            [sys.executable, "-c", probe, str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=repo,
            check=True,
        ).stdout
        for _ in range(2)
    ]
    first, second = (json.loads(r.strip().splitlines()[-1]) for r in runs)
    assert first == second and len(first) == 20
