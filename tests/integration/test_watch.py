"""Freshness at scale: a watched tree is walked only after a change, and every change deep in
a large generated tree (edit, addition, deletion, rename, new folders) is seen by the next
check or search."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import arr.workspace.workspace as workspace_module
from arr.fusion.wsum import WSumFusion
from arr.models import ScopeKey
from arr.planner.rule import RuleQueryPlanner
from arr.reranker.rule import RuleReranker
from arr.router.router import RetrievalRouter
from arr.tools.bm25 import BM25Tool
from arr.workspace.workspace import Workspace
from tests.machine_speed import grace_s

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")

SCOPE = ScopeKey(
    team_id="t", project_id="p", repository="big", branch="main", experiment_environment="e"
)


def big_tree(root: Path, folders: int = 40, files: int = 25) -> list[Path]:
    """``folders`` x ``files`` Python files, four folders deep."""
    made = []
    for f in range(folders):
        folder = root / f"pkg{f % 4}" / f"sub{f % 7}" / f"mod{f}" / "deep"
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(files):
            path = folder / f"file{i}.py"
            path.write_text(f"def function_{f}_{i}():\n    return {i}\n")
            made.append(path)
    return made


@pytest.fixture
def counted_walks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    walks = [0]
    original = workspace_module.walk_files

    def counting(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        walks[0] += 1
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(workspace_module, "walk_files", counting)
    return walks


def make_workspace(tmp_path: Path) -> Workspace:
    return Workspace(
        name="big",
        root=tmp_path,
        index_dir=tmp_path / ".index",
        memory_db=tmp_path / ".state" / "memory.sqlite3",
        scopes={"big": {"key": SCOPE, "roots": ["tree"]}},
    )


def labels(workspace: Workspace) -> dict[str, int]:
    return {f.label: f.size for f in workspace.source_files(SCOPE)}


def test_watched_tree_walks_only_after_a_change(tmp_path: Path, counted_walks: list[int]) -> None:
    files = big_tree(tmp_path / "tree")
    workspace = make_workspace(tmp_path)
    workspace.watch_changes()
    first = labels(workspace)
    assert len(first) == len(files) and counted_walks[0] == 1
    for _ in range(5):  # nothing changed: the walk is not repeated
        assert labels(workspace) == first
    assert counted_walks[0] == 1

    deep = files[len(files) // 2]
    label = deep.relative_to(tmp_path / "tree").as_posix()
    with deep.open("a") as handle:  # edit in place
        handle.write("# edited\n")
    assert labels(workspace)[label] == first[label] + len("# edited\n")
    assert counted_walks[0] == 2
    labels(workspace)
    assert counted_walks[0] == 2

    new_folder = tmp_path / "tree" / "pkg1" / "brand" / "new" / "folders"
    new_folder.mkdir(parents=True)  # new folders are watched as they appear
    (new_folder / "added.py").write_text("x = 1\n")
    assert "pkg1/brand/new/folders/added.py" in labels(workspace)
    (new_folder / "later.py").write_text("y = 2\n")  # a change inside the new folder
    assert "pkg1/brand/new/folders/later.py" in labels(workspace)

    deep.unlink()  # deletion
    assert label not in labels(workspace)
    other = files[3]
    renamed = other.with_name("renamed.py")
    os.rename(other, renamed)  # rename
    seen = labels(workspace)
    assert renamed.relative_to(tmp_path / "tree").as_posix() in seen
    assert other.relative_to(tmp_path / "tree").as_posix() not in seen
    touched = files[7]
    os.utime(touched, ns=(1, 1))  # only the mtime changes: still a change
    assert workspace.source_files(SCOPE)[0] is not None
    mtimes = {f.label: f.mtime_ns for f in workspace.source_files(SCOPE)}
    assert mtimes[touched.relative_to(tmp_path / "tree").as_posix()] == 1
    workspace.close_watches()


def test_without_watching_or_without_inotify_every_check_walks(
    tmp_path: Path, counted_walks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    big_tree(tmp_path / "tree", folders=3, files=3)
    workspace = make_workspace(tmp_path)
    labels(workspace)
    labels(workspace)
    assert counted_walks[0] == 2  # a one-shot process: no watch
    monkeypatch.setattr(workspace_module, "open_watch", lambda roots, verify_s: None)
    workspace.watch_changes()
    labels(workspace)
    labels(workspace)
    assert counted_walks[0] == 4  # inotify unavailable: walking is the fallback, never staleness


def test_verification_walk_bounds_what_inotify_cannot_see(
    tmp_path: Path, counted_walks: list[int]
) -> None:
    big_tree(tmp_path / "tree", folders=2, files=2)
    workspace = make_workspace(tmp_path)
    workspace.watch_changes(verify_s=0.0)  # verify on every check
    labels(workspace)
    labels(workspace)
    assert counted_walks[0] == 2
    workspace.close_watches()


def test_router_sees_deep_edits_through_the_watch(tmp_path: Path, counted_walks: list[int]) -> None:
    files = big_tree(tmp_path / "tree", folders=30, files=20)
    workspace = make_workspace(tmp_path)
    tool = BM25Tool("bm25", workspace)
    tool.build(SCOPE)
    router = RetrievalRouter(
        tools={"bm25": tool},
        planner=RuleQueryPlanner(),
        fusion=WSumFusion(),
        reranker=RuleReranker(),
        scopes={"big": SCOPE},
    )
    router.warm_up()
    router.watch_changes()
    assert router.search("function_3_4", SCOPE).evidence
    walks = counted_walks[0]
    for _ in range(3):
        result = router.search("function_3_4", SCOPE)
        assert result.evidence and not result.degradations
    assert counted_walks[0] == walks  # unchanged tree: no walk per search

    target = files[-1]
    target.write_text("def zebracorn_marker():\n    return 1\n")
    result = router.search("zebracorn_marker", SCOPE)
    assert any("zebracorn_marker" in e.snippet for e in result.evidence)
    assert counted_walks[0] > walks
    router.close()
    assert workspace._verify_s is None  # closed: back to walking


def test_a_search_during_a_build_answers_without_waiting(tmp_path: Path) -> None:
    """A stale channel whose build lock is held elsewhere is answered around at once, with a
    degradation naming the running build (never a search blocked for the build's duration)."""
    import fcntl
    import time

    from arr import codes
    from arr.tools.grep import GrepTool
    from arr.tools.partition import partition_dir

    files = big_tree(tmp_path / "tree", folders=2, files=3)
    workspace = make_workspace(tmp_path)
    bm25 = BM25Tool("bm25", workspace)
    bm25.build(SCOPE)
    router = RetrievalRouter(
        tools={"bm25": bm25, "grep": GrepTool("grep", workspace)},
        planner=RuleQueryPlanner(),
        fusion=WSumFusion(),
        reranker=RuleReranker(),
        scopes={"big": SCOPE},
    )
    files[0].write_text("def function_0_0():\n    return 'changed'\n")  # now stale
    lock = partition_dir(workspace.index_dir / "bm25", SCOPE) / "build.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # "another process is building"
        started = time.monotonic()
        result = router.search("function_0_0", SCOPE)
        assert time.monotonic() - started < grace_s(5, at_most=30)  # not waiting on the lock
    assert [r.code for r in result.rejections] == [codes.INDEX_BUILDING]
    assert any(d.code == codes.INDEX_BUILDING for d in result.degradations) and result.partial
    assert any(e.channel == "grep" for e in result.evidence)  # the other channel answered
    after = router.search("function_0_0", SCOPE)  # lock released: refreshed and answered
    assert not after.rejections and any(e.channel == "bm25" for e in after.evidence)
    router.close()
