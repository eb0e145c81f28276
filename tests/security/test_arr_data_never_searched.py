"""ARR's own data is never evidence. A workspace's ``.arr`` folder holds the indexes of every
scope (their chunk texts and vocabularies) and its state (memory store, approvals ledger): a
scope whose root holds the workspace folder (``arr scope add code .``) must not read another
scope's text out of it, through any channel, narrowed by the word index or not."""

from __future__ import annotations

from pathlib import Path

import pytest

from arr.errors import WorkspaceError
from arr.models import ScopeKey

SECRET = "zebracornplan"


def _workspace(tmp_path: Path) -> Path:
    from arr.compose.indexing import index_workspace
    from arr.compose.runner import build_tools, build_workspace, config_container
    from arr.workspace.file import add_scope, init_workspace

    private = tmp_path / "private"
    private.mkdir()
    (private / "notes.md").write_text(f"the {SECRET} of the private scope\n")
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "readme.md").write_text("public notes\n")
    init_workspace(folder, {})
    add_scope(folder, "priv", [str(private)], {})
    add_scope(folder, "pub", [str(folder)], {"branch": "public"})  # the workspace itself
    from arr.compose.library import compose

    container = config_container(
        compose(
            "index",
            ["progress=false", "embedder=hashing", "tools=[bm25,grep,vector]"],
            workspace=folder,
        )
    )
    workspace = build_workspace(container)
    _, reports = index_workspace(
        workspace, build_tools(container, workspace), workspace.named_scopes(), progress=False
    )
    assert not any(r.error for r in reports)
    return folder


@pytest.mark.parametrize("tools", ["[grep]", "[bm25]", "[vector]", "[memory,bm25,grep,vector]"])
def test_a_scope_whose_root_holds_the_workspace_never_reads_another_scopes_index(
    tmp_path: Path, tools: str
) -> None:
    from arr.compose.library import load_router

    folder = _workspace(tmp_path)
    assert any(
        SECRET.encode() in p.read_bytes() for p in (folder / ".arr").rglob("*") if p.is_file()
    )
    router = load_router(["progress=false", "embedder=hashing", f"tools={tools}"], workspace=folder)
    try:
        for query in (SECRET, f"the {SECRET} of", "vocab.index.json"):
            for _ in range(2):  # the first call walks; the second is narrowed by the word index
                result = router.search(query, "pub")
                # the vector channel always answers with its nearest item: pub's own readme
                assert {e.location.path for e in result.evidence} <= {"readme.md"}
                assert not any(SECRET in e.snippet for e in result.evidence)
        found = router.search(SECRET, "priv")  # the scope that owns it still finds it
        assert [e.channel for e in found.evidence]
    finally:
        router.close()


def test_grep_counts_the_workspace_folder_as_withheld(tmp_path: Path) -> None:
    from arr.compose.library import load_router

    folder = _workspace(tmp_path)
    router = load_router(["progress=false", "tools=[grep]"], workspace=folder)
    try:
        result = router.search(SECRET, "pub")
    finally:
        router.close()
    (trace,) = result.traces
    assert trace.counters.get("skipped_sensitive_name", 0) >= 1


def test_an_index_folder_inside_a_scope_root_is_refused(tmp_path: Path) -> None:
    """An index or state folder configured inside a root (not below .arr) would be read as
    sources: the root is refused with the folder named."""
    from arr.workspace.workspace import Workspace

    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    key = ScopeKey(
        team_id="t", project_id="p", repository="r", branch="b", experiment_environment="e"
    )

    def workspace(index_dir: Path, memory_db: Path) -> Workspace:
        return Workspace(
            name="w",
            root=root,
            index_dir=index_dir,
            memory_db=memory_db,
            scopes={"s": {"key": key, "roots": ["."]}},
        )

    inside = workspace(root / "idx", tmp_path / "state" / "m.sqlite3")
    with pytest.raises(WorkspaceError, match=r"holds the workspace's index folder .*idx"):
        inside.check()
    state_inside = workspace(tmp_path / "idx", root / "state" / "m.sqlite3")
    with pytest.raises(WorkspaceError, match=r"holds the workspace's state folder"):
        state_inside.check()
    workspace(root / ".arr" / "index", root / ".arr" / "state" / "m.sqlite3").check()  # withheld
    workspace(tmp_path / "idx", tmp_path / "state" / "m.sqlite3").check()  # outside: fine
