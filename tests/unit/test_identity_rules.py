"""The identity rules the publisher templates taught (``make bench-templates``), on plain
values: a citation only from evidence that agrees."""

from __future__ import annotations

import pytest

from arr.readers.bylines import agreed_authors, joined_accents, layout_authors, names_in
from arr.readers.identity import layout_title, layout_year, read_identity
from arr.readers.pdf_layout import Line, _line, ligatures


def lines(*rows: tuple[float, str]) -> list[Line]:
    return [Line(size, tuple(cell.strip() for cell in text.split("|"))) for size, text in rows]


@pytest.mark.parametrize(
    ("raw", "read"),
    [
        pytest.param("E\x1ecient Veri\x1ccation", "Efficient Verification", id="t1-ffi-fi"),
        pytest.param("style \x1cle v3", "style file v3", id="t1-word-start"),
        pytest.param("a\x0cne idea", "afine idea", id="ot1-between-letters"),
        pytest.param("line\r\nNext", "line\r\nNext", id="a-line-end-stays"),
    ],
)
def test_unmapped_ligatures_are_read_as_their_letters(raw: str, read: str) -> None:
    assert ligatures(raw) == read


def test_raised_marks_leave_a_name_and_its_accents_stay() -> None:
    glyphs = [(c, 10.0, 10.0 * n, 10.0 * n + 8, 7.0, 100.0) for n, c in enumerate("Smith")]
    glyphs.append(("a", 7.0, 52.0, 56.0, 5.0, 104.0))  # an affiliation letter, raised
    glyphs.append(("\u00b4", 7.0, 57.0, 60.0, 3.0, 106.0))  # a split accent, raised too
    (cell,) = _line(glyphs).cells
    assert cell.startswith("Smith ") and "a" not in cell and "\u0301" in cell  # NFKC: acute


def test_a_dotless_i_takes_its_accent() -> None:
    assert joined_accents("Lu \u00b4\u0131sa") == "Lu\u00edsa"


@pytest.mark.parametrize(
    ("metadata", "byline", "below", "expected"),
    [
        pytest.param(["Ada Lovelace", "Alan Turing"], ["Ada Lovelace", "Alan Turing"], [],
                     (["Ada Lovelace", "Alan Turing"], "metadata"), id="agrees"),
        pytest.param(["Alan Turing"], ["Ada Lovelace", "Alan Turing"], [],
                     (["Ada Lovelace", "Alan Turing"], "layout"), id="uploader-not-first"),
        pytest.param(["Alan Turing"], [], lines((10, "Ada Lovelace and Alan Turing")),
                     ([], ""), id="uploader-no-byline-read"),
        pytest.param(["Ada Lovelace"], [], lines((10, "Ada Lovelace1, Alan Turing2")),
                     (["Ada Lovelace"], "metadata"), id="first-name-leads-the-byline"),
        pytest.param(["The LaTeX Project"], [], lines((10, "Version 2")),
                     (["The LaTeX Project"], "metadata"), id="a-body"),
    ],
)  # fmt: skip
def test_the_first_author_is_the_first_byline_name(
    metadata: list[str], byline: list[str], below: list[Line], expected: tuple
) -> None:
    assert agreed_authors(metadata, byline, below) == expected


def test_an_unreadable_first_name_gives_no_authors_rather_than_the_second() -> None:
    front = lines((14, "A Title of Some Length"), (10, "Ay3e Ylmaz | and Dmitry Ivanov"),
                  (9, "ETH Zurich"), (10, "Abstract"))  # fmt: skip
    assert layout_authors(front, 1) == []
    readable = lines((14, "A Title of Some Length"), (10, "Ayse Yilmaz | and Dmitry Ivanov"))
    assert layout_authors(readable, 1) == ["Ayse Yilmaz", "Dmitry Ivanov"]


def test_a_letter_an_ot1_font_draws_in_two_glyphs_leaves_one_name() -> None:
    # REVTeX, OT1: PDFium gives "Małgorzata" as "Ma lgorzata" (raised marks gone, as _line
    # drops them); before, the first author was dropped and the second cited as the first
    # (the held-out templates seed 20261207, revtex p05)
    front = lines((14, "Low-Rank Inference for Power Grids"),
                  (10, "Ma lgorzata Kowalska | Minh Nguyen and Fran\u00e7ois Lef\u00e8vre"),
                  (10, "Abstract"))  # fmt: skip
    assert layout_authors(front, 1)[:2] == ["Malgorzata Kowalska", "Minh Nguyen"]
    assert names_in(Line(10, ("Pawe l Nowak and L ukasz Kaiser",))) == [
        "Pawel Nowak",
        "Lukasz Kaiser",
    ]
    # particles, joining words and an affiliation's words stay words of their own
    assert names_in(Line(10, ("Maria de Souza and Jan van der Berg",))) == [
        "Maria de Souza",
        "Jan van der Berg",
    ]
    assert names_in(Line(10, ("John Smith with Contributions",))) == []


def test_orcid_brackets_left_by_raised_digits_are_not_names() -> None:
    line = Line(10, ("Ji-eun Park [", "], Chidi Okonkwo [", "], and"))
    assert names_in(line) == ["Ji-eun Park", "Chidi Okonkwo"]


def test_a_title_in_body_type_is_the_lines_above_the_byline() -> None:
    front = lines((8, "Draft version May 12, 2012"), (8, "Typeset using LaTeX in AASTeX631"),
                  (10, "Scalable Clustering for Quantum Systems"), (9, "Minh Nguyen"),
                  (8, "ETH Zurich"), (10, "ABSTRACT"), *[(10, "body text here")] * 8)  # fmt: skip
    assert layout_title(front) == ("Scalable Clustering for Quantum Systems", 3)


@pytest.mark.parametrize(
    ("page", "title", "year"),
    [
        pytest.param(["Date: November 15, 2005."], None, 2005, id="amsart-date-footnote"),
        pytest.param(["(Dated: May 2, 1996)"], None, 1996, id="revtex-dated"),
        pytest.param(["Date: 21.01.2018"], None, 2018, id="dotted-date"),
        pytest.param(["Building TeX Live (2022)", "Copyright 2022"], "Building TeX Live (2022)",
                     2022, id="a-title-year-that-is-the-papers"),
        pytest.param(["As shown by Smith (1998), it is hard."], None, None, id="cited-year"),
        pytest.param(["the 1969 Survey. In Proceedings of SIGIR '04, 2004."],
                     "Photometry after the 1969 Survey", 2004, id="the-titles-year"),
    ],
)  # fmt: skip
def test_the_year_is_the_papers_own(page: list[str], title: str | None, year: int | None) -> None:
    assert layout_year([], page, latest=2026, title=title) == year


def test_an_uploaders_metadata_gives_the_byline_not_the_file() -> None:
    page = lines((14, "Sparse Recovery with Few Samples"), (10, "Ada Lovelace | Alan Turing"),
                 (10, "Abstract"), *[(10, "we study it")] * 8,
                 (8, "Proceedings of the Conference on Learning 2015"))  # fmt: skip
    found = read_identity(page, [line.text for line in page], None, ["Alan Turing"])
    assert found.citation() == "Lovelace & Turing 2015"
    assert found.sources["authors"] == "layout"


def test_a_venue_cited_in_the_abstract_is_not_the_papers_year() -> None:
    page = lines((14, "A Title of Some Length"), (10, "Ada Lovelace"), (10, "Abstract"),
                 (10, "We study it. The task comes from the Proceedings of the Conference 1985."),
                 (9, "Appearing in Proceedings of the Conference on Learning 2015."),
                 (10, "1 Introduction"))  # fmt: skip
    assert layout_year(page, [], latest=2026) == 2015
    assert layout_year(page[:4], [], latest=2026) is None


@pytest.mark.parametrize(
    ("printed", "read"),
    [
        pytest.param("WANG Xiaoming", ["Xiaoming Wang"], id="surname-first-in-capitals"),
        pytest.param("LEE Seung-Hoon and Ada Lovelace", ["Seung-Hoon Lee", "Ada Lovelace"],
                     id="hyphenated-given"),
        pytest.param("Pieter van den Berg and \u030aAsa Lindstr\u0308om",
                     ["Pieter van den Berg", "\u00c5sa Lindstr\u00f6m"], id="ot1-ring-before-A"),
        pytest.param("JOAO GONC \u0327 ALVES", ["Joao Goncalves"], id="capitals-loose-cedilla"),
    ],
)  # fmt: skip
def test_bylines_read_as_people_in_reading_order(printed: str, read: list[str]) -> None:
    assert names_in(Line(10, (printed,))) == read


def test_a_name_an_accent_split_into_two_cells_is_one_name() -> None:
    cells = ("Jose Garc \u0301", "\u0301\u0131a-Fernandez \u0301", ",")
    assert names_in(Line(9, cells)) == ["Jose Garc\u00eda-Fernandez"]
