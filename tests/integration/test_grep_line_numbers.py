"""The line a grep hit names is the line that matches: in ``location.start_line``, in JSON's
``location.line`` and in the text output's ``path:line``, whatever the file's line endings, on
its first and last line, and with the context lines the snippet shows around it (issue 63: a
match on line 13 said 14)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arr.cli.render import file_locator
from arr.fusion.places import place_rankings
from arr.tools.grep import GrepTool
from arr.workspace.opening import add_openings, matching_line
from tests.grep_fixtures import MARK, grep_workspace, run

FILLER = [f"filler line {n}" for n in range(1, 45)]


def body(lines: list[str], newline: str, trailing: bool) -> bytes:
    return (newline.join(lines) + (newline if trailing else "")).encode("utf-8")


def marked(at: list[int], total: int = 44) -> list[str]:
    """``total`` lines, those numbered in ``at`` (from 1) holding the mark."""
    return [f"x = {MARK}  # line {n}" if n in at else FILLER[n - 1] for n in range(1, total + 1)]


@pytest.mark.parametrize(
    ("newline", "trailing"),
    [
        pytest.param("\n", True, id="lf-trailing-newline"),
        pytest.param("\n", False, id="lf-no-trailing-newline"),
        pytest.param("\r\n", True, id="crlf-trailing-newline"),
        pytest.param("\r\n", False, id="crlf-no-trailing-newline"),
    ],
)
@pytest.mark.parametrize(
    "at",
    [
        pytest.param([1], id="first-line"),
        pytest.param([13], id="middle-line"),
        pytest.param([44], id="last-line"),
        pytest.param([40, 41], id="both-sides-of-a-chunk-boundary"),
    ],
)
def test_a_hit_names_its_own_line(
    tmp_path: Path, newline: str, trailing: bool, at: list[int]
) -> None:
    ws = grep_workspace(tmp_path)
    root = ws.root / "root"
    (root / "a.py").write_bytes(body(marked(at), newline, trailing))
    answer = run(GrepTool("grep", ws, context_lines=2))
    items = answer.evidence
    assert [e.location.start_line for e in items] == at
    assert [e.id for e in items] == [f"grep:a.py#L{n}" for n in at]
    for item, line in zip(items, at, strict=True):
        # the snippet holds the context lines too; the line named is still the match
        assert f"# line {line}" in item.snippet and "\r" not in item.snippet
        assert matching_line(item, MARK) == line
        assert matching_line(item, f"filler line {line - 1}") == line  # a context line's words
        answer_json = {"evidence": [{"location": item.location.model_dump()}]}
        add_openings(answer_json, [item], [root], MARK)
        assert answer_json["evidence"][0]["location"]["line"] == line
        locate = file_locator([root], cwd=root, query=MARK)
        assert locate(item) == f"a.py:{line}"
    # place merging files each line under the chunk (40 lines from line 1) that holds it
    placed = [e.id for e in place_rankings({"grep": items}, 40)["grep"]]
    assert placed == sorted({f"doc:a.py#L{(n - 1) // 40 * 40 + 1}" for n in at})


def test_a_named_line_is_the_line_named(tmp_path: Path) -> None:
    """``a.py:13`` shows the lines around 13 and names 13, not the first line shown."""
    ws = grep_workspace(tmp_path)
    root = ws.root / "root"
    (root / "a.py").write_bytes(body(marked([]), "\n", True))
    item = run(GrepTool("grep", ws), query="a.py:13").evidence[0]
    assert item.location.start_line == 13 and "filler line 11" in item.snippet
    assert matching_line(item, "a.py:13") == 13
    assert file_locator([root], cwd=root, query="a.py:13")(item) == "a.py:13"
