"""A build writes the read snapshot from what it stored (its spool), not by reading the
collection back: the answers are Chroma's, and a build that cannot know the whole collection
(a failed write, an index without a snapshot) still reads back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from arr.models import ToolCall
from arr.tools.vector import VectorTool
from arr.vector_store import snapshot
from tests.conftest import SCOPE_A
from tests.integration.test_vector_snapshot import answers, folder, from_chroma
from tests.integration.test_vector_tool import make_tool, touch_later, workspace


@pytest.fixture
def read_backs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the commits that read the collection back to write the snapshot."""
    calls: list[int] = []
    real = snapshot.pages

    def counted(collection: Any) -> Any:
        calls.append(1)
        return real(collection)

    monkeypatch.setattr(snapshot, "pages", counted)
    return calls


def same_answers(reader: VectorTool, tool: VectorTool) -> None:
    """The snapshot's answers are Chroma's: the same items in the same order, the same text,
    scores equal to the sixth decimal (the spool keeps the embedder's vectors; Chroma hands
    some components back one float32 step away)."""
    got, expected = answers(reader), answers(from_chroma(tool))
    assert [[(i, s) for i, _, s in q] for q in got] == [[(i, s) for i, _, s in q] for q in expected]
    for mine, theirs in zip(got, expected, strict=True):
        assert [score for _, score, _ in mine] == pytest.approx(
            [score for _, score, _ in theirs], abs=2e-6
        )


def spools_left(tool: VectorTool) -> list[str]:
    read = tool.store.path / "read"
    return sorted(p.name for p in read.iterdir() if p.name.startswith(".")) if read.is_dir() else []


def test_a_first_build_writes_the_snapshot_from_its_spool(
    tmp_path: Path, read_backs: list[int]
) -> None:
    tool = make_tool(workspace(tmp_path, {"a": SCOPE_A}))
    tool.build(SCOPE_A)
    assert read_backs == [] and (folder(tool) / "vectors.npy").is_file()
    reader = make_tool(tool.workspace)
    same_answers(reader, tool)
    assert reader.store._client is None and spools_left(tool) == []


def test_changes_deletions_and_renames_land_over_the_old_snapshot(
    tmp_path: Path, read_backs: list[int]
) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = make_tool(ws)
    tool.build(SCOPE_A)
    touch_later(ws.root / "a" / "notes" / "augment.md", "CutMix hurt small patches.\n")
    (ws.root / "a" / "src" / "train.py").unlink()
    (ws.root / "a" / "notes" / "new.md").write_text("Label smoothing helped the warmup.\n")
    built = tool.build(SCOPE_A)
    assert (built["embedded"], built["deleted"]) == (2, 1) and read_backs == []
    ids = json.loads((folder(tool) / "ids.json").read_text())
    assert sorted(ids) == sorted(tool.store.existing(SCOPE_A))
    same_answers(make_tool(ws), tool)
    # a place named anew (its metadata only): the snapshot's record follows
    store = tool.store
    item = "doc:notes/warmup.md#L1"
    meta = store.collection(SCOPE_A).get(ids=[item], include=["metadatas"])["metadatas"][0]
    store.write(SCOPE_A, [item], None, [], [{**meta, "title": "Warmup, renamed"}], [], None)
    manifest = {**store.manifest(SCOPE_A), "build_token": "renamed-1"}
    store.write(SCOPE_A, [], [], [], [], [], manifest)
    records = (folder(tool) / "metadatas.bin").read_bytes()
    assert b"Warmup, renamed" in records and read_backs == []
    assert spools_left(tool) == []


def test_a_rebuild_writes_the_swapped_snapshot_from_its_spool(
    tmp_path: Path, read_backs: list[int]
) -> None:
    tool = make_tool(workspace(tmp_path, {"a": SCOPE_A}))
    tool.build(SCOPE_A)
    tool.rebuild(SCOPE_A)
    assert read_backs == []
    same_answers(make_tool(tool.workspace), tool)


def test_a_build_that_failed_is_not_trusted_by_the_next(
    tmp_path: Path, read_backs: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = make_tool(ws, commit_every=1)
    real = tool.embedder.embed
    seen: list[int] = []

    def fails_second(texts: list[str], show_progress: bool = False) -> Any:
        seen.append(1)
        if len(seen) == 2:
            raise RuntimeError("the embedder broke")
        return real(texts)

    monkeypatch.setattr(tool.embedder, "embed", fails_second)
    with pytest.raises(RuntimeError):
        tool.build(SCOPE_A)
    assert spools_left(tool) == []  # the failed build's record is gone
    tool.build(SCOPE_A)
    assert read_backs == [1]  # one item stored before the failure, no snapshot under it
    same_answers(make_tool(ws), tool)


def test_an_index_without_a_snapshot_is_read_back(tmp_path: Path, read_backs: list[int]) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = make_tool(ws)
    tool.build(SCOPE_A)
    shutil.rmtree(folder(tool))  # an index built before snapshots, or a snapshot lost
    touch_later(ws.root / "a" / "notes" / "augment.md", "CutMix hurt small patches.\n")
    tool.build(SCOPE_A)
    assert read_backs == [1]
    same_answers(make_tool(ws), tool)
    hit = make_tool(ws).retrieve(ToolCall(tool="vector", query="CutMix patches"), SCOPE_A)[0]
    assert hit.id == "doc:notes/augment.md#L1"
