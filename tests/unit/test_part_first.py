"""The page that holds the part a question asks for (arr.ordering.part_first): a title page
gives way to the part; a lead that is not the title page is weighed again only when the query
names the paper (an author, half its title), never replaced by a title unit, and the question's
own form words (where, does) are not counted as the part's words."""

from __future__ import annotations

from arr.models import EvidenceChunk, Location, ToolTrace
from arr.ordering.part_first import PartFirst
from tests.conftest import SCOPE_A

TITLE = "Sparse Dueling Bandits"
CITATION = "Jamieson et al. 2015"
PAGES = {
    1: "Sparse Dueling Bandits. Abstract: we study dueling bandits, the Borda winner and "
    "the Condorcet winner; an algorithm and experiments follow.",
    2: "Related work on dueling bandits and preference learning; where does the winner lie.",
    3: "Preliminaries: the preference matrix and its sparsity.",
    6: "Algorithm 2: pseudocode of Sparse Borda; the successive elimination of arms.",
}


def page(number: int, text: str | None = None) -> EvidenceChunk:
    return EvidenceChunk(
        id=f"sdb.pdf#page={number}",
        scope=SCOPE_A,
        channel="bm25",
        location=Location(
            path="papers/sdb.pdf", anchor=f"page={number}", title=TITLE, citation=CITATION
        ),
        snippet=text if text is not None else PAGES[number],
        score=1.0,
        ranks={"bm25": 1},
    )


def pages(order: list[int]) -> list[EvidenceChunk]:
    return [page(n) for n in order]


def ordered(step: PartFirst, query: str, order: list[int]) -> list[int | None]:
    traces: list = []
    return [e.location.page for e in step.order(query, pages(order), traces, 2)]


NAMED = PartFirst()  # named_lead and question_words: the default


def test_a_title_page_lead_gives_way_to_the_part() -> None:
    query = "Sparse Dueling Bandits pseudocode of the Sparse Borda elimination"
    assert ordered(PartFirst(), query, [1, 3, 6])[:2] == [6, 1]


def test_a_part_page_lead_is_weighed_again_only_when_the_query_names_the_paper() -> None:
    query = "Jamieson: pseudocode of Sparse Borda elimination"  # an author's name
    assert ordered(PartFirst(named_lead=False), query, [3, 6, 1])[0] == 3  # fusion's page
    assert ordered(NAMED, query, [3, 6, 1])[0] == 6
    half_title = "sparse dueling: pseudocode of Borda elimination"  # 2 of the title's 3 words
    assert ordered(NAMED, half_title, [3, 6, 1])[0] == 6


def test_a_claim_that_shares_a_title_word_keeps_fusions_page() -> None:
    claim = "pseudocode for elimination of arms under Borda scoring in bandits"  # 1 of 3
    assert ordered(NAMED, claim, [3, 6, 1])[0] == 3


def test_a_title_unit_never_replaces_a_part_that_leads() -> None:
    # page 1 holds more of these words than page 3, but a title page is never the part
    query = "Jamieson dueling bandits Condorcet winner experiments"
    assert ordered(NAMED, query, [3, 1])[0] == 3


def test_the_questions_form_words_are_not_the_parts_words() -> None:
    # "where does" stands only on page 2: counted, they would lead with it
    query = "where does Jamieson give the preference matrix"
    assert ordered(PartFirst(question_words=False), query, [3, 2, 1])[0] == 2
    assert ordered(NAMED, query, [3, 2, 1])[0] == 3


def test_the_move_is_traced() -> None:
    traces = [ToolTrace(round=1, tool="bm25", status="ok", code="ok")]
    query = "Jamieson: pseudocode of Sparse Borda elimination"
    NAMED.order(query, pages([3, 6]), traces, 2)
    assert any("part_first: p. 6 before p. 3" in (t.note or "") for t in traces)


def cell(number: int, text: str, section: str) -> EvidenceChunk:
    where = Location(path="nb.ipynb", anchor=f"cell={number}", title=section)
    return EvidenceChunk(id=f"nb.ipynb#cell={number}", scope=SCOPE_A, channel="bm25",
                         location=where, snippet=text, score=1.0)  # fmt: skip


NOTEBOOK = {
    0: ("# Regression diagnostics\n\nTests on a fitted OLS model.", "Regression diagnostics"),
    5: ("## Normality of the residuals", "Normality of the residuals"),
    17: ("## Heteroskedasticity tests\n\nBreush-Pagan test:", "Heteroskedasticity tests"),
    18: ("test = sms.het_breuschpagan(results.resid, exog)", "Heteroskedasticity tests"),
    20: ("test = sms.het_goldfeldquandt(results.resid, exog)", "Heteroskedasticity tests"),
}


def cells_ordered(query: str, order: list[int]) -> list[int | None]:
    answer = [cell(n, *NOTEBOOK[n]) for n in order]
    return [e.location.cell for e in NAMED.order(query, answer, [], 2)]


def test_a_cells_section_heading_does_not_name_its_notebook() -> None:
    # the query holds the lead's section heading: that says the cell is right, not that the
    # query names the notebook and asks for another of its parts (the reader gives a cell its
    # section's heading as title; the notebook's title is its title cell's)
    query = "check OLS residuals for heteroskedasticity tests with Breusch-Pagan"
    assert cells_ordered(query, [17, 5, 0, 20])[0] == 17


def test_a_notebook_named_by_its_title_cell_gives_its_part_first() -> None:
    query = "regression diagnostics: where is het_goldfeldquandt run"
    assert cells_ordered(query, [5, 0, 17, 20])[0] == 20


def test_a_code_cell_is_weighed_with_its_sections_heading() -> None:
    # cell 18 never says heteroskedasticity; its section does
    query = "heteroskedasticity code example"
    assert cells_ordered(query, [0, 5, 18])[0] == 18


def test_a_code_cell_that_opens_with_a_comment_is_not_a_title_cell() -> None:
    from arr.ordering.part_first import title_unit

    assert title_unit(cell(0, "import numpy as np", "Rolling Regression"))
    assert title_unit(cell(3, "# Rolling Regression\n\nFits over windows.", "Rolling Regression"))
    assert not title_unit(cell(7, "# Fit the model\nres = mod.fit()", "Rolling Regression"))
