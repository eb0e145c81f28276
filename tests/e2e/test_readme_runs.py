"""The README's "Your own research" block, run exactly as written (no override added) in a new
folder holding a real source tree: every command exits 0, the JSON one prints JSON, and the
default scope answers the search that names none. (test_docs_run runs every other command of
the pages; test_docs_commands composes them against the packaged config.)"""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest

from tests.e2e.test_docs_commands import REPO
from tests.e2e.test_workspace_cli import arr

pytestmark = [pytest.mark.slow, pytest.mark.model]


def readme_block(title: str) -> list[str]:
    """The commands of the first bash block after the heading ``title`` (comments cut)."""
    text = (REPO / "README.md").read_text()
    block = text.split(f"## {title}", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    return [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]


def test_the_workspace_block_runs_as_written(tmp_path: Path) -> None:
    import bm25s

    shutil.copytree(
        Path(bm25s.__file__).parent, tmp_path / "src", ignore=shutil.ignore_patterns("__pycache__")
    )
    commands = readme_block("Your own research: a workspace in three commands")
    assert commands[:2] == ["arr init", "arr scope add code src"]
    for command in commands:
        words = shlex.split(command)
        assert words[0] == "arr", command
        done = arr(*words[1:], cwd=tmp_path)
        assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        assert "Traceback" not in done.stderr, command
        if "--json" in words:
            assert json.loads(done.stdout)["evidence"], command
    found = arr("search", "weight_mask", cwd=tmp_path)
    assert "scope: code" in found.stdout  # the default scope, named by nobody
