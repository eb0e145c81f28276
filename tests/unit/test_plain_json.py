"""``--json`` on the commands that are not Hydra apps: ``init``, ``scope add/remove``, ``audit
head/verify`` answer with one JSON object, as ``search`` and ``scope list`` do."""

from __future__ import annotations

import json
from pathlib import Path

from arr.cli.plain_commands import run_plain
from arr.memory.store import ResearchMemoryStore


def said(capsys, *args: str, workspace: Path | None = None) -> dict:
    command, *rest = args
    assert run_plain(command, list(rest), str(workspace) if workspace else None) == 0
    return json.loads(capsys.readouterr().out)


def test_init_and_scopes_answer_in_json(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # roots are read from the current folder, as a shell gives them
    (tmp_path / "src").mkdir()
    created = said(capsys, "init", "--json", workspace=tmp_path)
    assert Path(created["created"]).is_file() and "arr scope add" in created["next"]
    added = said(capsys, "scope", "add", "--json", "code", "src", workspace=tmp_path)
    assert added["added"] == "code" and added["roots"] == ["src"]
    assert set(added["key"]) == {
        "team_id", "project_id", "repository", "branch", "experiment_environment"
    }  # fmt: skip
    listed = said(capsys, "scope", "list", "--json", workspace=tmp_path)
    assert [row["name"] for row in listed["scopes"]] == ["code"]
    assert said(capsys, "scope", "remove", "code", "--json", workspace=tmp_path) == {
        "removed": "code"
    }


def test_audit_answers_in_json(tmp_path: Path, capsys) -> None:
    said(capsys, "init", "--json", workspace=tmp_path)
    db = tmp_path / "memory.sqlite3"
    ResearchMemoryStore(db).initialise()
    heads = said(capsys, "audit", "head", f"db={db}", "--json", workspace=tmp_path)
    assert len(heads["heads"]) == 1 and str(db) in heads["heads"][0]
    verified = said(capsys, "audit", "--json", "verify", f"db={db}", workspace=tmp_path)
    assert verified["ok"] is True and "ok" in verified["report"][0]
