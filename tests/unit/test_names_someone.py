"""A short look-up that names people goes to the channels that match words (issue 60): the
embedding of a list of surnames is close to every list of names (a bibliography's entries)."""

from __future__ import annotations

import pytest

from arr.planner.rule import RuleQueryPlanner
from arr.query.shape import names_someone, query_shape


@pytest.mark.parametrize(
    "query",
    ["Karger Lehman Leighton Panigrahy", "Makarychev Vijayaraghavan", "Hoare 1978",
     "Hazan low rank experts", "fixed budget Carpentier", "Choromanska Henaff LeCun"],
)  # fmt: skip
def test_names_are_looked_up_word_for_word(query: str) -> None:
    assert names_someone(query.split())
    assert query_shape(query) == "lexical"
    plan = RuleQueryPlanner().plan(query, {"bm25": "", "grep": "", "vector": "", "memory": ""})
    assert {c.tool for r in plan.plan.tool_rounds for c in r.calls} == {"bm25", "grep"}


@pytest.mark.parametrize(
    "query",
    [
        "Dexamethasone increases risk of postoperative bleeding.",  # a claim: a sentence
        "Antidepressants reduce the severity of migraines.",
        "Attention Is All You Need",  # capitals, but every word is English
        "shopping cart vector clocks",
        "Raft consensus",
        "How does Hazan bound the regret?",  # a question
        "Don't re-read doctrees from disk unnecessarily",
        "the paper that introduced convolutional arithmetic circuits",
    ],
)
def test_sentences_questions_and_plain_words_are_not_names(query: str) -> None:
    assert not names_someone(query.split())
    assert query_shape(query) != "lexical"


def test_a_whole_quoted_query_asks_for_the_words_themselves() -> None:
    assert query_shape('"Blooper reel"') == "lexical"
    assert query_shape('what does "regret" mean here') != "lexical"  # a question about a word
