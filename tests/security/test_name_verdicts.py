"""Names judged by an earlier process (arr.safety.name_verdicts): a kept verdict withholds what
the judge withholds, holds no name in clear, is void under another judge or when damaged, and
never replaces the audit key's check."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from arr.safety import name_verdicts, rules

TOKEN_NAME = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8" + ".txt"  # a GitHub token's shape
CLEAN_NAME = "texlive-doc__latex__base__usrguide.pdf"  # a run of 16: the full judge


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    name_verdicts.forget()
    rules._name_verdict.cache_clear()
    yield
    name_verdicts.forget()
    rules._name_verdict.cache_clear()


def new_process() -> None:
    """What a new process knows: nothing but the files."""
    name_verdicts.forget()
    rules._name_verdict.cache_clear()


def test_verdicts_are_kept_and_read_by_the_next_process(tmp_path: Path) -> None:
    with name_verdicts.kept(tmp_path):
        assert rules.name_holds_credential(TOKEN_NAME)
        assert not rules.name_holds_credential(CLEAN_NAME)
    text = (tmp_path / name_verdicts.FILE).read_text()
    assert "ghp_" not in text and "usrguide" not in text  # keyed hashes, no name in clear
    new_process()
    with name_verdicts.kept(tmp_path):
        assert name_verdicts.known(TOKEN_NAME) is True
        assert name_verdicts.known(CLEAN_NAME) is False
        assert rules.name_holds_credential(TOKEN_NAME)
        assert not rules.name_holds_credential(CLEAN_NAME)


def test_a_kept_clean_name_is_still_asked_for_the_audit_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key_hex = "0f" * 32
    named = f"backup-{key_hex}.txt"
    monkeypatch.setenv("ARR_AUDIT_KEY", str(tmp_path / "no-key-yet"))
    with name_verdicts.kept(tmp_path):
        assert not rules.name_holds_credential(named)
    new_process()
    key = tmp_path / "audit.key"
    key.write_text(key_hex)
    monkeypatch.setenv("ARR_AUDIT_KEY", str(key))
    with name_verdicts.kept(tmp_path):
        assert name_verdicts.known(named) is False
        assert rules.name_holds_credential(named)


def test_another_judges_verdicts_are_void(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with name_verdicts.kept(tmp_path):
        rules.name_holds_credential(TOKEN_NAME)
    new_process()
    monkeypatch.setattr(name_verdicts, "judge_digest", lambda: b"another judge".ljust(32, b"."))
    with name_verdicts.kept(tmp_path):
        assert name_verdicts.known(TOKEN_NAME) is None
        assert rules.name_holds_credential(TOKEN_NAME)  # judged anew


@pytest.mark.parametrize("damage", [b"{not json", b"[]", b'{"judge": 3}', b"\x00" * 40])
def test_a_damaged_file_is_judged_anew(tmp_path: Path, damage: bytes) -> None:
    (tmp_path / name_verdicts.FILE).write_bytes(damage)
    with name_verdicts.kept(tmp_path):
        assert rules.name_holds_credential(TOKEN_NAME)
    kept = json.loads((tmp_path / name_verdicts.FILE).read_text())  # written anew, whole
    assert kept["judge"] == name_verdicts.judge_digest().hex() and kept["held"]


def test_a_folder_never_indexed_gets_no_file(tmp_path: Path) -> None:
    missing = tmp_path / "not-indexed"
    with name_verdicts.kept(missing):
        rules.name_holds_credential(TOKEN_NAME)
    assert not missing.exists()


def test_a_workspace_walk_keeps_its_names(tmp_path: Path) -> None:
    from arr.models import ScopeKey
    from tests.conftest import file_workspace

    scope = ScopeKey(
        team_id="t", project_id="p", repository="r", branch="main", experiment_environment="e"
    )
    workspace = file_workspace(tmp_path, {"a": scope}, {CLEAN_NAME: "text", TOKEN_NAME: "x"})
    workspace.index_dir.mkdir(parents=True)
    shown = [f.path for f in workspace.source_files(scope)]
    assert any(p.endswith(CLEAN_NAME) for p in shown)
    assert not any("ghp_" in p for p in shown)
    new_process()
    again = [f.path for f in workspace.source_files(scope)]
    assert again == shown and (workspace.index_dir / name_verdicts.FILE).is_file()
    assert name_verdicts.known(TOKEN_NAME) is True
