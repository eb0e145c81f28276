"""Papers, notebooks, manuscripts and references, read by their readers (arr.readers) through
every channel: real PDFs (reportlab, pypdf), real notebooks (nbformat), real LaTeX and BibTeX,
bm25 and grep as the Router runs them. Before the readers a PDF was skipped as binary and a
notebook indexed as raw JSON: each test here fails on that code."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

import pytest

from arr.models import ToolCall
from arr.readers import Readers
from arr.readers.view import EXTRACT_TIMEOUT, Unreadable
from arr.tools.bm25 import BM25Tool
from arr.tools.grep import GrepTool
from arr.workspace.sources import chunk_lines
from arr.workspace.workspace import Workspace
from tests.conftest import SCOPE_A, file_workspace, lexical_router
from tests.machine_speed import grace_s
from tests.readers_fixtures import (
    PNG_B64,
    encrypted,
    notebook_bytes,
    pdf_bytes,
    scan_pdf_bytes,
    write,
)

PAPER = [
    ["Attention Is Not Explanation", "We study attention weights in recurrent models."],
    ["Results", "Attention weights correlate poorly with gradient-based importance."],
    ["Discussion", "Counterfactual attention distributions yield equivalent predictions."],
]


def workspace(tmp_path: Path, **limits: object) -> Workspace:
    ws = file_workspace(tmp_path, {"a": SCOPE_A}, {"notes.md": "unrelated note\n"})
    return Workspace.model_validate({**ws.model_dump(), **limits})


def root(ws: Workspace) -> Path:
    return ws.root / "a"


def bm25(ws: Workspace, query: str) -> list:
    tool = BM25Tool("bm25", ws)
    tool.build(SCOPE_A)
    return tool.retrieve(ToolCall(tool="bm25", query=query), SCOPE_A)


def grep(ws: Workspace, query: str):  # type: ignore[no-untyped-def]
    return GrepTool("grep", ws).retrieve(ToolCall(tool="grep", query=query), SCOPE_A)


def test_a_pdf_is_found_by_page_with_its_title_in_bm25_and_grep(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    write(root(ws) / "papers" / "jain.pdf", pdf_bytes(PAPER, title="Attention Is Not Explanation"))
    found = bm25(ws, "counterfactual attention distributions")
    first = found[0].location
    assert (first.path, first.anchor, first.start_line) == ("papers/jain.pdf", "page=3", None)
    assert first.render() == "papers/jain.pdf p. 3" and first.ref() == "papers/jain.pdf#page=3"
    assert first.title == "Attention Is Not Explanation"
    assert found[0].id == "doc:papers/jain.pdf#page=3"
    lines = grep(ws, "correlate poorly with gradient").evidence
    assert lines and lines[0].location.anchor == "page=2" and lines[0].location.start_line is None
    assert "correlate poorly" in lines[0].snippet
    assert lines[0].place() == "doc:papers/jain.pdf#page=2"  # one place with bm25's page


def test_page_numbers_are_not_content_and_ligatures_fold(tmp_path: Path) -> None:
    from arr.readers.pdf_text import clean_page

    ws = workspace(tmp_path)
    pages = [["The first finding was significant."], ["Second page text."]]
    write(root(ws) / "p.pdf", pdf_bytes(pages))
    view = ws.readers.view("p.pdf", (root(ws) / "p.pdf").read_bytes())
    assert view.lines == ("The first finding was significant.", "Second page text.")  # no "1"
    # PDFium's text as pdflatex's fonts give it: ligatures, a soft hyphen, a hyphen at a line end
    raw = (
        "The \ufb01rst signi\ufb01cant e\ufb00ect of Qual\ufffeity and regu-\r\n"
        "larisation, 43.3-\r\n46.2"
    )
    assert clean_page(raw) == [
        "The first significant effect of Quality and regularisation, 43.3-",
        "46.2",
    ]


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("locked.pdf", lambda: encrypted(pdf_bytes(PAPER)), "pdf_encrypted"),
        ("scan.pdf", scan_pdf_bytes, "no_text"),
        ("cut.pdf", lambda: pdf_bytes(PAPER)[:700], "unreadable"),
        ("fake.pdf", lambda: b"<html>not a pdf</html>", "unreadable"),
        ("cut.ipynb", lambda: notebook_bytes()[:200], "unreadable"),
        ("deep.ipynb", lambda: b"[" * 200_000 + b"]" * 200_000, "unreadable"),
        ("secret.pdf", lambda: pdf_bytes([["aws_secret = 'AKIAIOSFODNN7EXAMPLE'"]]), "credential"),
    ],
)
def test_a_bad_file_is_a_named_skip_in_every_channel(
    tmp_path: Path, name: str, data, reason: str
) -> None:  # type: ignore[no-untyped-def]
    ws = workspace(tmp_path)
    write(root(ws) / name, data())
    started = time.monotonic()
    tool = BM25Tool("bm25", ws)
    manifest = tool.build(SCOPE_A)
    assert manifest["skipped"].get(reason) == 1, manifest["skipped"]
    answer = grep(ws, "attention")
    assert answer.counters.get(f"skipped_{reason}") == 1, answer.counters
    assert time.monotonic() - started < grace_s(30, at_most=120)


def test_page_cap_size_cap_and_time_budget_are_named(tmp_path: Path) -> None:
    ws = workspace(tmp_path, max_pdf_pages=2, max_pdf_bytes=3_000_000)
    write(root(ws) / "long.pdf", pdf_bytes(PAPER))
    write(root(ws) / "huge.pdf", pdf_bytes(PAPER) + b"%" * 3_000_000)
    skipped = BM25Tool("bm25", ws).build(SCOPE_A)["skipped"]
    assert skipped.get("pdf_too_many_pages") == 1 and skipped.get("oversize") == 1
    # a paper bigger than the text cap (2 MB) is not dropped by it
    big = workspace(tmp_path / "big")
    write(root(big) / "big.pdf", pdf_bytes(PAPER) + b"\n%" + b"x" * 2_500_000)
    assert bm25(big, "counterfactual attention")[0].location.path == "big.pdf"
    slow = workspace(tmp_path / "slow", extract_timeout_s=1e-6)
    write(root(slow) / "a.pdf", pdf_bytes(PAPER))
    assert BM25Tool("bm25", slow).build(SCOPE_A)["skipped"].get(EXTRACT_TIMEOUT) == 1


def test_a_hung_reader_is_killed_at_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker that never answers (a decompression bomb, a 5,000-page scan) is killed after
    the per-file budget; the next file gets a fresh worker."""
    import subprocess

    from arr.readers import guard as guard_module

    guard = guard_module.Guard(timeout_s=0.5)
    real = guard_module._Worker.__init__

    def hung(self, memory_mb: int) -> None:  # type: ignore[no-untyped-def]
        self.memory_mb, self.peak_kb = memory_mb, 0
        self.process = subprocess.Popen(
            ["sleep", "60"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    monkeypatch.setattr(guard_module._Worker, "__init__", hung)
    started = time.monotonic()
    with pytest.raises(Unreadable) as caught:
        guard.read(".pdf", pdf_bytes(PAPER))
    # the worker hangs 60 s: cut at its 0.5 s budget
    assert caught.value.reason == EXTRACT_TIMEOUT
    assert time.monotonic() - started < grace_s(5, at_most=30)
    monkeypatch.setattr(guard_module._Worker, "__init__", real)
    # a fresh worker (its start: Python and the PDF stack) within a budget that holds on a
    # loaded machine; the cut above was at 0.5 s
    guard.timeout_s = grace_s(5.0, at_most=60)
    assert len(guard.read(".pdf", pdf_bytes(PAPER)).units) == 3
    guard.close()


def test_a_notebook_is_read_by_cell_without_any_payload(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    raw = notebook_bytes()
    write(root(ws) / "nb" / "sweep.ipynb", raw)
    found = bm25(ws, "ZeroDivisionError calibrate_temperature")
    first = found[0].location
    assert (first.path, first.anchor) == ("nb/sweep.ipynb", "cell=4")
    assert first.render() == "nb/sweep.ipynb cell 4" and first.title == "Failure"
    stream = bm25(ws, "final loss")[0]
    assert stream.location.anchor == "cell=1" and "0.4213" in stream.full_text()
    lines = grep(ws, "division by zero in calibrate_temperature").evidence
    assert lines and all(e.location.anchor == "cell=4" for e in lines)
    # nothing of the image, the HTML or the inline data URI, in any index file or item
    for path in (tmp_path / "idx").rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert PNG_B64[:24].encode() not in data and b"plotly" not in data, path
    items = bm25(ws, "plot losses figure inline failure")
    assert all(PNG_B64[:24] not in e.full_text() for e in items)
    # the raw JSON cut by lines, as before, against one item per cell: >= 5x fewer
    before = list(chunk_lines("sweep.ipynb", raw.decode(), 40))
    source = next(f for f in ws.source_files(SCOPE_A) if f.label == "nb/sweep.ipynb")
    after = ws.file_documents(source)
    assert [d.anchor for d in after] == ["cell=0", "cell=1", "cell=2", "cell=3", "cell=4"]
    before_chars = sum(len(d.text) for d in before)
    assert before_chars >= 5 * sum(len(d.text) for d in after)


def test_latex_sections_and_bibtex_entries(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    write(
        root(ws) / "paper" / "main.tex",
        b"\\documentclass{article}\n\\title{Warmup}\n\\begin{document}\n"
        b"% reviewer: this whole section is weak\n"
        b"\\section{Introduction}\nLarge batches diverge without warmup \\cite{goyal2017}.\n"
        b"\\section{Ablation of the schedule}\nWe remove the cosine decay.\n\\end{document}\n",
    )
    write(
        root(ws) / "paper" / "refs.bib",
        b'@string{ax = "arXiv"}\n@article{goyal2017,\n'
        b"  author = {Goyal, Priya and Dollar, Piotr},\n"
        b"  title = {Accurate, Large Minibatch {SGD}},\n  year = {2017},\n}\n\n"
        b"@inproceedings{loshchilov2016,\n  author = {Loshchilov, Ilya},\n"
        b'  title = "SGDR: Warm Restarts",\n  year = 2016\n}\n',
    )
    section = bm25(ws, "ablation of the schedule")[0]
    assert section.location.title == "Ablation of the schedule"
    assert (section.location.start_line, section.location.path) == (7, "paper/main.tex")
    entry = bm25(ws, "Goyal 2017")
    places = [e.location.ref() for e in entry[:2]]
    assert "paper/refs.bib#goyal2017" in places and any("main.tex" in p for p in places)
    bib = next(e for e in entry if e.location.anchor == "goyal2017")
    assert bib.location.title == "Accurate, Large Minibatch SGD" and bib.location.start_line == 2
    assert bib.location.citation == "Goyal & Dollar 2017"  # as a researcher pastes it
    from arr.readers.bib_records import records
    from arr.readers.bibtex import entry_citation

    (record,) = records("@misc{k, author={Loshchilov, Ilya and others}, year=2016}")
    assert entry_citation(record) == (
        "Loshchilov et al. 2016"  # BibTeX's "and others": more authors, not one named Others
    )
    # comments are never indexed nor shown (bm25 or grep)
    assert not any("reviewer" in e.full_text() for e in bm25(ws, "reviewer weak section"))
    assert not any("reviewer" in e.snippet for e in grep(ws, "reviewer whole weak").evidence)
    cited = grep(ws, "cosine decay").evidence[0]
    assert (cited.location.start_line, cited.location.title) == (8, "Ablation of the schedule")


def test_views_are_made_once_per_file_version(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    path = write(root(ws) / "p.pdf", pdf_bytes(PAPER))
    BM25Tool("bm25", ws).build(SCOPE_A)
    cached = sorted((tmp_path / "idx" / "text").rglob("*.json"))
    assert len(cached) == 1
    again = Readers(tmp_path / "idx" / "text")  # a new process: read from the cache
    view = again.view("p.pdf", path.read_bytes())
    assert json.loads(cached[0].read_text())["units"][0][2] == "page=1" and view.units
    write(path, pdf_bytes([["A new version of the paper."]]))
    skipped: Counter[str] = Counter()
    source = next(f for f in ws.source_files(SCOPE_A) if f.label == "p.pdf")
    docs = ws.file_documents(source, skipped=skipped)
    assert [d.text for d in docs] == ["A new version of the paper."]


def test_a_readers_version_bump_reads_the_indexes_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The indexes' freshness follows every reader's version and the walls' (one place to bump:
    pdf-9 and pdf-10 were bumped in arr.readers alone and bm25 kept serving old titles)."""
    from arr.readers import VERSIONS, WALLS_VERSION
    from arr.tools.bm25 import tool as bm25_tool
    from arr.workspace import sources

    assert all(v in sources.READERS_VERSION for v in (*VERSIONS.values(), WALLS_VERSION))
    ws = workspace(tmp_path)
    write(root(ws) / "p.pdf", pdf_bytes(PAPER))
    first = BM25Tool("bm25", ws).build(SCOPE_A)
    assert first["files_reread"] == first["files"] == 2
    assert BM25Tool("bm25", ws).build(SCOPE_A)["files_reread"] == 0  # nothing new: kept
    bumped = sources.READERS_VERSION + "+next"
    monkeypatch.setattr(bm25_tool, "READERS_VERSION", bumped)
    monkeypatch.setattr(sources, "READERS_VERSION", bumped)
    assert BM25Tool("bm25", ws).build(SCOPE_A)["files_reread"] == 2  # read again, not copied


def test_through_the_router_each_question_finds_its_page_cell_entry_or_section(
    tmp_path: Path,
) -> None:
    """A paper's phrase, a notebook's error message, an author-year and a section heading,
    asked through the Router (bm25 and grep fused, reranked, places merged): the page, cell,
    entry or section comes first, once, with its location and title in the JSON."""
    ws = workspace(tmp_path)
    write(root(ws) / "papers" / "jain.pdf", pdf_bytes(PAPER, title="Attention Is Not Explanation"))
    write(root(ws) / "nb" / "sweep.ipynb", notebook_bytes())
    write(
        root(ws) / "paper" / "main.tex",
        b"\\section{Introduction}\nWe follow \\cite{goyal2017}.\n"
        b"\\section{Ablation of the warmup length}\nShorter warmup diverges.\n",
    )
    write(
        root(ws) / "paper" / "refs.bib",
        b"@article{goyal2017,\n  author = {Goyal, Priya},\n  title = {Large Minibatch SGD},\n"
        b"  year = {2017}\n}\n",
    )
    router = lexical_router(ws)
    for query, ref in (
        ("counterfactual attention distributions yield equivalent", "papers/jain.pdf#page=3"),
        ("division by zero in calibrate_temperature", "nb/sweep.ipynb#cell=4"),
        ("Goyal 2017", "paper/refs.bib#goyal2017"),
        ("ablation of the warmup length", "paper/main.tex#L3-4"),
    ):
        result = router.search(query, SCOPE_A)
        refs = [e.location.ref() for e in result.evidence]
        assert refs[0] == ref, (query, refs)
        assert len(set(refs)) == len(refs)  # one item per place
        assert result.scope_leak_count == 0
        shown = json.loads(result.model_dump_json())["evidence"][0]["location"]
        assert shown["anchor"] == (ref.split("#")[1] if "#L" not in ref else None)
        assert PNG_B64[:24] not in result.model_dump_json()
