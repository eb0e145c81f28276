"""Names are text, through the ``arr`` command (issue 62): a file or folder named with a
credential, a secret-file name, a credential in a file and a broken notebook are each listed by
``arr index`` / ``arr skipped`` with their reason, never with the credential (text, JSON,
``index.json``, ``skipped.json``, search results); folders whose names merely end like a
secret file's (``answer_key``, ``comp_sci_fundamentals_and_history``) are searched by every
channel, grep included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.test_workspace_cli import arr

pytestmark = pytest.mark.slow

TOKEN = "ghp_" + "Xq7vR2nK9wP4xT1mB3cYa8LdE5fG6hJ0kM2n"
MARK = "zebrafinch"


def test_names_through_the_cli(tmp_path: Path) -> None:
    project = tmp_path / "project"
    notes = project / "notes"
    for folder in ("answer_key", "comp_sci_fundamentals_and_history", TOKEN):
        (notes / folder).mkdir(parents=True)
    (notes / "answer_key" / "week1.md").write_text(f"{MARK} answers of week one\n")
    (notes / "comp_sci_fundamentals_and_history" / "turing.md").write_text(f"{MARK} halting\n")
    (notes / TOKEN / "inner.md").write_text(f"{MARK} inside a token folder\n")
    (notes / f"run_{TOKEN}.md").write_text(f"{MARK} a token in the name\n")
    (notes / "deploy_key").write_text(f"{MARK} a key file\n")
    (notes / "leak.md").write_text(f"{MARK} token = {TOKEN}\n")
    (notes / "broken.ipynb").write_text(f"{TOKEN} is not JSON")
    assert arr("init", cwd=project).returncode == 0
    assert arr("scope", "add", "notes", "notes", cwd=project).returncode == 0
    built = arr("index", "--lexical", "progress=false", "--json", cwd=project)
    assert built.returncode == 0, built.stderr
    listed = arr("skipped", cwd=project)
    as_json = arr("skipped", "--json", cwd=project)
    found = arr("search", MARK, "scope=notes", "--json", cwd=project)
    grep = arr("search", MARK, "scope=notes", "tools=[grep]", "--json", cwd=project)
    stored = [p.read_text() for p in (project / ".arr").rglob("*.json")]
    everything = [built.stdout, built.stderr, listed.stdout, as_json.stdout, *stored]
    everything += [found.stdout, found.stderr, grep.stdout, grep.stderr]
    assert not [text for text in everything if TOKEN[8:24] in text]
    rows = {row["path"]: row["reason"] for row in json.loads(as_json.stdout)["notes"]}
    assert rows.get("deploy_key") == "sensitive_name" and rows.get("leak.md") == "credential"
    assert "broken.ipynb" in rows and sum("[REDACTED]" in p for p in rows) == 2
    for answer in (found, grep):
        assert answer.returncode == 0, answer.stderr
        paths = {e["location"]["path"] for e in json.loads(answer.stdout)["evidence"]}
        assert {"answer_key/week1.md", "comp_sci_fundamentals_and_history/turing.md"} <= paths
