"""A copied sentence's place leads the answer (arr.ordering.exact): the items that hold the query
word for word move to the front, whatever fusion made of vector passages and file names; a
quoted phrase also reaches grep (the rule planner)."""

from __future__ import annotations

from arr.models import EvidenceChunk, Location
from arr.ordering.exact import exact_positions, phrase_words
from arr.ordering.exact_first import ExactFirst
from arr.ordering.few_pages import FewPagesPerPdf
from arr.query.shape import query_shape
from tests.conftest import SCOPE_A


def exact_first(query: str, ranked: list[EvidenceChunk], traces: list) -> list[EvidenceChunk]:
    return ExactFirst().order(query, ranked, traces, 2)


def item(cid: str, text: str, channel: str = "vector") -> EvidenceChunk:
    return EvidenceChunk(
        id=cid,
        scope=SCOPE_A,
        channel=channel,
        location=Location(path=cid.split("#")[0], anchor=cid.split("#")[1]),
        snippet=text,
        score=1.0,
        ranks={channel: 1},
    )


RANKED = [
    item("ts.ipynb#cell=3", "Time-series cells: timestamps within days of now"),
    item("paper.pdf#page=9", "Related work on timestamps and garbage collection."),
    item(
        "bigtable.pdf#page=3",
        "Each cell's timestamps fall\nwithin ten days of the cur-\nrent time. Older ones go.",
        "bm25",
    ),
]


def test_the_page_holding_the_sentence_comes_first() -> None:
    query = "timestamps fall within ten days of the current time."
    assert exact_positions(query, RANKED) == []  # "cur-\nrent": not the words in a row
    fixed = [*RANKED[:2], item("bigtable.pdf#page=3", "timestamps fall within ten days of "
                                "the current time. Older ones go.", "bm25")]  # fmt: skip
    ranked = exact_first(query, fixed, [])
    assert [c.id for c in ranked] == ["bigtable.pdf#page=3", "ts.ipynb#cell=3", "paper.pdf#page=9"]


def test_case_punctuation_and_line_breaks_do_not_matter_but_order_does() -> None:
    text = "THE Timestamps—fall,\nwithin   ten days of the current time"
    page = [item("a.pdf#page=1", text)]
    assert exact_positions("timestamps fall within ten days of the current time", page) == [0]
    assert exact_positions("fall timestamps within ten days of the current time", page) == []


def test_short_queries_are_look_ups_unless_quoted() -> None:
    assert phrase_words("ten days of") is None
    assert phrase_words('"ten days of"') == ("ten", "days", "of")
    # a whole quoted query asks for the words themselves: the channels that match words
    assert query_shape('"fall within ten days of the current time"') == "lexical"
    assert query_shape("fall within ten days of the current time") == "semantic"


def test_a_pasted_line_of_code_puts_the_cell_that_holds_it_first() -> None:
    """A line of code copied from a notebook leads with its cell (real notebooks: the
    forecasting notebook's similar cells answered before the one holding the line)."""
    ranked = [
        item("forecasting.ipynb#cell=18", "fcast = res.get_forecast(steps=10)\nfcast.summary()"),
        item(
            "trend.ipynb#cell=10", "forecast = res.get_forecast('2014')\nci = forecast.conf_int()"
        ),
        item("trend.ipynb#cell=11", "forecast.predicted_mean.plot()"),
    ]
    assert [c.id for c in exact_first("forecast = res.get_forecast('2014')", ranked, [])][0] == (
        "trend.ipynb#cell=10"
    )
    assert phrase_words("print(res5.summary_frame())") == ("print", "res5", "summary", "frame")
    assert phrase_words("get_forecast") is None  # an identifier is a look-up
    assert phrase_words("fit(x)") is None  # two words say little
    assert phrase_words("how to call fit() again") is None  # prose naming a call


def test_an_author_year_citation_puts_its_bibliography_entry_first() -> None:
    ranked = [
        item("main.tex#L40", "as shown before \\cite{gruntz1996}\ncites: gruntz 1996", "bm25"),
        item("main.tex#L80", "Gruntz (1996) computes limits\ncites: gruntz 1996", "bm25"),
        item("refs.bib#gruntz1996", "@phdthesis{gruntz1996,\n[Gruntz 1996] On Computing Limits"),
    ]
    for query in ("Gruntz 1996", "gruntz 1996", "Gruntz et al. 1996", "Gruntz (1996)"):
        assert [c.id for c in exact_first(query, ranked, [])][0] == "refs.bib#gruntz1996", query
    assert exact_positions("the 1996 paper", ranked) == []
    # the paper itself, where the folder holds it, follows its entry: page 1 first
    with_paper = [
        cited("limits.pdf#page=4", "Computing limits", "Gruntz 1996, p. 4"),
        *ranked,
        cited("other.pdf#page=1", "Another thesis", "Gruntz 1997, p. 1"),  # another year
        cited("limits.pdf#page=1", "Computing limits", "Gruntz 1996, p. 1"),
        cited("raft.pdf#page=1", "Raft", "Ongaro & Ousterhout 2014, p. 1"),
    ]
    order = [with_paper[i].id for i in exact_positions("Gruntz 1996", with_paper)]
    assert order == ["refs.bib#gruntz1996", "limits.pdf#page=1", "limits.pdf#page=4"]
    assert [
        with_paper[i].id for i in exact_positions("Ongaro and Ousterhout 2014", with_paper)
    ] == ["raft.pdf#page=1"]


def test_a_long_pdf_does_not_fill_the_first_ten() -> None:
    PAGES_PER_PDF = 3
    few_pages_per_pdf = lambda ranked: FewPagesPerPdf().order("", ranked, [], 2)  # noqa: E731

    book = [item(f"manual.pdf#page={n}", "the amsmath package", "bm25") for n in range(1, 13)]
    short = item("amsmath.pdf#page=1", "The amsmath package", "bm25")
    code = [item(f"src/a.py#L{n}", "def f(): pass", "grep") for n in range(1, 6)]
    others = [item(f"p{n}.pdf#page=2", "the package", "bm25") for n in range(8)]
    ranked = few_pages_per_pdf([*book, short, *others])
    assert ranked[PAGES_PER_PDF].id == "amsmath.pdf#page=1"
    assert sum("manual" in c.id for c in ranked[:10]) == PAGES_PER_PDF
    assert sorted(c.id for c in ranked) == sorted(c.id for c in [*book, short, *others])
    # with nothing else to show, the manual's pages stay (nothing is dropped)
    assert [c.id for c in few_pages_per_pdf(book)] == [c.id for c in book]
    assert few_pages_per_pdf(code) == code  # a file's chunks are left as they are
    # the file the answer leads with may keep more of its pages where lead says so
    led = FewPagesPerPdf(lead={"page": 5}).order("", [*book, short, *others], [], 2)
    assert sum("manual" in c.id for c in led[:10]) == 5 and led[5].id == "amsmath.pdf#page=1"
    second = FewPagesPerPdf(lead={"page": 5}).order("", [short, *book, *others], [], 2)
    assert sum("manual" in c.id for c in second[:10]) == PAGES_PER_PDF  # not the lead: capped


def titled(cid: str, title: str | None, text: str = "text") -> EvidenceChunk:
    found = item(cid, text)
    return found.model_copy(update={"location": found.location.model_copy(update={"title": title})})


def test_a_title_asked_puts_the_places_so_titled_first() -> None:
    ranked = [
        titled("amsldoc.pdf#page=5", "User's Guide for the amsmath Package", "the amsmath package"),
        titled("source2e.pdf#page=9", "3 Class and Package interface", "amsmath package"),
        titled("amsmath.pdf#page=1", "The amsmath package\u2217"),
        titled("main.tex#L40", "Method \u203a SAT Solving"),
        titled("ltshipout-doc.pdf#page=1", "The ltshipout package\u2217 Frank Mittelbach"),
    ]
    assert exact_positions("The amsmath package", ranked) == [2]
    # case and quotes aside; quoted, the page holding it as a run follows the titled one
    assert exact_positions('"the AMSMATH package"', ranked) == [2, 0]
    assert exact_positions("SAT solving", ranked) == [3]  # a section's own heading
    assert exact_positions("The ltshipout package", ranked) == [4]  # a heading run on
    assert exact_positions("amsmath", ranked) == []  # one word names a topic
    assert exact_positions("amsmath package", ranked) == []  # not the title's opening run
    assert exact_positions("Frank Mittelbach", ranked) == []  # words inside, not the title
    # a collection's page titled by the query follows the PDF that opens with that title
    inside = [titled("oberdiek.pdf#page=9", "The classlist package"), *ranked]
    inside.append(titled("classlist.pdf#page=1", "The classlist package Heiko Oberdiek"))
    assert exact_positions("The classlist package", inside) == [6, 0]
    order = [c.id for c in exact_first("The amsmath package", ranked, [])]
    assert order[:2] == ["amsmath.pdf#page=1", "amsldoc.pdf#page=5"]


def cited(cid: str, title: str | None, citation: str | None) -> EvidenceChunk:
    found = titled(cid, title)
    return found.model_copy(
        update={"location": found.location.model_copy(update={"citation": citation})}
    )


def test_an_author_and_words_of_the_title_put_that_authors_paper_first() -> None:
    """``Oberdiek ltxcmds``: the places cited by that author whose title holds the other words
    (real folder: author questions R@1 0.72 -> 0.89)."""
    ranked = [
        cited("pdftexcmds.pdf#page=4", "The pdftexcmds package", "Oberdiek 2020, p. 4"),
        cited("amsfndoc.pdf#page=2", "User's Guide to AMSFonts", None),
        cited("ltxcmds.pdf#page=3", "The ltxcmds package Heiko Oberdiek", "Oberdiek 2020, p. 3"),
        cited("ltxcmds.pdf#page=1", "The ltxcmds package Heiko Oberdiek", "Oberdiek 2020, p. 1"),
        cited("raft.pdf#page=2", "In Search of an Understandable Consensus Algorithm",
              "Ongaro & Ousterhout 2014, p. 2"),
        cited("refs.bib#vanrossum2009", "The Python Language Reference", "van Rossum et al. 2009"),
        cited("samplepdf.pdf#page=1", "This is version 140 of pdfTEX", "Han The Thanh 2000, p. 1"),
    ]  # fmt: skip
    assert exact_positions("Oberdiek ltxcmds", ranked) == [3, 2]  # page 1 first
    assert exact_positions("oberdiek LTXCMDS package", ranked) == [3, 2]
    assert exact_positions("Ousterhout consensus", ranked) == [4]  # a second author
    assert exact_positions("van Rossum python reference", ranked) == [5]  # a particle
    assert exact_positions("Thanh pdftex", ranked) == [6]  # a name read as one: its last word
    assert exact_positions("Oberdiek", ranked) == []  # a name alone names no paper
    assert exact_positions("Oberdiek amsfonts", ranked) == []  # not his paper's title
    assert exact_positions("Lamport ltxcmds", ranked) == []  # not its author
    assert exact_positions("Oberdiek ltxcmds package with many more words", ranked) == []


def test_four_words_of_a_title_in_a_row_name_it() -> None:
    ranked = [
        titled("etex_man.pdf#page=3", "The e-TeX manual"),
        titled("encdoc-e.pdf#page=1", "EncTEX The Extension of TEX For Input Re-encoding"),
    ]
    assert exact_positions("The Extension of TEX", ranked) == [1]
    assert exact_positions("Extension of TEX", ranked) == []  # three words: inside, a topic
    assert exact_positions("Input Re-encoding", ranked) == []


def test_the_title_that_is_the_query_leads_one_that_opens_with_it() -> None:
    """A translation's title page ran on into its translator (``The colortbl package David
    Carlisle (Übersetzung: ...)``); the paper titled by the query alone comes first."""
    ranked = [
        titled("colortbl-DE.pdf#page=1", "The colortbl package\u2217 David Carlisle"),
        titled("colortbl.pdf#page=1", "The colortbl package\u2217"),
    ]
    assert exact_positions("The colortbl package", ranked) == [1, 0]


def test_titled_places_lead_those_holding_the_words() -> None:
    query = "a new implementation of the verbatim environments"
    ranked = [
        titled(
            "a.pdf#page=3", "Other", "we describe a new implementation of the verbatim environments"
        ),
        titled("verbatim.pdf#page=1", "A New Implementation of the verbatim Environments"),
    ]
    assert exact_positions(query, ranked) == [1, 0]


def test_a_sentence_copied_from_a_texts_middle_also_reaches_grep() -> None:
    """A phrase of common words ("right language but if it fails...") ranks its page low in
    bm25 and vector; grep finds it word for word (real folder phrases R@10 0.94 -> 0.97)."""
    from arr.planner.rule import RuleQueryPlanner
    from arr.query.shape import copied

    tools = {"vector": "", "bm25": "", "memory": "", "grep": ""}

    def planned(query: str) -> set[str]:
        plan = RuleQueryPlanner().plan(query, tools).plan
        return {c.tool for r in plan.tool_rounds for c in r.calls}

    fragment = "right language but if it fails, or if the right language is"
    assert copied(fragment) and planned(fragment) == set(tools)
    assert query_shape(fragment) == "semantic"  # fusion reads it as prose, as before
    for asked in (
        "Right language but if it fails, or if the right language is",  # a sentence's start
        "how to check if a variable is an array in python",  # a question
        "why does the loss spike after warmup with large batches",
        "right language but if it fails",  # too short to be a copied sentence
        "put a running header with the chapter title on each page",  # a request
        "find the paper that compares raft and paxos on leader election",
    ):
        assert not copied(asked), asked
        assert "grep" not in planned(asked), asked
