"""A collection whose index files Chroma cannot load (its HNSW header damaged) is repaired by a
plain ``arr index``: the build rebuilds it from the sources, beside it, and says so; before,
every search was down and only ``arr index rebuild=true`` repaired it (issue 62). Each step
runs in a process of its own, as a user's commands do: Chroma keeps a loaded index in the
process (its native side too), so only a new process reads the damaged file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
NOTES = 1_500  # above Chroma's sync threshold (1,000): its HNSW files are written and read
STEP = """
import json, sys
from pathlib import Path
from arr.models import QueryPlan
from tests.conftest import SCOPE_A, make_router
from tests.integration.test_vector_tool import make_tool, workspace

step, folder = sys.argv[1], Path(sys.argv[2])
ws = workspace(folder, {"a": SCOPE_A})
if step == "notes":
    for i in range(int(sys.argv[3])):
        path = Path(ws.root) / "a" / "notes" / f"n{i}.md"
        path.write_text(f"note {i} on warmup and loss spikes\\n" * 3)
elif step == "index":
    manifest = make_tool(ws).build(SCOPE_A)
    print(json.dumps({k: manifest.get(k) for k in ("embedded", "repaired")}))
else:  # a search: Chroma itself read, not the snapshot
    tool = make_tool(ws)
    tool.store.snapshots = False
    plan = {"tool_rounds": [{"calls": [{"tool": "vector", "query": "warmup"}]}]}
    result = make_router(tool).search("warmup", SCOPE_A, plan=QueryPlan.model_validate(plan))
    print(json.dumps([len(result.evidence), [d.code for d in result.degradations]]))
"""


def run(*args: str) -> object:
    done = subprocess.run(
        [sys.executable, "-c", STEP, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1]) if args[0] != "notes" else None


def test_a_damaged_hnsw_header_is_repaired_by_a_plain_build(tmp_path: Path) -> None:
    folder = str(tmp_path / "ws")
    run("notes", folder, str(NOTES))
    assert run("index", folder)["embedded"] >= NOTES  # type: ignore[index]
    found, degradations = run("search", folder)  # type: ignore[misc]
    assert found and not degradations
    headers = list((tmp_path / "ws").rglob("header.bin"))
    assert headers, "Chroma wrote no HNSW files: the test would prove nothing"
    for header in headers:
        header.write_bytes(bytes(b ^ 0xFF for b in header.read_bytes()))
    found, degradations = run("search", folder)  # type: ignore[misc]
    assert not found and degradations  # down: a refresh before a search does not rebuild
    repaired = run("index", folder)  # arr index, nothing changed in the tree
    assert "hnsw" in str(repaired["repaired"]).lower()  # type: ignore[index]
    assert repaired["embedded"] >= NOTES  # type: ignore[index]
    found, degradations = run("search", folder)  # type: ignore[misc]
    assert found and not degradations
    assert run("index", folder) == {"embedded": 0, "repaired": None}  # sound again
