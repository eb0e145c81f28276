"""Terminal control sequences in stored or indexed text never reach the terminal raw: text
output escapes them (as ripgrep and git do), JSON output keeps the text exact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arr.cli.terminal import terminal_safe
from tests.e2e.test_workspace_cli import arr

pytestmark = pytest.mark.slow

TITLE_CHANGE = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J"
C1_CSI = "\x9b2J"
BIDI = "\u202e"
RAW = (TITLE_CHANGE, CLEAR, "\x07", "\x9b", BIDI, "\r")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("a\x1b[2Jb", "a\\x1b[2Jb"),
        ("bell\x07", "bell\\x07"),
        ("csi\x9b1m", "csi\\x9b1m"),
        ("del\x7f", "del\\x7f"),
        ("cr\roverwrite", "cr\\x0doverwrite"),
        ("rtl\u202eabc", "rtl\\u202eabc"),
        ("lines\n\tstay", "lines\n\tstay"),
        ("ünïcode … ok", "ünïcode … ok"),
    ],
)
def test_terminal_safe_escapes_what_a_terminal_acts_on(text: str, shown: str) -> None:
    assert terminal_safe(text) == shown


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    (folder / "notes").mkdir(parents=True)
    (folder / "notes" / "evil.md").write_text(
        f"quokka {TITLE_CHANGE} habitat {CLEAR} notes {C1_CSI} {BIDI}reversed\n"
    )
    assert arr("init", "team_id=lab", "project_id=p", cwd=folder).returncode == 0
    assert arr("scope", "add", "n", "notes", cwd=folder).returncode == 0
    assert arr("index", "tools=[bm25]", "progress=false", cwd=folder).returncode == 0
    return folder


def test_text_output_escapes_and_json_stays_exact(workspace: Path) -> None:
    title = f"evil {TITLE_CHANGE}{CLEAR} title {C1_CSI}"
    added = arr("memory", "add", "id=m1", "scope=n", f"title={title}", "body=quokka", cwd=workspace)
    assert added.returncode == 0, added.stderr
    for command in (
        ("memory", "list"),
        ("memory", "show", "id=m1"),
        ("search", "query=quokka habitat", "scope=n", "tools=[bm25]"),
    ):
        done = arr(*command, cwd=workspace)
        assert done.returncode == 0, (command, done.stderr)
        assert not [c for c in RAW if c in done.stdout + done.stderr], (command, done.stdout)
        # shown escaped: \x1b in text, \u001b where the text form is JSON (memory show)
        assert any(e in done.stdout for e in ("\\x1b]0;pwned", "\\u001b]0;pwned")), done.stdout
    listed = json.loads(arr("memory", "list", "--json", cwd=workspace).stdout)
    assert listed["memories"][0]["title"] == title
    found = json.loads(
        arr(
            "search", "query=quokka habitat", "scope=n", "tools=[bm25]", "--json", cwd=workspace
        ).stdout
    )
    assert TITLE_CHANGE in found["evidence"][0]["snippet"]


def test_error_messages_escape_too(workspace: Path) -> None:
    done = arr("memory", "show", f"id=x{CLEAR}", cwd=workspace)
    assert done.returncode == 2 and CLEAR not in done.stderr and "\\x1b[2J" in done.stderr
