"""Freshness by content where size and mtime lie: a file rewritten with both restored is read
again by every channel; a file whose inode changed but whose bytes did not is not."""

from __future__ import annotations

import os
from pathlib import Path

from arr.embedder.hashing import HashingEmbedder
from arr.models import ToolCall
from arr.tools.bm25 import BM25Tool
from arr.tools.grep import GrepTool
from arr.tools.vector import VectorTool
from arr.vector_store.chroma import ChromaStore
from arr.workspace.workspace import Workspace
from tests.conftest import SCOPE_A, file_workspace

OLD = "the cosine schedule warmed up slowly\n"
NEW = "the zanzibar schedule warmed up fast\n"  # same length as OLD
assert len(OLD) == len(NEW)


def rewrite_keeping_size_and_mtime(path: Path, text: str) -> None:
    before = path.stat()
    path.write_text(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def tools(ws: Workspace) -> tuple[BM25Tool, VectorTool, HashingEmbedder]:
    embedder = HashingEmbedder()
    store = ChromaStore(ws.index_dir / "c")
    return BM25Tool("bm25", ws), VectorTool("vector", ws, embedder, store), embedder


def ids(hits: list) -> list[str]:
    return [h.id for h in hits]


def test_a_rewrite_with_size_and_mtime_restored_is_read_again(tmp_path: Path) -> None:
    ws = file_workspace(tmp_path, {"a": SCOPE_A}, {"notes/a.md": OLD, "notes/b.md": "other\n"})
    bm25, vector, embedder = tools(ws)
    grep = GrepTool("grep", ws)
    bm25.build(SCOPE_A)
    vector.build(SCOPE_A)
    grep.build(SCOPE_A)  # its word index narrows later calls to the files that hold the words
    rewrite_keeping_size_and_mtime(ws.root / "a" / "notes" / "a.md", NEW)
    assert not bm25.freshness(SCOPE_A).fresh and not vector.freshness(SCOPE_A).fresh
    assert bm25.build(SCOPE_A)["files_reread"] == 1
    assert vector.build(SCOPE_A)["embedded"] == 1
    query = ToolCall(tool="bm25", query="zanzibar")
    assert ids(bm25.retrieve(query, SCOPE_A)) == ["doc:notes/a.md#L1"]
    assert bm25.retrieve(ToolCall(tool="bm25", query="cosine"), SCOPE_A) == []
    found = vector.retrieve(ToolCall(tool="vector", query="zanzibar"), SCOPE_A)
    assert "zanzibar" in found[0].snippet and all("cosine" not in h.snippet for h in found)
    lines = grep.retrieve(ToolCall(tool="grep", query="zanzibar"), SCOPE_A).evidence
    assert ids(lines) == ["grep:notes/a.md#L1"]


def test_same_bytes_under_a_new_inode_time_are_not_read_again(tmp_path: Path) -> None:
    ws = file_workspace(tmp_path, {"a": SCOPE_A}, {"notes/a.md": OLD, "notes/b.md": "other\n"})
    bm25, vector, embedder = tools(ws)
    bm25.build(SCOPE_A)
    vector.build(SCOPE_A)
    embedded = embedder.texts_embedded
    for name in ("a.md", "b.md"):  # the change time moves, size, mtime and bytes do not
        path = ws.root / "a" / "notes" / name
        os.chmod(path, 0o600)
        os.chmod(path, 0o644)
    assert bm25.build(SCOPE_A)["files_reread"] == 0
    assert vector.build(SCOPE_A)["embedded"] == 0 and embedder.texts_embedded == embedded
    # the change time is recorded with the verified hash: the next index compares nothing
    assert bm25.build(SCOPE_A)["files_reread"] == 0
    assert ids(bm25.retrieve(ToolCall(tool="bm25", query="cosine"), SCOPE_A))
