"""The audit key is never indexed or shown, wherever it lies (issue 62): a copy of its hex in a
scope's root (a backup, a note) is withheld as a credential by every content judge, by the grep
channel and the index alike, in either case and in a file's name; a snippet holding it is
redacted. Without a key nothing is withheld for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from arr.memory import audit_key
from arr.safety.file_rule import content_reason
from arr.safety.rules import credential_kind, is_sensitive_name, redact_credentials
from arr.tools.grep import GrepTool
from arr.workspace.sources import SkipLog, walk_files
from tests.grep_fixtures import MARK, grep_workspace, returned_text, run


@pytest.fixture
def key_hex(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(audit_key.KEY_ENV, str(tmp_path / "keys" / "audit.key"))
    assert audit_key.load(create=True) is not None
    return audit_key.key_path().read_text().strip()


def test_a_copy_of_the_key_is_a_credential_in_either_case(key_hex: str) -> None:
    for written in (key_hex, key_hex.upper()):
        assert credential_kind(f"backup: {written}\n".encode()) == "audit_key"
        assert content_reason(f"{MARK} {written}\n".encode()) == "credential"
        shown, count = redact_credentials(f"the key is {written} (kept here)")
        assert count == 1 and written not in shown
    assert is_sensitive_name(f"keys/{key_hex}.txt")


def test_grep_and_the_walk_never_return_the_copy(tmp_path: Path, key_hex: str) -> None:
    ws = grep_workspace(tmp_path)
    (ws.root / "root" / "audit_key.txt").write_text(f"{MARK} {key_hex}\n")
    (ws.root / "root" / "notes.md").write_text(f"{MARK} ordinary notes\n")
    answer = run(GrepTool("grep", ws))
    assert [e.location.path for e in answer.evidence] == ["notes.md"]
    assert key_hex not in returned_text(answer)
    by_key = run(GrepTool("grep", ws), query=key_hex[:24])
    assert by_key.evidence == [] or key_hex[:24] not in returned_text(by_key)


def test_without_a_key_its_absence_withholds_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(audit_key.KEY_ENV, str(tmp_path / "none" / "audit.key"))
    digest = "0cc175b9c0f1b6a831c399e269772661" * 2
    assert credential_kind(f"sha256: {digest}\n".encode()) is None
    skipped = SkipLog()
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "sums.txt").write_text(f"{digest}  data.csv\n")
    assert [r for r, _, _ in walk_files(tmp_path / "root", 1_000_000, skipped)] == ["sums.txt"]
