"""A paper's identity as a citation a researcher can paste ("Ongaro & Ousterhout 2014, p. 3"),
read from the PDF (metadata when it names people, else the lines under the title), per paper
in a volume, never a user name or a tool's; carried by every channel to CLI, JSON and MCP
(issue 42: paper identity)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from arr.readers.citation import cite, metadata_authors, names_on, surname
from arr.readers.pdf import PdfReader
from tests.readers_fixtures import headed_pdf_bytes as volume

READER = PdfReader()


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ("Diego Ongaro and John Ousterhout", ["Diego Ongaro", "John Ousterhout"]),
        ("Heiko Oberdiek\u2217", ["Heiko Oberdiek"]),
        (
            "Frank Mittelbach, Ulrike Fischer & Mark A. Wicks",
            ["Frank Mittelbach", "Ulrike Fischer", "Mark A. Wicks"],
        ),
        ("Guido van Rossum1,2", ["Guido van Rossum"]),
        # affiliation numbers spaced after a comma, or set apart; ORCID marks (issue 61: 39 of
        # 180 JOSE, JuliaCon and ReScience papers had no authors)
        (
            "Lorena A. Barba1 and Gilbert F. Forsyth1, 2",
            ["Lorena A. Barba", "Gilbert F. Forsyth"],
        ),
        ("Paul B. Govan 1", ["Paul B. Govan"]),
        ("Lorena A. Barba 1, 2 , Gilbert F. Forsyth 3", ["Lorena A. Barba", "Gilbert F. Forsyth"]),
        (
            "Gabriel Dansereau1, ID , Timoth\u00e9e Poisot2, iD",
            ["Gabriel Dansereau", "Timoth\u00e9e Poisot"],
        ),
        ("Maria Garc\u00eda 0000-0002-1825-0097", ["Maria Garc\u00eda"]),
        ("David Idris", ["David Idris"]),
        ("June 21, 2020", None),
        ("Version 2, 2009", None),
        ("Stanford University", None),
        ("American Mathematical Society", None),
        ("In Search of an Understandable Consensus Algorithm", None),
        ("updated by David M. Jones", None),
        ("2020/01/04", None),
        ("jdoe@example.org", None),
        ("Abstract", None),
    ],
)
def test_a_line_of_names_is_told_from_a_title_an_affiliation_or_a_date(
    line: str, names: list[str] | None
) -> None:
    assert names_on(line) == names


@pytest.mark.parametrize(
    ("field", "names"),
    [
        ("Leslie Lamport", ["Leslie Lamport"]),
        ("Frank Mittelbach, Email: see top of the source file", ["Frank Mittelbach"]),
        ("The LaTeX Project", ["The LaTeX Project"]),
        ("jdoe", []),
        ("Microsoft Office User", []),
        ("Administrator", []),
        ("", []),
        ("https://example.org/me", []),
        ("Leslie\x07Lamport", []),  # control characters: not the paper's
    ],
)
def test_a_metadata_author_is_used_only_when_it_names_people_or_a_body(
    field: str, names: list[str]
) -> None:
    assert metadata_authors(field) == names


def test_citations_read_as_researchers_write_them() -> None:
    assert cite(["Diego Ongaro", "John Ousterhout"], 2014) == "Ongaro & Ousterhout 2014"
    assert (
        cite(["Michael Downes", "David M. Jones", "Barbara Beeton"], 2009) == "Downes et al. 2009"
    )
    assert cite(["Leslie Lamport"], None) == "Lamport"
    assert cite([], 2014) is None  # a year names no one
    assert surname("Guido van Rossum") == "van Rossum" and surname("Mark A. Wicks Jr.") == "Wicks"


BODY = [f"Body text line {n} of this page about replicated logs and leaders." for n in range(30)]
VOLUME = [
    ("In Search of an Understandable Consensus Algorithm",
     ["Diego Ongaro and John Ousterhout", "Stanford University", "June 2014", *BODY]),
    (None, BODY),
    ("Paxos Made Simple", ["Leslie Lamport", "1 November 2001", *BODY]),
    ("2 The Problem", BODY),  # a section opening a page: no names under it, the same paper
]  # fmt: skip


def test_each_paper_of_a_volume_is_cited_by_its_own_authors_and_year() -> None:
    view = READER.read(volume(VOLUME, author="jdoe"))  # a user name in the metadata: ignored
    assert [u.citation for u in view.units] == [
        "Ongaro & Ousterhout 2014, p. 1",
        "Ongaro & Ousterhout 2014, p. 2",
        "Lamport 2001, p. 3",
        "Lamport 2001, p. 4",
    ]


def test_a_books_chapter_stays_the_books_whatever_its_first_lines() -> None:
    book = [
        ("Distributed Systems", ["Leslie Lamport", "Digital Equipment Corporation", "1990", *BODY]),
        ("Chapter Two", ["Getting Started", *BODY]),  # English words, not a byline
        ("Chapter Three", [*BODY[:3], "Barbara Liskov", *BODY]),  # a name inside a chapter
    ]
    view = READER.read(volume(book))
    assert [u.citation for u in view.units] == [
        "Lamport 1990, p. 1",
        "Lamport 1990, p. 2",
        "Lamport 1990, p. 3",
    ]


def test_metadata_authors_count_only_where_page_one_agrees() -> None:
    view = READER.read(volume([("A Note", ["Some text without names. Written 1994.", *BODY])]))
    assert view.units[0].citation is None  # a wrong name is worse than none
    printed = ["L. Lamport, Systems Research Center", "March 1994", *BODY]
    view = READER.read(volume([("A Note", printed)], author="Leslie Lamport"))
    assert view.units[0].citation == "Lamport 1994, p. 1"
    assert "authors: metadata" in (view.units[0].identity or "")
    # a publisher's name in /Author that page 1 never prints is not the author
    view = READER.read(volume([("A Note", ["March 1994", *BODY])], author="Elsevier Science"))
    assert view.units[0].citation is None
    # a publisher that page 1 prints only in its venue or copyright lines is not the author
    # (ACL Anthology: ~60 of 411 papers cited "Association for Computational Linguistics")
    acl = "Association for Computational Linguistics"
    for copyright in (f"(c) 2005 {acl}", f"c 2005 {acl}", f"\u00a92005 {acl}"):
        printed = ["Proceedings of the 43rd Annual Meeting of the ACL, pages 1-9, June 2005.",
                   copyright, *BODY]  # fmt: skip
        view = READER.read(volume([("A Note", printed)], author=acl))
        assert view.units[0].citation is None, copyright
        assert "authors: metadata" not in (view.units[0].identity or "")
    # a body that page 1 prints as its byline is (``The LaTeX Project``)
    printed = ["The LaTeX Project", "December 2007", *BODY]
    view = READER.read(volume([("A Note", printed)], author="The LaTeX Project"))
    assert view.units[0].citation == "The LaTeX Project 2007, p. 1"
    # a page without a year stated is cited by no one, whatever the file's dates say
    view = READER.read(volume([("A Note", ["Leslie Lamport", *BODY])], author="Leslie Lamport"))
    assert view.units[0].citation is None and "year: unknown" in (view.units[0].identity or "")


REAL = {
    "latex/tools/hhline.pdf": "Carlisle 2020, p. 1",
    "web2c/web2c.pdf": "Berry & Weber 2022, p. 1",
    "texlive/tlbuild/tlbuild.pdf": "Breitenlohner & Berry 2022, p. 1",
    "latex/oberdiek/iflang.pdf": "Oberdiek 2018, p. 1",
    "latex/amscls/amsdtx.pdf": "Downes 2009, p. 1",
}


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_manuals_are_cited_as_their_title_pages_say(name: str) -> None:
    path = Path("/usr/share/doc/texlive-doc") / name
    if not path.is_file():
        pytest.skip(f"{path} not installed (apt-get install texlive-latex-base-doc)")
    assert READER.read(path.read_bytes()).units[0].citation == REAL[name]


def test_the_citation_reaches_cli_json_and_every_channel(tmp_path: Path) -> None:
    from arr.cli.render import render_result
    from arr.tools.vector_items import item_metadata, location_of
    from arr.workspace.documents import unit_documents
    from tests.conftest import SCOPE_A, lexical_router
    from tests.integration.test_readers import root, workspace
    from tests.readers_fixtures import write

    ws = workspace(tmp_path)
    write(root(ws) / "papers" / "consensus.pdf", volume(VOLUME))
    router = lexical_router(ws)
    result = router.search("Paxos Made Simple", SCOPE_A)
    first = result.evidence[0]
    assert first.location.ref() == "papers/consensus.pdf#page=3"
    assert first.location.citation == "Lamport 2001, p. 3"
    as_json = json.loads(result.model_dump_json())  # what --json and MCP send
    assert as_json["evidence"][0]["location"]["citation"] == "Lamport 2001, p. 3"
    assert "cite: Lamport 2001, p. 3" in render_result(result)
    lines = router.search('"about replicated logs and leaders"', SCOPE_A).evidence
    assert {e.channel for e in lines} >= {"grep"} or {e.channel for e in lines} >= {"bm25"}
    assert lines and all(e.location.citation for e in lines)
    # the vector channel keeps it in each item's metadata
    view = READER.read(volume(VOLUME))
    doc = unit_documents("papers/consensus.pdf", view, 40)[0]
    meta = item_metadata(doc, SCOPE_A, "digest")
    assert location_of(meta).citation == "Ongaro & Ousterhout 2014, p. 1"


def test_an_index_from_before_citations_is_renamed_not_re_embedded(tmp_path: Path) -> None:
    """A reader that names places anew (titles, citations) changes item metadata only: an index
    built before is brought up to date without one vector made (the real folder: 39,000
    passages, ~10 minutes of embedding), and the vector channel then shows the citation."""
    from arr.models import ToolCall
    from tests.conftest import SCOPE_A
    from tests.integration.test_readers import root
    from tests.integration.test_vector_tool import make_tool, workspace
    from tests.readers_fixtures import write

    ws = workspace(tmp_path, {"a": SCOPE_A})
    write(root(ws) / "papers" / "consensus.pdf", volume(VOLUME))
    tool = make_tool(ws)
    first = tool.build(SCOPE_A)
    assert first["embedded"] > 0 and first["renamed"] == 0
    # the index as an older ARR wrote it: text-only digests, no citation in the metadata
    collection = tool.store.collection(SCOPE_A)
    got = collection.get(include=["metadatas"])
    old = []
    for meta in got["metadatas"]:
        meta = {k: v for k, v in meta.items() if k != "citation"}
        meta["content_hash"] = meta["content_hash"].split(".")[0]
        old.append(meta)
    collection.update(ids=got["ids"], metadatas=old)
    shutil.rmtree(ws.index_dir / "vector-files")  # no file list: every item is compared
    again = make_tool(ws)
    second = again.build(SCOPE_A)
    assert second["embedded"] == 0 and second["renamed"] == len(got["ids"])
    found = again.retrieve(ToolCall(tool="vector", query="Paxos Made Simple"), SCOPE_A)
    pdf = [e for e in found if e.location.path and e.location.path.endswith(".pdf")]
    assert pdf and all(e.location.citation for e in pdf)
    assert make_tool(ws).build(SCOPE_A)["renamed"] == 0  # nothing left to rename


def test_a_hostile_author_field_is_bounded() -> None:
    """A metadata Author of 200,000 characters (metadata values are cut at 1,000 on reading)
    or a line of names far past a byline's length names at most MAX_AUTHORS, or no one."""
    from arr.readers.citation import MAX_AUTHORS

    assert len(metadata_authors("Ann Lee, " * 20_000)) == MAX_AUTHORS
    assert names_on("Ann Lee and " * 1_000 + "Bo Li") is None  # not a byline: over 200 chars
    raw = volume([("A Note", ["Ann Lee", "May 2001", *BODY])], author="Ann Lee, " * 20_000)
    assert READER.read(raw).units[0].citation == "Lee et al. 2001, p. 1"
    from arr.readers.pdf import paper_identity
    from arr.readers.pdf_text import extract

    read = extract(raw, 2000, 20.0)
    assert len(paper_identity(read.pages, read.layout, read.info).authors) == MAX_AUTHORS
