"""A call's sub-path can never leave the scope's trusted root, in any spelling."""

from __future__ import annotations

from pathlib import Path

import pytest

from arr.tools.base import ChannelError
from arr.tools.grep import GrepTool
from tests.grep_fixtures import MARK, grep_workspace, returned_text, run

SECRET = "outside_root_byte"


@pytest.fixture
def tool(tmp_path: Path) -> GrepTool:
    ws = grep_workspace(tmp_path, name="root")
    (ws.root / "root" / "docs").mkdir()
    (ws.root / "root" / "docs" / "a.md").write_text(f"{MARK} inside\n")
    sibling = ws.root / "root-evil"
    sibling.mkdir()
    (sibling / "x.md").write_text(f"{MARK} {SECRET}\n")
    (tmp_path / "x.md").write_text(f"{MARK} {SECRET}\n")
    return GrepTool("grep", ws)


@pytest.mark.parametrize(
    "path, code",
    [
        pytest.param("..", "path_escape", id="parent"),
        pytest.param("../root-evil", "path_escape", id="sibling-prefix-root"),
        pytest.param("docs/../../root-evil/x.md", "path_escape", id="inner-dotdot"),
        pytest.param("docs/../..", "path_escape", id="dotdot-to-parent"),
        pytest.param("/etc", "path_absolute", id="absolute"),
        pytest.param(str(Path("/") / "tmp"), "path_absolute", id="absolute-tmp"),
        pytest.param("..\\root-evil", "path_invalid_characters", id="backslash"),
        pytest.param("C:\\x", "path_invalid_characters", id="drive-letter"),
        pytest.param("docs/a.md::$DATA", "path_invalid_characters", id="ntfs-stream"),
        pytest.param("docs\x00/../..", "path_invalid_characters", id="nul"),
        pytest.param("docs\r", "path_invalid_characters", id="control-char"),
    ],
)
def test_escape_spellings_are_refused_before_any_read(tool: GrepTool, path: str, code: str) -> None:
    with pytest.raises(ChannelError) as info:
        run(tool, path=path)
    assert info.value.code == code


def test_encoded_dots_are_just_a_missing_name(tool: GrepTool) -> None:
    answer = run(tool, path="%2e%2e/root-evil")
    assert answer.evidence == [] and answer.counters["path_not_found"] == 1


def test_whole_root_search_never_returns_sibling_or_parent_bytes(tool: GrepTool) -> None:
    answer = run(tool)
    assert [e.location.path for e in answer.evidence] == ["docs/a.md"]
    assert SECRET not in returned_text(answer)
