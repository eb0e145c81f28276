"""Symbolic links are never followed: files, dirs, chains, loops, dangling, inside or outside."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arr.safety.file_rule import read_path
from arr.tools.base import ChannelError
from arr.tools.grep import GrepTool
from tests.grep_fixtures import MARK, grep_workspace, returned_text, run

SECRET = "linked_secret_byte"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws_root = tmp_path / "ws" / "root"
    ws_root.mkdir(parents=True)
    (ws_root / "real.md").write_text(f"{MARK} real\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(f"{MARK} {SECRET}\n")
    (ws_root / "inner").mkdir()
    (ws_root / "inner" / "target.md").write_text(f"{MARK} inside target\n")
    os.symlink(outside / "secret.md", ws_root / "file_link.md")
    os.symlink(outside, ws_root / "dir_link")
    os.symlink(ws_root / "file_link.md", ws_root / "chain.md")
    os.symlink(ws_root / "loop_b", ws_root / "loop_a")
    os.symlink(ws_root / "loop_a", ws_root / "loop_b")
    os.symlink(tmp_path / "nowhere.md", ws_root / "dangling.md")
    os.symlink(ws_root / "inner" / "target.md", ws_root / "inside_link.md")
    return ws_root


def tool_for(tmp_path: Path) -> GrepTool:
    return GrepTool("grep", grep_workspace(tmp_path))


def test_links_are_not_followed_in_a_scan(tmp_path: Path, root: Path) -> None:
    answer = run(tool_for(tmp_path))
    paths = sorted(e.location.path for e in answer.evidence)
    assert paths == ["inner/target.md", "real.md"]  # the file itself, never through a link
    assert SECRET not in returned_text(answer)


@pytest.mark.parametrize(
    "sub_path",
    ["file_link.md", "dir_link", "dir_link/secret.md", "chain.md", "loop_a", "inside_link.md"],
)
def test_sub_path_through_a_link_is_refused(tmp_path: Path, root: Path, sub_path: str) -> None:
    with pytest.raises(ChannelError) as info:
        run(tool_for(tmp_path), path=sub_path)
    assert info.value.code == "path_symlink"


def test_dangling_link_sub_path(tmp_path: Path, root: Path) -> None:
    with pytest.raises(ChannelError) as info:
        run(tool_for(tmp_path), path="dangling.md")
    assert info.value.code == "path_symlink"


@pytest.mark.parametrize(
    "name", ["file_link.md", "chain.md", "loop_a", "dangling.md", "dir_link/secret.md"]
)
def test_verified_open_refuses_every_link(root: Path, name: str) -> None:
    content, reason = read_path(str(root), name, 10_000)
    assert content is None and reason == "link"


def test_root_that_is_a_link_resolves_and_is_checked(tmp_path: Path, root: Path) -> None:
    # A configured root that is itself a link is resolved once, at load; its target is the root.
    os.symlink(root, tmp_path / "ws" / "alias")
    ws = grep_workspace(tmp_path, name="alias")
    answer = run(GrepTool("grep", ws))
    assert sorted(e.location.path for e in answer.evidence) == ["inner/target.md", "real.md"]
