"""The steps after fusion are one configured list (issue 60): a ``.bib`` entry that describes a
PDF of the answer points at it instead of crowding it out, a manuscript's bibliography does not
fill the head, each step can be dropped, and a broken step leaves the order before it."""

from __future__ import annotations

from pathlib import Path

import pytest

from arr import codes
from arr.models import EvidenceChunk
from arr.ordering.bib_identity import BibIdentity
from arr.ordering.bib_points import BibEntryPointsAtPaper
from arr.ordering.known_items import KnownItemOrdering, default_steps
from arr.ordering.none import NoOrdering
from tests.conftest import SCOPE_A, lexical_router
from tests.integration.test_readers import root, workspace
from tests.readers_fixtures import headed_pdf_bytes, write

BODY = [f"Line {n} on logical clocks and the ordering of events in a system." for n in range(30)]
PAPER = [("Time, Clocks, and the Ordering of Events in a Distributed System", BODY)]
ENTRY = """@article{{{key},
  author = {{{authors}}},
  title = {{{title}}},
  year = {{1978}}
}}
"""
QUERY = "Lamport Fidge clocks"  # two surnames and a word: the names stand only in the .bib


def _bib(entries: int) -> bytes:
    first = ENTRY.format(key="lamport78", authors="Lamport, Leslie and Fidge, Colin",
                         title=PAPER[0][0])  # fmt: skip
    others = "".join(
        ENTRY.format(
            key=f"other{n}",
            authors=f"Author{n}, A. and Fidge, Colin",
            title=f"Clocks and events {n}",
        )  # fmt: skip
        for n in range(entries)
    )
    return (first + others).encode()


def _kinds(evidence: tuple[EvidenceChunk, ...]) -> list[str]:
    return [e.location.unit_kind or "lines" for e in evidence]


def _folder(tmp_path: Path, entries: int = 0, title_note: str = ""):  # type: ignore[no-untyped-def]
    ws = workspace(tmp_path)
    paper = [(PAPER[0][0] + title_note, PAPER[0][1])]
    write(root(ws) / "papers" / "clocks.pdf", headed_pdf_bytes(paper))
    write(root(ws) / "manuscript" / "paper.bib", _bib(entries))
    return ws


@pytest.mark.parametrize("note", ["", " [Extended Abstract]"], ids=["same-title", "title-note"])
def test_an_entry_that_describes_a_paper_of_the_answer_points_at_it(
    tmp_path: Path, note: str
) -> None:
    # a publisher's note after the PDF's title ("[Extended Abstract]": COLT) is not in the entry
    ws = _folder(tmp_path, title_note=note)
    without = lexical_router(ws, ordering=KnownItemOrdering([BibIdentity()])).search(QUERY, SCOPE_A)
    kinds = _kinds(without.evidence)
    # the compact entry (every word of the query in five lines) outranks the paper itself
    assert "page" in kinds and kinds.index("entry") < kinds.index("page")
    result = lexical_router(ws).search(QUERY, SCOPE_A)
    kinds = _kinds(result.evidence)
    assert kinds.index("page") < kinds.index("entry")
    first = next(e for e in result.evidence if e.location.unit_kind == "page")
    entry = next(e for e in result.evidence if e.location.unit_kind == "entry")
    assert result.evidence.index(first) + 1 == result.evidence.index(entry)  # it follows
    assert any("bib_points" in (t.note or "") for t in result.traces)


def test_a_bibliography_does_not_fill_the_head(tmp_path: Path) -> None:
    ws = _folder(tmp_path, entries=12)
    filler = "\n".join(f"Line {n} of a long week's notes on other things." for n in range(30))
    for n in range(10):  # notes that answer too, less compactly than the entries
        text = f"# Week {n}\n\n{filler}\nClocks came up once, and events.\n"
        write(root(ws) / "notes" / f"week{n}.md", text.encode())
    result = lexical_router(ws).search("clocks events", SCOPE_A)
    head = [e for e in result.evidence[:10] if e.location.unit_kind == "entry"]
    assert len(head) <= 3 and len(result.evidence) > 10
    loose = lexical_router(ws, ordering=NoOrdering()).search("clocks events", SCOPE_A)
    assert sum(e.location.unit_kind == "entry" for e in loose.evidence[:10]) > 3


class _Broken:
    name = "broken"

    def order(self, query, ranked, traces, channels):  # type: ignore[no-untyped-def]
        raise RuntimeError("boom")


class _Dropper:
    name = "dropper"

    def order(self, query, ranked, traces, channels):  # type: ignore[no-untyped-def]
        return ranked[1:]


def test_a_broken_step_leaves_the_order_before_it_and_says_which(tmp_path: Path) -> None:
    ws = _folder(tmp_path)
    steps = [*default_steps()]
    plain = lexical_router(ws, ordering=KnownItemOrdering(steps)).search(QUERY, SCOPE_A)
    for bad in (_Broken(), _Dropper()):
        with_bad = KnownItemOrdering([*steps[:3], bad, *steps[3:]])
        result = lexical_router(ws, ordering=with_bad).search(QUERY, SCOPE_A)
        assert [e.id for e in result.evidence] == [e.id for e in plain.evidence]
        (failed,) = [d for d in result.degradations if d.code == codes.ORDERING_FAILED]
        assert failed.detail.startswith(bad.name)


def test_the_shipped_list_is_every_step_and_none_runs_none() -> None:
    from hydra.utils import instantiate
    from omegaconf import OmegaConf

    from arr.compose.library import PROJECT_ROOT

    shipped = instantiate(OmegaConf.load(PROJECT_ROOT / "conf" / "ordering" / "known_items.yaml"))
    names = [step.name for step in shipped.rules]
    assert names == [step.name for step in default_steps()]
    assert names[:3] == ["merge_places", "lone_hits", "bib_identity"]
    assert names.index("bib_points") == names.index("exact_first") + 1
    none = instantiate(OmegaConf.load(PROJECT_ROOT / "conf" / "ordering" / "none.yaml"))
    assert none.rules == ()
    assert any(isinstance(step, BibEntryPointsAtPaper) for step in default_steps())


TITLE = "Sparse Models of Counts"
ABSTRACT = [
    "Sparse Models of Counts by Ada Quill.",
    "Abstract: sparse models of counts with a gamma prior, and how to fit them.",
] + [f"Line {n} of the introduction on counts and sparse models." for n in range(20)]
PARTS = [
    (TITLE, ABSTRACT),
    ("Related work", [f"Line {n} on earlier count models and their fits." for n in range(20)]),
    ("The model", ["The gamma prior is defined by its shape and its rate for each count.",
                   "Shape and rate are drawn once per row; the rate sets the sparsity."]
     + [f"Line {n} on sparse counts." for n in range(18)]),
]  # fmt: skip


def test_a_part_of_a_paper_leads_with_its_page_not_the_title_page(tmp_path: Path) -> None:
    from arr.ordering.part_first import PartFirst

    ws = workspace(tmp_path)
    write(root(ws) / "papers" / "counts.pdf", headed_pdf_bytes(PARTS))
    query = "where does Sparse Models of Counts define the gamma prior's shape and rate"
    steps = [s for s in default_steps() if not isinstance(s, PartFirst)]
    without = lexical_router(ws, ordering=KnownItemOrdering(steps)).search(query, SCOPE_A)
    assert [e.location.page for e in without.evidence[:1]] == [1]  # the title page leads
    result = lexical_router(ws).search(query, SCOPE_A)
    assert [e.location.page for e in result.evidence[:2]] == [3, 1]  # the part, then page 1
    assert any("part_first: p. 3 before p. 1" in (t.note or "") for t in result.traces)
    # the paper named by its title alone: its title page stays first
    titled = lexical_router(ws).search("Sparse Models of Counts", SCOPE_A)
    assert titled.evidence[0].location.page == 1


def test_a_part_of_a_notebook_leads_with_its_cell_not_the_title_cell(tmp_path: Path) -> None:
    import json

    from arr.ordering.part_first import PartFirst

    cells = [
        {"cell_type": "markdown", "metadata": {},
         "source": "# Rolling Regression\n\nRolling regression: a rolling regression fits a "
                   "regression on a rolling window, or on an expanding sample."},
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
         "source": "import statsmodels.api as sm\nfrom statsmodels import regression"},
        {"cell_type": "markdown", "metadata": {},
         "source": "## Expanding sample\n\nmin_nobs: the fit waits for enough data."},
    ] + [
        {"cell_type": "markdown", "metadata": {}, "source": f"## Part {n}\n\nRolling fits {n}."}
        for n in range(6)
    ]  # fmt: skip
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    ws = workspace(tmp_path)
    write(root(ws) / "notebooks" / "rolling.ipynb", json.dumps(notebook).encode())
    query = "Rolling Regression: the min_nobs option of an expanding sample"
    steps = [s for s in default_steps() if not isinstance(s, PartFirst)]
    without = lexical_router(ws, ordering=KnownItemOrdering(steps)).search(query, SCOPE_A)
    assert [e.location.cell for e in without.evidence[:1]] == [0]  # the title cell leads
    result = lexical_router(ws).search(query, SCOPE_A)
    assert [e.location.cell for e in result.evidence[:2]] == [2, 0]
    assert any("part_first: cell 2 before cell 0" in (t.note or "") for t in result.traces)
