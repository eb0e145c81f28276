"""``arr index`` reads the papers grep will search: the first search after it reads none of
them (it used to read them under its own deadline, answering ``views_not_ready`` and partial
until a later search had read them all)."""

from __future__ import annotations

import json
from pathlib import Path

from arr.models import ToolCall
from arr.tools.grep import GrepTool
from tests.conftest import SCOPE_A, file_workspace
from tests.readers_fixtures import pdf_bytes


def test_a_build_leaves_every_reader_file_known_to_the_first_search(tmp_path: Path) -> None:
    ws = file_workspace(tmp_path, {"a": SCOPE_A}, {"notes/x.md": "nothing\n"})
    for n in range(6):
        lines = [f"paper {n} page {p} mentions zygomorphic{n}" for p in range(3)]
        (ws.root / "a" / f"paper{n}.pdf").write_bytes(pdf_bytes([lines] * 3))
    GrepTool("grep", ws).build(SCOPE_A)
    known = json.loads(next(ws.index_dir.rglob("known.json")).read_text())
    assert sorted(row[1] for row in known["rows"]) == [f"paper{n}.pdf" for n in range(6)]
    answer = GrepTool("grep", ws, deadline_ms=200).retrieve(
        ToolCall(tool="grep", query="zygomorphic3"), SCOPE_A
    )
    assert "views_not_ready" not in answer.counters
    assert [e.location.path for e in answer.evidence][:1] == ["paper3.pdf"]
