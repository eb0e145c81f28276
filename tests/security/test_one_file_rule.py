"""The one file rule (arr.safety.file_rule), every rule x every file channel x (index, refresh,
search).

For each rule a file that breaks it carries a secret marker; it must never come back, whether
it was there when the index was built (index), appeared after the build and reached the index
through the refresh before a search (refresh), or replaced an indexed file after the build so
that only the answer-time check stands between the index's copy and the caller (search).
Before the rule existed, hard links leaked through bm25 and vector at every phase.
"""

from __future__ import annotations

import os
import socket
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from arr.embedder.hashing import HashingEmbedder
from arr.models import FRESH, QueryPlan, ScopeKey, ToolCall, ToolRound
from arr.router.router import RetrievalRouter
from arr.safety import file_rule
from arr.tools.bm25 import BM25Tool
from arr.tools.grep import GrepTool
from arr.tools.vector import VectorTool
from arr.vector_store.chroma import ChromaStore
from arr.workspace.workspace import Workspace
from tests.conftest import SCOPE_A, make_router

MARK = "zebrafinch"
SECRET = "OUTSIDEMARKER"
SCOPE_B = SCOPE_A.model_copy(update={"project_id": "other-project"})
CAP = 4_000


def make_workspace(tmp_path: Path) -> Workspace:
    for name in ("a", "b"):
        (tmp_path / "ws" / name).mkdir(parents=True)
    (tmp_path / "ws" / "a" / "clean.md").write_text(f"{MARK} a clean note\n")
    return Workspace(
        name="t",
        root=tmp_path / "ws",
        index_dir=tmp_path / "idx",
        memory_db=tmp_path / "m.sqlite3",
        max_file_bytes=CAP,
        scopes={"a": {"key": SCOPE_A, "roots": ["a"]}, "b": {"key": SCOPE_B, "roots": ["b"]}},
    )


def later(path: Path) -> None:
    """A change the freshness check must see (mtime resolution of some file systems)."""
    stamp = time.time_ns() + 2 * 10**9
    os.utime(path, ns=(stamp, stamp), follow_symlinks=False)


def outside(tmp_path: Path, text: str = f"{MARK} {SECRET} outside text\n") -> Path:
    path = tmp_path / "outside.md"
    path.write_text(text)
    return path


# Each rule puts one offending file at ws/a/<name> holding the secret (or pointing at it).
def _symlink(tmp_path: Path, target: Path) -> None:
    os.symlink(outside(tmp_path), target)


def _symlinked_folder(tmp_path: Path, target: Path) -> None:
    folder = tmp_path / "outdir"
    folder.mkdir()
    (folder / "inner.md").write_text(f"{MARK} {SECRET}\n")
    os.symlink(folder, target)


def _hardlink(tmp_path: Path, target: Path) -> None:
    os.link(outside(tmp_path), target)


def _hardlink_other_scope(tmp_path: Path, target: Path) -> None:
    other = tmp_path / "ws" / "b" / "theirs.md"
    other.write_text(f"{MARK} {SECRET} scope b's own note\n")
    os.link(other, target)


def _fifo(tmp_path: Path, target: Path) -> None:
    os.mkfifo(target)


def _socket(tmp_path: Path, target: Path) -> None:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(target))
    _SOCKETS.append(server)


def _sensitive_name(tmp_path: Path, target: Path) -> None:
    (target.parent / "id_rsa").write_text(f"{MARK} {SECRET}\n")


def _arr_folder(tmp_path: Path, target: Path) -> None:
    (target.parent / ".arr").mkdir(exist_ok=True)
    (target.parent / ".arr" / "chunk.md").write_text(f"{MARK} {SECRET}\n")


def _oversize(tmp_path: Path, target: Path) -> None:
    target.write_text(f"{MARK} {SECRET}\n" + "x" * CAP)


def _binary(tmp_path: Path, target: Path) -> None:
    target.write_bytes(f"{MARK} {SECRET}\n".encode() + b"\x00\x01")


def _credential(tmp_path: Path, target: Path) -> None:
    target.write_text(f"{MARK} {SECRET}\naws_key = AKIAZ7Q4M2XK9PLW3RTB\n")


_SOCKETS: list[socket.socket] = []
RULES: dict[str, Callable[[Path, Path], None]] = {
    "symlink": _symlink,
    "symlinked_folder": _symlinked_folder,
    "hardlink": _hardlink,
    "hardlink_other_scope": _hardlink_other_scope,
    "fifo": _fifo,
    "socket": _socket,
    "sensitive_name": _sensitive_name,
    "arr_folder": _arr_folder,
    "oversize": _oversize,
    "binary": _binary,
    "credential": _credential,
}
# What replaces an indexed file after the build (search phase): metadata a walk no longer
# re-reads, with size and mtime kept so no freshness check notices.
SWAPS = ("symlink", "hardlink", "hardlink_other_scope", "fifo")


@pytest.fixture(autouse=True)
def _close_sockets():
    yield
    while _SOCKETS:
        _SOCKETS.pop().close()


def tool_for(channel: str, ws: Workspace):
    if channel == "grep":
        return GrepTool("grep", ws, deadline_ms=5000)
    if channel == "bm25":
        return BM25Tool("bm25", ws)
    return VectorTool(
        "vector", ws, HashingEmbedder(), ChromaStore(ws.index_dir / "c"), manifest_ttl_s=0.0
    )


def search(tool, scope: ScopeKey = SCOPE_A):
    plan = QueryPlan(
        tool_rounds=(ToolRound(calls=(ToolCall(tool=tool.name, query=f"{MARK} {SECRET}"),)),)
    )
    router: RetrievalRouter = make_router(tool)
    return router.search(f"{MARK} {SECRET}", scope, plan=plan)


def leaked(result) -> list[str]:
    return [
        f"{e.channel}:{e.location.path}"
        for e in result.evidence
        if SECRET in e.snippet or (e.location.path or "").endswith(("bad.md", "inner.md"))
    ]


def build(tool) -> None:
    if hasattr(tool, "build"):
        tool.build(SCOPE_A)
        tool.build(SCOPE_B)


CHANNELS = ("grep", "bm25", "vector")


@pytest.mark.parametrize("channel", CHANNELS)
@pytest.mark.parametrize("rule", sorted(RULES))
def test_rule_holds_at_index_time(tmp_path: Path, channel: str, rule: str) -> None:
    ws = make_workspace(tmp_path)
    RULES[rule](tmp_path, ws.root / "a" / "bad.md")
    tool = tool_for(channel, ws)
    build(tool)
    result = search(tool)
    assert leaked(result) == []
    assert [e.location.path for e in result.evidence] == ["clean.md"]


@pytest.mark.parametrize("channel", CHANNELS)
@pytest.mark.parametrize("rule", sorted(RULES))
def test_rule_holds_at_refresh_time(tmp_path: Path, channel: str, rule: str) -> None:
    ws = make_workspace(tmp_path)
    tool = tool_for(channel, ws)
    build(tool)
    target = ws.root / "a" / "bad.md"
    RULES[rule](tmp_path, target)
    for path in (target, target.parent / "id_rsa", target.parent / "clean.md"):
        if os.path.lexists(path):
            later(path)  # the refresh before the search sees a change
    result = search(tool)
    assert leaked(result) == []
    assert not result.rejections, result.rejections  # refreshed, not refused as stale
    assert [e.location.path for e in result.evidence] == ["clean.md"]


@pytest.mark.parametrize("channel", CHANNELS)
@pytest.mark.parametrize("swap", SWAPS)
def test_rule_holds_at_answer_time(
    tmp_path: Path, channel: str, swap: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An indexed file replaced after the build, the index not told (a race between the
    freshness check and the answer, or a tree nobody watches): the answer withholds it."""
    ws = make_workspace(tmp_path)
    victim = ws.root / "a" / "bad.md"
    victim.write_text(f"{MARK} {SECRET} harmless at index time\n")
    tool = tool_for(channel, ws)
    build(tool)
    victim.unlink()
    RULES[swap](tmp_path, victim)
    monkeypatch.setattr(tool, "freshness", lambda scope: FRESH)
    result = search(tool)
    assert leaked(result) == []
    assert [e.location.path for e in result.evidence] == ["clean.md"]
    if channel != "grep":  # grep re-reads the file itself (skipped_<reason>)
        (trace,) = result.traces
        withheld = {k: v for k, v in trace.counters.items() if k.startswith("withheld_")}
        expected = {"symlink": "link", "fifo": "special_file"}.get(swap, "hardlink")
        assert withheld == {f"withheld_{expected}": 1}


@pytest.mark.parametrize("channel", ("bm25", "vector"))
def test_indexed_file_that_gains_a_hard_link_leaves_the_index(tmp_path: Path, channel: str):
    """A second name made for an indexed file (from outside the tree, or from another scope)
    changes its link count: the next search no longer returns it, in either scope."""
    ws = make_workspace(tmp_path)
    shared = ws.root / "a" / "bad.md"
    shared.write_text(f"{MARK} {SECRET} first indexed in a\n")
    tool = tool_for(channel, ws)
    build(tool)
    assert leaked(search(tool)) != []  # indexed while it had one name
    os.link(shared, ws.root / "b" / "copy.md")
    assert leaked(search(tool)) == []
    assert leaked(search(tool, SCOPE_B)) == []


def test_the_walk_counts_every_rule_by_reason(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    # one offender of each kind, side by side, in one tree
    root = ws.root / "a"
    (tmp_path / "o").mkdir()
    _symlink(tmp_path / "o", root / "s.md")
    (tmp_path / "h").mkdir()
    _hardlink(tmp_path / "h", root / "h.md")
    _fifo(tmp_path, root / "f.md")
    _sensitive_name(tmp_path, root / "x.md")
    _oversize(tmp_path, root / "big.md")
    counted: Counter[str] = Counter()
    files = ws.source_files(SCOPE_A, counted)
    assert [f.label for f in files] == ["clean.md"]
    assert set(counted) <= set(file_rule.REASONS)  # one vocabulary of reasons
    assert dict(counted) == {
        "link": 1,
        "hardlink": 1,
        "special_file": 1,
        "sensitive_name": 1,
        "oversize": 1,
    }
