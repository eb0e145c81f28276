"""A query that names a file by path finds that file first (arr.tools.grep.paths), under the
one file rule."""

from __future__ import annotations

import os
from pathlib import Path

from arr.tools.grep import GrepTool
from arr.workspace.workspace import Workspace
from tests.conftest import SCOPE_A, file_workspace, lexical_router
from tests.grep_fixtures import grep_workspace, returned_text, run


def test_a_named_file_comes_first_and_links_are_refused(tmp_path: Path) -> None:
    ws = grep_workspace(tmp_path)
    root = ws.root / "root"
    (root / "httpx" / "_transports").mkdir(parents=True)
    (root / "httpx" / "_transports" / "default.py").write_text("class HTTPTransport:\n    pass\n")
    (root / "notes.md").write_text("we changed httpx/_transports/default.py twice\n")
    outside = tmp_path / "secret.py"
    outside.write_text("SECRET\n")
    os.link(outside, root / "linked.py")
    answer = run(GrepTool("grep", ws), query="httpx/_transports/default.py")
    paths = [e.location.path for e in answer.evidence]
    assert paths[0] == "httpx/_transports/default.py" and "notes.md" in paths
    assert answer.evidence[0].snippet.startswith("class HTTPTransport")
    assert [e.ranks["grep"] for e in answer.evidence] == list(range(1, len(paths) + 1))
    one = run(GrepTool("grep", ws), query="httpx/_transports/default.py", top_k=1)
    assert [e.location.path for e in one.evidence] == ["httpx/_transports/default.py"]  # limit
    linked = run(GrepTool("grep", ws), query="linked.py")
    assert all(e.location.path != "linked.py" for e in linked.evidence)


def two_roots(tmp_path: Path) -> Workspace:
    """Scope ``a`` over two roots, ``src`` and ``notes``: paths shown as ``src/...``."""
    body = "".join(f"value_{n} = {n}\n" for n in range(1, 61))
    one = file_workspace(tmp_path, {"src": SCOPE_A}, {"pkg/rules.py": body})
    (tmp_path / "ws" / "notes").mkdir()
    (tmp_path / "ws" / "notes" / "todo.md").write_text("rules.py:30 is odd\n")
    scopes = {"a": {"key": SCOPE_A, "roots": ["src", "notes"]}}
    return Workspace.model_validate({**one.model_dump(), "scopes": scopes})


def test_a_path_as_shown_absolute_or_with_a_line_finds_its_place(tmp_path: Path) -> None:
    """The path ARR itself shows (with the root's folder), an absolute path, another
    machine's traceback and a ``path:line`` all name the file; a line is shown with the
    lines around it, once, before every other hit."""
    ws = two_roots(tmp_path)
    grep = GrepTool("grep", ws)
    absolute = str(tmp_path / "ws" / "src" / "pkg" / "rules.py")
    for query in ("src/pkg/rules.py", absolute, "pkg/rules.py", "/ci/proj/pkg/rules.py"):
        first = run(grep, query=query).evidence[0]
        assert (first.location.path, first.location.start_line) == ("src/pkg/rules.py", 1)
        assert first.snippet.startswith("value_1 = 1\n")
    answer = run(grep, query="src/pkg/rules.py:30")
    first = answer.evidence[0]
    assert (first.location.start_line, first.location.end_line) == (30, 30)
    assert first.snippet == "\n".join(f"value_{n} = {n}" for n in range(28, 33))
    traceback = run(grep, query=f'File "{absolute}", line 30, in f').evidence[0]
    assert (traceback.location.path, traceback.location.start_line) == ("src/pkg/rules.py", 30)
    beyond = run(grep, query="rules.py:999").evidence[0]  # the file has no such line: its head
    assert (beyond.location.path, beyond.location.start_line) == ("src/pkg/rules.py", 1)
    ids = [e.id for e in run(grep, query="rules.py:30").evidence]
    assert len(ids) == len(set(ids))  # the text hit "rules.py:30" in notes is another place
    (tmp_path / "ws" / "src" / "pkg" / "self.py").write_text("x = 1\n# see pkg/self.py:2\n")
    both = run(GrepTool("grep", ws), query="pkg/self.py:2").evidence  # named and a text hit
    assert [(e.location.path, e.location.start_line) for e in both].count(
        ("src/pkg/self.py", 2)
    ) == 1
    assert both[0].snippet == "x = 1\n# see pkg/self.py:2"  # returned once, as the named line
    (tmp_path / "ws" / "src" / "pkg" / "min.js").write_text("x" * 5000 + "\n" + "y" * 5000 + "\n")
    cut = run(GrepTool("grep", ws, max_line_chars=100), query="pkg/min.js:2")
    assert cut.evidence[0].snippet == "x" * 100 + "…\n" + "y" * 100 + "…"  # cut as grep cuts
    assert cut.counters.get("long_lines_cut") == 2


def test_through_the_router_the_named_line_comes_first(tmp_path: Path) -> None:
    """Real bm25 and grep: bm25 ranks the word-rich chunk first; the query names another file's
    line, and that place leads whatever the scores (the path ARR showed, with a line); the
    trace of each channel that found it says so."""
    ws = two_roots(tmp_path)
    (tmp_path / "ws" / "src" / "pkg" / "other.py").write_text(
        "# rules py src pkg: rules, rules, rules\n" * 5
    )
    router = lexical_router(ws)
    result = router.search("src/pkg/rules.py:45", SCOPE_A)
    first = result.evidence[0]
    assert first.location.path == "src/pkg/rules.py"
    assert first.location.start_line <= 45 <= (first.location.end_line or 0)
    assert result.scope_leak_count == 0
    noted = [t.note for t in result.traces if "named in the query, put first" in t.note]
    assert noted and all(f"src/pkg/rules.py:{first.location.start_line}" in n for n in noted)
    plain = router.search("value_45", SCOPE_A)  # no path named: no such note
    assert not any("named in the query" in t.note for t in plain.traces)


SCOPE_B = SCOPE_A.model_copy(update={"project_id": "other-project"})


def test_a_path_of_another_scope_or_outside_every_root_reads_nothing_there(tmp_path: Path) -> None:
    """Named by its absolute path, a file of another scope's root (or outside every root) is
    never read: a path is matched only against the files this scope's walk found."""
    ws = file_workspace(
        tmp_path, {"a": SCOPE_A, "b": SCOPE_B}, {"pkg/x.py": "shared = 1\n", "pkg/b_only.py": ""}
    )
    (tmp_path / "ws" / "b" / "pkg" / "b_only.py").write_text("B_SECRET_LINE = 2\n")
    (tmp_path / "ws" / "a" / "pkg" / "b_only.py").unlink()
    outside = tmp_path / "outside.py"
    outside.write_text("OUTSIDE_LINE = 3\n")
    grep = GrepTool("grep", ws)
    for query in (
        str(tmp_path / "ws" / "b" / "pkg" / "b_only.py"),
        f"{tmp_path / 'ws' / 'b' / 'pkg' / 'b_only.py'}:1",
        str(outside),
        "../outside.py",
    ):
        answer = run(grep, query=query)
        text = returned_text(answer)
        assert "B_SECRET_LINE" not in text and "OUTSIDE_LINE" not in text, query
        assert all(e.scope == SCOPE_A for e in answer.evidence)
    # another scope's absolute path ending in a file this scope has: this scope's own file
    named = run(grep, query=str(tmp_path / "ws" / "b" / "pkg" / "x.py")).evidence[0]
    assert (named.location.path, named.snippet) == ("pkg/x.py", "shared = 1")
