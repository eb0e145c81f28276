"""More real-world PDF shapes (issue 42: "a test corpus of real-world PDF shapes"): scanned pages
inside a text PDF, landscape slides, a book with front matter. Each made by reportlab the way
its producer lays it out, each read through the reader and found through bm25."""

from __future__ import annotations

from pathlib import Path

from arr.models import ToolCall
from arr.readers.pdf import PdfReader
from arr.tools.bm25 import BM25Tool
from tests.conftest import SCOPE_A, file_workspace
from tests.readers_fixtures import sized_pdf_bytes, write

READER = PdfReader()


def body(topic: str, lines: int = 25) -> list[tuple[float, str]]:
    return [
        (10.0, f"Line {n} of the text on {topic}, with words enough to read.") for n in range(lines)
    ]


def test_scanned_pages_inside_a_text_pdf_leave_the_text_pages_found(tmp_path: Path) -> None:
    first = [(18.0, "Sensor drift in field deployments"), *body("sensor drift")]
    third = [(10.0, "Calibration against a reference station fixes the drift."),
             *body("calibration")]  # fmt: skip
    raw = sized_pdf_bytes([first, None, third, None])
    view = READER.read(raw)
    assert [u.anchor for u in view.units] == ["page=1", "page=3"]  # the scans hold no text
    ws = file_workspace(tmp_path, {"a": SCOPE_A}, {"notes.md": "unrelated\n"})
    write(ws.root / "a" / "drift.pdf", raw)
    tool = BM25Tool("bm25", ws)
    tool.build(SCOPE_A)
    found = tool.retrieve(ToolCall(tool="bm25", query="reference station calibration"), SCOPE_A)
    assert found[0].location.anchor == "page=3"


def test_landscape_slides_are_titled_slide_by_slide() -> None:
    from reportlab.lib.pagesizes import A4, landscape

    slides = [
        [(28.0, "Contrastive pretraining"), (18.0, "Two views of one image"), (18.0, "InfoNCE")],
        [(28.0, "Results on ImageNet"), (18.0, "Linear probe 76.5%"), (18.0, "Fine-tune 82%")],
        [(28.0, "Limitations"), (18.0, "Batch size matters"), (18.0, "Augmentations matter")],
    ]
    view = READER.read(sized_pdf_bytes(slides, landscape(A4), foot=["1", "2", "3"]))
    assert [u.title for u in view.units] == [
        "Contrastive pretraining", "Results on ImageNet", "Limitations"
    ]  # fmt: skip
    text = "\n".join(view.lines)
    assert "Linear probe 76.5%" in text and "Augmentations matter" in text  # one-line slides


def test_a_books_front_matter_and_chapters_stay_one_book() -> None:
    pages = [
        [(24.0, "Probabilistic Machine Learning"), (14.0, "Kevin Murphy"), (12.0, "2022"),
         *body("the title page", 3)],
        [(18.0, "Contents"), *[(10.0, f"{n} Chapter {n} . . . . . {n * 20}") for n in range(1, 9)]],
        [(18.0, "Preface"), *body("why this book")],
        [(20.0, "1 Introduction"), *body("what learning is")],
        body("supervised learning"),
        [(20.0, "2 Probability"), *body("random variables")],
    ]  # fmt: skip
    view = READER.read(sized_pdf_bytes(pages, foot=["", "ii", "iii", "1", "2", "3"]))
    assert view.title == "Probabilistic Machine Learning"
    assert {u.citation.rsplit(",", 1)[0] for u in view.units if u.citation} == {"Murphy 2022"}
    assert len([u for u in view.units if u.citation]) == 6  # every page the book's
    assert [u.title for u in view.units][3:] == [
        "1 Introduction",
        "1 Introduction",
        "2 Probability",
    ]
    assert not any(line.strip() in {"ii", "iii"} for line in view.lines)  # roman page numbers
