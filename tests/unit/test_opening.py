"""Where a researcher opens an item: the absolute path, a file:// URI (with #page=N for a PDF's
page) and, for a chunk of lines, the line that matches the query (not the chunk's first)."""

from __future__ import annotations

from pathlib import Path

from arr.cli.render import file_locator
from arr.models import EvidenceChunk, Location
from arr.workspace.opening import add_openings, matching_line, opening
from tests.conftest import SCOPE_A

CODE = "\n".join(["import torch", "", "class Model:", "    pass", "", "def train_step(batch):"])


def item(location: Location, text: str = "x") -> EvidenceChunk:
    chunk = EvidenceChunk(
        id="i", scope=SCOPE_A, channel="bm25", location=location, snippet=text[:50], score=1.0
    )
    return chunk.with_text(text)


def test_a_code_chunk_names_the_line_that_matches() -> None:
    chunk = item(Location(path="src/model.py", start_line=241, end_line=246), CODE)
    assert matching_line(chunk, "train_step") == 246
    assert matching_line(chunk, "zebra") is None
    assert matching_line(item(Location(path="p.pdf", anchor="page=3"), CODE), "train_step") is None
    locate = file_locator([Path("/w/code")], cwd=Path("/elsewhere"), query="train_step")
    assert locate(chunk) == "/w/code/src/model.py:246 (lines 241-246)"


def test_a_pdf_page_opens_at_its_page_and_a_memory_nowhere(tmp_path: Path) -> None:
    root = tmp_path / "papers folder"
    page = item(Location(path="raft.pdf", anchor="page=7"))
    found = opening([root], page)
    assert found["absolute"] == str(root / "raft.pdf")
    assert found["uri"] == (root / "raft.pdf").as_uri() + "#page=7"
    assert "%20" in found["uri"]  # the space is escaped: a URI a viewer takes as it is
    assert opening([root], item(Location(memory_id="m1"))) == {}
    cell = opening([root], item(Location(path="nb.ipynb", anchor="cell=2")))
    assert cell["uri"] == (root / "nb.ipynb").as_uri()  # no fragment a viewer would not know


def test_two_roots_resolve_by_the_label_and_json_gets_every_key(tmp_path: Path) -> None:
    roots = [tmp_path / "code", tmp_path / "notes"]
    chunk = item(Location(path="notes/a.md", start_line=1, end_line=6), CODE)
    answer = {"evidence": [{"location": chunk.location.model_dump()}]}
    add_openings(answer, [chunk], roots, "class Model")
    shown = answer["evidence"][0]["location"]
    assert shown["absolute"] == str(tmp_path / "notes" / "a.md") and shown["line"] == 3
    unknown = item(Location(path="other/a.md", start_line=1, end_line=1))
    assert opening(roots, unknown) == {}
