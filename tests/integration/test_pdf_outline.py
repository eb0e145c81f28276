"""A PDF's outline names the works a volume collects and their page ranges (issue 42: "where a
PDF holds several papers (a new title run mid-file, the outline / bookmarks), their page
ranges"): each page is titled and cited by its own work, the pages of different works never
support each other, and a manual's or a book's bookmarks (chapters, sections) change nothing."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from arr.readers.outline import clean_title, work_titles
from arr.readers.pdf import PdfReader
from tests.machine_speed import grace_s
from tests.readers_fixtures import headed_pdf_bytes

READER = PdfReader()
BODY = [
    f"Body line {n} of this page, on replicated state machines and their logs." for n in range(25)
]


def titles(raw: bytes) -> list[str | None]:
    return [u.title for u in READER.read(raw).units]


def citations(raw: bytes) -> list[str | None]:
    return [u.citation for u in READER.read(raw).units]


PROCEEDINGS = [
    ("Workshop on Replicated Systems", ["Proceedings", "Contents", *BODY]),
    ("In Search of an Understandable Consensus Algorithm (Extended)",
     ["Diego Ongaro and John Ousterhout", "Stanford University", "June 2014", *BODY]),
    ("2 Replicated state machines", BODY),  # a section opening a page: the same paper
    ("Paxos Made Simple", ["Leslie Lamport", "1 November 2001", *BODY]),
    (None, BODY),
    ("Viewstamped Replication Revisited", ["Barbara Liskov and James Cowling", "July 2012", *BODY]),
    ("Index", BODY),
]  # fmt: skip
PROCEEDINGS_OUTLINE = [
    (0, "Front matter"),
    (1, "In Search of an Understandable Consensus Algorithm"),
    (3, "Paxos Made Simple"),
    (5, "Viewstamped Replication Revisited"),
    (6, "Index"),
]


def test_a_proceedings_volume_is_titled_and_cited_paper_by_paper_as_its_bookmarks_say() -> None:
    raw = headed_pdf_bytes(PROCEEDINGS, outline=PROCEEDINGS_OUTLINE)
    assert titles(raw) == [
        "Workshop on Replicated Systems",  # before every paper: its heading, as without outline
        "In Search of an Understandable Consensus Algorithm",
        "In Search of an Understandable Consensus Algorithm",  # the section stays in its paper
        "Paxos Made Simple",
        "Paxos Made Simple",
        "Viewstamped Replication Revisited",
        "Index",  # the Index bookmark ends the last paper; the page keeps its own heading
    ]
    assert citations(raw)[1:6] == [
        "Ongaro & Ousterhout 2014, p. 2",
        "Ongaro & Ousterhout 2014, p. 3",
        "Lamport 2001, p. 4",
        "Lamport 2001, p. 5",
        "Liskov & Cowling 2012, p. 6",
    ]


NEWS = [
    (
        "Research Notes, Issues 1-3",
        ["The Research Group", "Contents", "Issue 1 ... 2", "Issue 2 ... 3", *BODY],
    ),
    ("Research Notes", ["Issue 1, June 2019", *BODY]),
    ("Research Notes", ["Issue 2, December 2020", *BODY]),
    ("Shorter proofs", BODY),  # a section opening the issue's second page
    ("Research Notes", ["Issue 3, 2022", *BODY]),
]
NEWS_OUTLINE = [(0, "Contents"), (1, "Issue 1, 2019/06"), (2, "Issue 2, 2020/12"), (4, "Issue 3")]


def test_a_newsletters_collected_issues_are_titled_and_dated_issue_by_issue() -> None:
    raw = headed_pdf_bytes(NEWS, author="The Research Group", outline=NEWS_OUTLINE)
    assert titles(raw) == [
        "Research Notes, Issues 1-3",  # page 1 under the masthead: the volume's own title page
        "Research Notes \u203a Issue 1, 2019/06",
        "Research Notes \u203a Issue 2, 2020/12",
        "Research Notes \u203a Issue 2, 2020/12",
        "Research Notes \u203a Issue 3",
    ]
    assert citations(raw) == [
        None,  # no year on page 1, and a file's dates are never a paper's year
        "The Research Group 2019, p. 2",
        "The Research Group 2020, p. 3",
        "The Research Group 2020, p. 4",
        "The Research Group 2022, p. 5",  # no year in the bookmark: the issue's first lines
    ]


MANUAL = [
    ("The multicolumn package", ["Frank Mittelbach", "2021/10/28", *BODY]),
    ("1 Introduction", BODY),
    (None, BODY),
    ("2 The user interface", BODY),
    ("3 The implementation", BODY),
]
MANUAL_OUTLINE = [(0, "Contents"), (1, "1 Introduction"), (3, "2 The user interface"),
                  (4, "3 The implementation")]  # fmt: skip


@pytest.mark.parametrize(
    ("pages", "outline"),
    [
        (MANUAL, MANUAL_OUTLINE),  # chapters open pages; no byline, no repeated heading
        (MANUAL, [(0, "Introduction"), (0, "Usage"), (1, "Implementation")]),  # sections
        (PROCEEDINGS[:3], [(1, "In Search of an Understandable Consensus Algorithm")]),  # one
    ],
)
def test_a_manuals_or_a_single_papers_bookmarks_change_nothing(
    pages: list[tuple[str | None, list[str]]], outline: list[tuple[int, str]]
) -> None:
    plain = headed_pdf_bytes(pages)
    marked = headed_pdf_bytes(pages, outline=outline)
    assert titles(marked) == titles(plain)
    assert citations(marked) == citations(plain)


def test_pages_of_different_works_never_support_each_other_in_fusion() -> None:
    """fusion groups a PDF's pages by their title: one group per issue, and the issue's pages
    (its title page and a page opening with a section heading) in one."""
    from types import SimpleNamespace

    from arr.fusion.wsum import _works
    from arr.models import Location

    raw = headed_pdf_bytes(NEWS, outline=NEWS_OUTLINE)
    chunks = [
        SimpleNamespace(
            id=u.anchor, location=Location(path="a/news.pdf", anchor=u.anchor, title=u.title)
        )
        for u in READER.read(raw).units
    ]
    works = _works({"bm25": chunks})  # type: ignore[dict-item]
    groups = [works[c.id] for c in chunks]
    assert groups[2] == groups[3]  # one issue's two pages
    assert len({groups[1], groups[2], groups[4]}) == 3  # three issues, three works


def test_hostile_bookmarks_are_bounded_and_cleaned() -> None:
    assert clean_title("Issue\x00 1,\x1b[31m 2019\u200b") == "Issue 1, [31m 2019"
    assert clean_title("\x07\x08") == ""  # nothing left to show: no title
    pages = [("Research Notes", BODY[:2])] * 3
    many = [(0, "Contents")] + [(n % 3, f"Issue {n}") for n in range(1, 6000)]
    raw = headed_pdf_bytes(pages, outline=many)
    started = time.monotonic()
    shown = titles(raw)
    assert time.monotonic() - started < grace_s(10, at_most=60)  # quadratic: minutes
    assert (
        shown[1] == "Research Notes \u203a Issue 1" and shown[2] == "Research Notes \u203a Issue 2"
    )
    # a bookmark past the last page, and a heading-less page, open no work
    assert work_titles([(0, "A"), (5, "B")], ["H", None], lambda _: False) == [None, None]


def test_a_secret_in_a_bookmark_never_leaves(tmp_path: Path) -> None:
    from arr.models import ToolCall
    from arr.tools.bm25 import BM25Tool
    from tests.readers_fixtures import write
    from tests.security.test_reader_walls import GHP, SCOPE_A, workspace

    ws = workspace(tmp_path)
    outline = [(0, "Contents"), (1, f"Issue 1 {GHP}"), (2, "Issue 2")]
    write(ws.root / "a" / "news.pdf", headed_pdf_bytes(NEWS[:3], outline=outline))
    tool = BM25Tool("bm25", ws)
    report = tool.build(SCOPE_A)
    assert ["news.pdf", "credential", "credential-like text"] in report["skipped_files"]
    found = tool.retrieve(ToolCall(tool="bm25", query="Research Notes issue"), SCOPE_A)
    assert all(GHP[4:20] not in item.model_dump_json() for item in found)


LTNEWS = Path("/usr/share/doc/texlive-doc/latex/base/ltnews.pdf")


def test_the_real_collected_latex_news_is_read_issue_by_issue() -> None:
    if not LTNEWS.is_file():
        pytest.skip(f"{LTNEWS} not installed (apt-get install texlive-latex-base-doc)")
    units = READER.read(LTNEWS.read_bytes()).units
    assert units[22].title == "LATEX News \u203a Issue 18, 2007/12"
    assert units[22].citation == "The LaTeX Project 2007, p. 23"
    issues = {u.title for u in units if u.title and "Issue" in u.title}
    assert len(issues) >= 36  # one work per issue (36 in TeX Live 2022)


@pytest.mark.parametrize(
    "name", ["latex/tools/multicol.pdf", "support/texdoc/texdoc.pdf", "latex/hyperref/slides.pdf"]
)
def test_real_manuals_with_bookmarks_keep_their_headings(name: str) -> None:
    path = Path("/usr/share/doc/texlive-doc") / name
    if not path.is_file():
        pytest.skip(f"{path} not installed (apt-get install texlive-latex-base-doc)")
    assert not any("\u203a" in (u.title or "") for u in READER.read(path.read_bytes()).units)
