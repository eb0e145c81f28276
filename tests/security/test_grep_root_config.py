"""Trusted roots are checked when the config loads: no '/', system dirs, '..' or missing dirs."""

from __future__ import annotations

from pathlib import Path

import pytest

from arr.errors import WorkspaceError
from arr.safety.rules import unsafe_root_reason
from arr.workspace.workspace import Workspace
from tests.conftest import SCOPE_A


def workspace(root: Path, roots: list[str]) -> Workspace:
    return Workspace(
        name="t",
        root=root,
        index_dir=root / "idx",
        memory_db=root / "m.sqlite3",
        scopes={"a": {"key": SCOPE_A, "roots": roots}},
    )


@pytest.mark.parametrize(
    "root, message",
    [
        pytest.param("/", "filesystem root", id="slash"),
        pytest.param("/proc", "system directory", id="proc"),
        pytest.param("/proc/self", "system directory", id="proc-self"),
        pytest.param("/dev", "system directory", id="dev"),
        pytest.param("/sys", "system directory", id="sys"),
        pytest.param("/etc", "system directory", id="etc"),
        pytest.param("", "non-empty", id="empty"),
        pytest.param("../outside", "without '..'", id="dotdot"),
    ],
)
def test_unsafe_roots_are_refused(tmp_path: Path, root: str, message: str) -> None:
    with pytest.raises(WorkspaceError, match=message):
        workspace(tmp_path, [root]).check()


def test_a_missing_root_stops_only_its_scope_when_used(tmp_path: Path) -> None:
    """A root deleted since it was added: the workspace loads (other scopes answer); using
    that scope raises with the fixed code the Router records (scope_root_missing)."""
    built = workspace(tmp_path, ["missing-dir"])
    built.check()
    with pytest.raises(WorkspaceError, match="not a readable directory") as raised:
        built.root_paths(built.scopes["a"])
    assert raised.value.code == "scope_root_missing"


def test_relative_roots_must_resolve_to_absolute() -> None:
    assert unsafe_root_reason("relative/dir") == "root must be an absolute path"
    assert unsafe_root_reason("/procfs-lookalike") is None


def test_home_folder_and_its_ancestors_are_refused(tmp_path, monkeypatch) -> None:
    """Decision (README): home or any folder holding it is refused; a project below is fine;
    a sibling whose name merely starts like home is not confused with it."""
    home = tmp_path / "home" / "ada"
    (home / "projects" / "thesis").mkdir(parents=True)
    (tmp_path / "home" / "ada2").mkdir()
    monkeypatch.setenv("HOME", str(home))
    for refused in (home, tmp_path / "home", tmp_path):
        reason = unsafe_root_reason(str(refused))
        assert reason is not None and "home folder" in reason, refused
    assert unsafe_root_reason(str(home / "projects" / "thesis")) is None
    assert unsafe_root_reason(str(tmp_path / "home" / "ada2")) is None


@pytest.mark.parametrize("inside", [".arr/outputs", ".git/hooks", "notes/.ssh"])
def test_a_root_inside_a_folder_withheld_by_name_is_refused(tmp_path: Path, inside: str) -> None:
    """Every file below would be withheld by name, and `.arr` holds every scope's indexed text
    (run folders included): refused when the config loads, not searched."""
    (tmp_path / inside).mkdir(parents=True)
    with pytest.raises(WorkspaceError, match="withholds by name"):
        workspace(tmp_path, [inside]).check()
    assert unsafe_root_reason(str(tmp_path / inside)) is not None
    assert unsafe_root_reason(str(tmp_path / "notes")) is None
