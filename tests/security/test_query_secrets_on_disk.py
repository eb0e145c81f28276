"""A credential pasted into a query is answered (the caller may see it echoed) but never
written to disk: the run folder's files hold it redacted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.test_workspace_cli import arr

pytestmark = pytest.mark.slow

TOKEN = "AKIAZ7Q4M2XK9PLW3RTB"
GITHUB = "ghp_R8x2Lq9ZkT4mW7vN3pY6sB1cD5fH0jK2aE9u"


def test_secret_shaped_query_is_redacted_in_the_run_folder(tmp_path: Path) -> None:
    folder = tmp_path / "project"
    (folder / "notes").mkdir(parents=True)
    (folder / "notes" / "a.md").write_text("quokka habitat notes\n")
    assert arr("init", cwd=folder).returncode == 0
    assert arr("scope", "add", "n", "notes", cwd=folder).returncode == 0
    assert arr("index", "tools=[bm25]", "progress=false", cwd=folder).returncode == 0
    query = f"quokka {TOKEN} token={GITHUB}"
    for extra in ((), ("--json",)):
        done = arr("search", f"query={query}", "scope=n", "tools=[bm25]", *extra, cwd=folder)
        assert done.returncode == 0, done.stderr
        assert TOKEN in done.stdout  # the answer to the caller may echo it
    written = [p for p in (folder / ".arr").rglob("*") if p.is_file()]
    assert any(p.name == "result.json" for p in written)
    for path in written:
        data = path.read_bytes()
        assert TOKEN.encode() not in data and GITHUB.encode() not in data, path
    result = json.loads(next(p for p in written if p.name == "result.json").read_text())
    assert result["query"].startswith("quokka [REDACTED]")
