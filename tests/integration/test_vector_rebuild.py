"""``arr index rebuild=true`` for vectors: built beside the live collection, swapped in only
when complete; a rebuild that fails (full disk) leaves the index that was there; deleted
collections leave no segment folders behind."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from arr.embedder.hashing import HashingEmbedder
from arr.models import ToolCall
from tests.conftest import SCOPE_A, make_router
from tests.integration.test_vector_tool import make_tool, workspace


class FullDiskEmbedder(HashingEmbedder):
    """Embeds one batch, then the disk is full."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def embed(self, texts, show_progress=False):
        self.calls += 1
        if self.calls > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return super().embed(texts, show_progress)


def segment_folders(tool) -> list[str]:
    return sorted(p.name for p in tool.store.path.iterdir() if p.is_dir() and len(p.name) == 36)


def collections(tool) -> list[str]:
    tool.store.warm_up()
    return sorted(c.name for c in tool.store._client.list_collections())


def test_rebuild_swaps_and_leaves_no_segment_folders(tmp_path: Path) -> None:
    tool = make_tool(workspace(tmp_path, {"a": SCOPE_A}))
    tool.build(SCOPE_A)
    live = segment_folders(tool)
    for _ in range(3):
        manifest = tool.rebuild(SCOPE_A)
        assert manifest["embedded"] == 3
        assert collections(tool) == [f"arr-{SCOPE_A.fingerprint()}"]
        assert len(segment_folders(tool)) == len(live)  # not one more per rebuild
    assert tool.freshness(SCOPE_A).fresh
    hits = tool.retrieve(ToolCall(tool="vector", query="warmup loss spikes"), SCOPE_A)
    assert hits[0].id == "doc:notes/warmup.md#L1"


def test_a_rebuild_on_a_full_disk_keeps_the_index(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = make_tool(ws)
    tool.build(SCOPE_A)
    before = make_router(tool).search("warmup loss spikes", SCOPE_A)
    failing = make_tool(ws, embedder=FullDiskEmbedder(), commit_every=1)
    with pytest.raises(OSError) as info:
        failing.rebuild(SCOPE_A)
    assert info.value.errno == errno.ENOSPC
    failing.close()
    # the live collection is untouched, the half-built one is gone (its disk freed)
    assert collections(tool) == [f"arr-{SCOPE_A.fingerprint()}"]
    after = make_router(tool).search("warmup loss spikes", SCOPE_A)
    assert after.partial is False and after.degradations == ()
    assert [e.id for e in after.evidence] == [e.id for e in before.evidence]


def test_a_killed_rebuild_is_resumed_not_restarted(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = make_tool(ws)
    tool.build(SCOPE_A)

    class Killed(Exception):
        pass

    class DiesAfterOneBatch(HashingEmbedder):
        calls = 0

        def embed(self, texts, show_progress=False):
            DiesAfterOneBatch.calls += 1
            if DiesAfterOneBatch.calls > 1:
                raise Killed
            return super().embed(texts, show_progress)

    dying = make_tool(ws, embedder=DiesAfterOneBatch(), commit_every=1)
    with pytest.raises(Killed):
        dying.rebuild(SCOPE_A)
    dying.close()
    assert tool.freshness(SCOPE_A).fresh  # the old index still answers
    manifest = tool.rebuild(SCOPE_A)
    assert manifest["embedded"] == 2 and manifest["documents"] == 3  # one batch was kept
    assert collections(tool) == [f"arr-{SCOPE_A.fingerprint()}"]
    assert os.path.isdir(tool.store.path)
