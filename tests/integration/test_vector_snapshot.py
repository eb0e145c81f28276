"""The vector channel's read snapshot: a search of an exactly searched collection reads plain
files beside the Chroma store and starts no Chroma client, with the answers Chroma gives."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arr.models import ToolCall
from arr.tools.vector import VectorTool
from arr.vector_store.chroma import ChromaStore, collection_name
from tests.conftest import SCOPE_A
from tests.integration.test_vector_tool import FILES, make_tool, touch_later, workspace

FILES_WARMUP = FILES["notes/warmup.md"]
QUERIES = ("warmup loss spikes", "augmentation accuracy", "cosine schedule train", "nothing alike")


def answers(tool: VectorTool) -> list[list[tuple[str, float, str]]]:
    return [
        [
            (e.id, e.score, e.snippet)
            for e in tool.retrieve(ToolCall(tool="vector", query=q), SCOPE_A)
        ]
        for q in QUERIES
    ]


def from_chroma(tool: VectorTool) -> VectorTool:
    """The same index read the way it was before snapshots: through Chroma only."""
    store = ChromaStore(tool.store.path)
    store.snapshots = False
    return VectorTool("vector", tool.workspace, tool.embedder, store, manifest_ttl_s=0.0)


def folder(tool: VectorTool) -> Path:
    return tool.store.path / "read" / collection_name(SCOPE_A)


def test_a_search_reads_the_snapshot_without_a_client_and_answers_as_chroma(
    tmp_path: Path,
) -> None:
    tool = make_tool(workspace(tmp_path, {"a": SCOPE_A}))
    tool.build(SCOPE_A)
    assert (folder(tool) / "vectors.npy").is_file()
    reader = make_tool(tool.workspace)  # another process: nothing open yet
    assert reader.freshness(SCOPE_A).fresh
    got = answers(reader)
    assert reader.store._client is None  # neither the freshness check nor the search opened it
    assert got == answers(from_chroma(tool)) and got[0][0][0] == "doc:notes/warmup.md#L1"


def test_a_search_imports_no_chromadb(tmp_path: Path) -> None:
    tool = make_tool(workspace(tmp_path, {"a": SCOPE_A}))
    tool.build(SCOPE_A)
    script = (
        "import sys\n"
        "from tests.integration.test_vector_tool import make_tool\n"
        "from tests.integration.test_vector_snapshot import answers\n"
        "from arr.workspace.workspace import Workspace\n"
        f"ws = Workspace.model_validate_json({tool.workspace.model_dump_json()!r})\n"
        "print(answers(make_tool(ws))[0][0][0], 'chromadb' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.stdout.split() == ["doc:notes/warmup.md#L1", "False"], done.stderr


def test_a_changed_tree_rewrites_the_snapshot_and_answers_follow(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = make_tool(ws)
    tool.build(SCOPE_A)
    before = (folder(tool) / "manifest.json").read_text()
    touch_later(ws.root / "a" / "notes" / "augment.md", "Warmup loss spikes, again.\n")
    reader = make_tool(ws)
    assert not reader.freshness(SCOPE_A).fresh
    tool.build(SCOPE_A)
    assert (folder(tool) / "manifest.json").read_text() != before
    assert reader.freshness(SCOPE_A).fresh
    assert answers(reader) == answers(from_chroma(tool))
    assert "Warmup loss spikes, again." in [s for _, _, s in answers(reader)[0]]


def test_a_build_in_progress_leaves_no_old_snapshot_for_readers(tmp_path: Path) -> None:
    tool = make_tool(workspace(tmp_path, {"a": SCOPE_A}))
    tool.build(SCOPE_A)
    store = tool.store
    store.write(SCOPE_A, [], [], [], [], ["doc:src/train.py#L1"], None)  # a batch, no commit
    assert not folder(tool).exists()
    assert [
        e.id
        for e in make_tool(tool.workspace).retrieve(
            ToolCall(tool="vector", query="cosine schedule train"), SCOPE_A
        )
    ][:1] != ["doc:src/train.py#L1"]  # read from Chroma: the deleted item is gone


def test_a_damaged_snapshot_is_read_around(tmp_path: Path) -> None:
    tool = make_tool(workspace(tmp_path, {"a": SCOPE_A}))
    tool.build(SCOPE_A)
    expected = answers(from_chroma(tool))
    (folder(tool) / "ids.json").write_text("[")
    assert answers(make_tool(tool.workspace)) == expected
    (folder(tool) / "manifest.json").write_text("not json")
    assert answers(make_tool(tool.workspace)) == expected


def test_an_index_built_before_snapshots_gets_one_on_its_first_search(tmp_path: Path) -> None:
    tool = make_tool(workspace(tmp_path, {"a": SCOPE_A}))
    tool.build(SCOPE_A)
    expected = answers(tool)
    import shutil

    shutil.rmtree(folder(tool))
    assert answers(make_tool(tool.workspace)) == expected
    assert (folder(tool) / "vectors.npy").is_file()
    assert answers(make_tool(tool.workspace)) == expected


def test_a_rebuild_swaps_the_snapshot_with_the_collection(tmp_path: Path) -> None:
    tool = make_tool(workspace(tmp_path, {"a": SCOPE_A}))
    tool.build(SCOPE_A)
    before = (folder(tool) / "manifest.json").read_text()
    tool.rebuild(SCOPE_A)
    assert (folder(tool) / "manifest.json").read_text() != before
    assert answers(make_tool(tool.workspace)) == answers(from_chroma(tool))


def test_a_limit_of_zero_reads_chroma_s_own_index(tmp_path: Path) -> None:
    tool = make_tool(workspace(tmp_path, {"a": SCOPE_A}))
    tool.build(SCOPE_A)
    reader = make_tool(tool.workspace)
    reader.store.exact_max_items = 0  # vector_store.exact_max_items=0: always HNSW
    hits = reader.retrieve(ToolCall(tool="vector", query="warmup loss spikes"), SCOPE_A)
    assert hits[0].id == "doc:notes/warmup.md#L1" and reader.store._client is not None


def test_a_build_that_changes_no_item_keeps_the_vectors_and_renews_the_manifest(
    tmp_path: Path,
) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = make_tool(ws)
    tool.build(SCOPE_A)
    vectors = (folder(tool) / "vectors.npy").stat().st_ino
    touch_later(ws.root / "a" / "notes" / "warmup.md", FILES_WARMUP)  # same text, newer time
    reader = make_tool(ws)
    assert not reader.freshness(SCOPE_A).fresh
    assert tool.build(SCOPE_A)["embedded"] == 0
    assert (folder(tool) / "vectors.npy").stat().st_ino == vectors  # not read back and rewritten
    assert reader.freshness(SCOPE_A).fresh
    assert answers(reader) == answers(from_chroma(tool))


def test_a_collection_read_in_many_pages_gives_the_same_snapshot(
    tmp_path: Path, monkeypatch
) -> None:
    from arr.vector_store import exact

    monkeypatch.setattr(exact, "READ_PAGE", 2)  # three items: two pages, the last one short
    tool = make_tool(workspace(tmp_path, {"a": SCOPE_A}))
    tool.build(SCOPE_A)
    assert len(json.loads((folder(tool) / "ids.json").read_text())) == 3
    assert answers(make_tool(tool.workspace)) == answers(from_chroma(tool))


def test_pages_that_do_not_add_up_write_no_snapshot(tmp_path: Path) -> None:
    import numpy as np

    from arr.vector_store.snapshot import write_pages

    page = (["a", "b"], np.eye(2, dtype=np.float32), ["x", "y"], [{}, {}])
    write_pages(tmp_path / "s", {"built_at": 1}, "1", 3, [page])  # the collection grew
    assert not (tmp_path / "s").exists() and list(tmp_path.iterdir()) == []
    write_pages(tmp_path / "s", {"built_at": 1}, "1", 2, [page])
    assert json.loads((tmp_path / "s" / "ids.json").read_text()) == ["a", "b"]


@pytest.mark.slow
def test_a_large_collection_lists_its_items_for_an_incremental_build(tmp_path: Path) -> None:
    """A readers' version bump on a real folder (39,000 passages) made every item changed:
    listing them in one get failed in Chroma ("too many SQL variables") and arr index exited 1."""
    import numpy as np

    store = ChromaStore(tmp_path / "chroma", exact_max_items=0)
    count = 40_000
    ids = [f"doc:{n}" for n in range(count)]
    vectors = np.random.default_rng(0).random((count, 4), dtype=np.float32)
    metas = [{"content_hash": f"h{n}"} for n in range(count)]
    store.write(SCOPE_A, ids, vectors, ["t"] * count, metas, [], {"built_at": 1})
    found = store.existing(SCOPE_A)
    assert len(found) == count and found["doc:39999"] == "h39999"
    store.close()
