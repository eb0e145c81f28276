"""bench-templates' generator and table, without TeX Live: a seeded plan is the same plan,
every class's writer prints the gold it declares, and a page printing no year is right only
without a citation."""

from __future__ import annotations

import pytest

from benchmarks.papers.identity import judge_citation
from benchmarks.papers.templates.__main__ import table
from benchmarks.papers.templates.build import CLASSES
from benchmarks.papers.templates.paper import plan


def test_a_seed_draws_the_same_papers() -> None:
    assert plan("llncs", 3, 61) == plan("llncs", 3, 61)
    assert plan("llncs", 3, 61) != plan("llncs", 3, 7)


@pytest.mark.parametrize("template", sorted(CLASSES))
def test_every_writer_prints_the_gold_title_and_first_author(template: str) -> None:
    for number in range(1, 6):
        paper = plan(template, number, 61)
        source = CLASSES[template][1](paper)
        assert "\\begin{document}" in source and paper.title in source
        assert paper.people[0].given in source
        gold = paper.gold()
        assert gold["year"] == (paper.year if paper.printed else None)


def test_a_page_without_a_year_is_right_only_without_a_citation() -> None:
    row = {"authors": [{"given": "Ada", "family": "Lovelace"}], "year": None, "title": "T"}
    assert judge_citation(None, row) == "missing"
    assert judge_citation("Lovelace 1843, p. 1", row) == "wrong"
    rows = [
        {**row, "template": "x", "verdict": "missing", "title_ok": True, "meta_ok": False},
        {**row, "template": "x", "year": 1843, "verdict": "right", "title_ok": True,
         "meta_ok": True},
    ]  # fmt: skip
    assert "| x | 2 | 2/2 | 1/1 (100%) | 0/2 (0%) | 0/1 | 1/1 | 1/2 |" in table(rows)
