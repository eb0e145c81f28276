"""The unit that holds the part first (``part_first``): a question about a part of a paper or
a notebook answers with the page or the cell that holds it, not the title page or title cell.

"Where does the Deep Exponential Families paper define the sparse gamma DEF" names the paper
and a part of it. Every channel ranks the title page high: it holds the paper's title and
names (the words that name the paper) and an abstract that touches every part. A notebook's
first cell is its title page: its heading and a paragraph on everything below. So when the
answer leads with a title unit (a PDF's page 1, a notebook's first cell or the cell holding its
title heading), this step weighs that file's units in the answer again by the query's other
words only (the words that are not the title's or the authors' names), with BM25 over those
units alone: a word every page holds says nothing about which page is meant, a word one page
holds says much. A unit that beats the title unit on those words leads; the title unit follows
it. A title, a list of names or a query that is all the file's own words has fewer than
``min_words`` other words and is left as it is; so is an answer led by any other unit.

A lead that is not a title unit is weighed again the same way when the query names its file
(``named_lead``: an author's name, or at least ``title_share`` of its title's words), and the
question's own form words (``where``, ``does``: bm25s' longer English list) are not counted
(``question_words``); the part is never a title unit. A claim that shares a word or two with a
title does not name the paper: there fusion's page stands (pdfgold's SciFact claims).

Designed on bench-breadth's first frozen questions whose gold names a page (part of a paper, a
finding, an exact phrase; 34: the right page first 26 -> 28), then measured once on questions
frozen before it ran (46 part-of-a-paper questions: .52 -> .67; 48 notebook questions: see
docs/fusion.md). ``named_lead`` and ``question_words`` were designed on those 46 (.67 -> .76)
and the 34 (28 -> 28), then measured once on a third round frozen before they ran (40
part-of-a-paper questions: the right page first .50 -> .60, 5 won, 1 lost; 40 notebook
questions .53 -> .55); pdfgold's page nDCG@10 .8154 -> .8142 (one claim in 300). Re-weighing
whichever unit leads (``title_unit_only: false``) cost pdfgold more (.802). k1 and b are BM25's
textbook values; ``title_share`` one half, not tuned.

A notebook's cell carries its section's heading as its title, so the notebook's own title is its
title unit's: a query that holds a cell's section heading says that cell is right, not that it
names the notebook (the first version took the section for the title and moved the right cell
away: "OLS residuals ... heteroskedasticity ... Breusch-Pagan" led by "Normality of the
residuals"). A cell is weighed with its section's heading (a code cell under "Heteroskedasticity
tests" never says so). Both measured after the fact on the two frozen notebook rounds (40: the
right cell first 22 -> 23; 48: 32 -> 32); pages are untouched.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable

from arr.models import EvidenceChunk, ToolTrace
from arr.ordering.rule import note_moved
from arr.readers.notebook import heading_of

UNITS = ("page", "cell")


class PartFirst:
    """When the answer leads with a file's title unit: that file's page or cell (among the first
    ``looked_at`` items) that best holds the query's words other than the title's and the
    authors' names, first, when it holds them better than the title unit does."""

    name = "part_first"

    def __init__(
        self,
        looked_at: int = 50,
        min_words: int = 2,
        k1: float = 1.2,
        b: float = 0.75,
        title_unit_only: bool = True,
        named_lead: bool = True,
        title_share: float = 0.5,
        question_words: bool = True,
    ):
        if looked_at < 2 or min_words < 1 or k1 <= 0 or not 0 <= b <= 1:
            raise ValueError(
                f"looked_at >= 2, min_words >= 1, k1 > 0 and 0 <= b <= 1, got {looked_at}, "
                f"{min_words}, {k1}, {b}"
            )
        # named_lead: a lead that is not the title unit is weighed again too when the query
        # names that file (an author's name, or title_share of its title's words: it asks for
        # a part of that paper); a query that names no file of the answer keeps fusion's unit.
        self.named_lead = named_lead
        self.title_share = title_share
        # question_words: the words of the question's form (where, does, which, ...: bm25s'
        # longer English list, NLTK's) are not counted among the part's words.
        self.question_words = question_words
        self.looked_at = looked_at
        self.min_words = min_words
        self.k1 = k1
        self.b = b
        self.title_unit_only = title_unit_only
        self._tokenize: Callable[[str], list[str]] | None = None
        self._form_words: frozenset[str] | None = None

    def order(
        self, query: str, ranked: list[EvidenceChunk], traces: list[ToolTrace], channels: int
    ) -> list[EvidenceChunk]:
        if not ranked or ranked[0].location.unit_kind not in UNITS:
            return ranked
        part_leads = self.title_unit_only and not title_unit(ranked[0])
        if part_leads and not self.named_lead:
            return ranked
        where = ranked[0].location
        tokenize = self._tokens()
        title = set(tokenize(_file_title(ranked[: self.looked_at]) or ""))
        names = {w for w in tokenize(where.citation or "") if not w.isdigit()} - title
        own = title | names
        asked = list(dict.fromkeys(tokenize(query)))
        if part_leads and not _names_file(asked, title, names, self.title_share):
            return ranked
        pages = {
            position: item
            for position, item in enumerate(ranked[: self.looked_at])
            if item.location.path == where.path and item.location.unit_kind == where.unit_kind
        }
        if len(pages) < 2:
            return ranked
        skipped = own | self._question_words() if self.question_words else own
        other = [word for word in asked if word not in skipped]
        if len(other) < self.min_words:
            return ranked
        scores = self._scores(other, {p: tokenize(_unit_text(item)) for p, item in pages.items()})
        # the part is never a title unit: a lead that is not one is not replaced by one
        parts = [p for p in scores if p == 0 or not title_unit(pages[p])]
        best = max(parts, key=lambda p: (scores[p], -p))
        if best == 0 or scores[best] <= scores[0]:
            return ranked
        moved = ranked[best]
        note_moved(traces, [moved], f"part_first: {_unit(moved)} before {_unit(ranked[0])}")
        return [moved] + [item for position, item in enumerate(ranked) if position != best]

    def _tokens(self) -> Callable[[str], list[str]]:
        """The BM25 channel's own tokenizer (stems, English stop words), built once."""
        if self._tokenize is None:
            from arr.tools.bm25.tokenize import english_stopwords, make_tokenizer

            self._tokenize = make_tokenizer("english", english_stopwords(), split_identifiers=False)
        return self._tokenize

    def _question_words(self) -> frozenset[str]:
        """bm25s' longer English stop list as the tokenizer stems it (``does`` -> ``doe``)."""
        if self._form_words is None:
            from bm25s.stopwords import STOPWORDS_EN_PLUS

            stems = self._tokens()(" ".join(STOPWORDS_EN_PLUS))
            self._form_words = frozenset(stems) | frozenset(STOPWORDS_EN_PLUS)
        return self._form_words

    def _scores(self, words: list[str], pages: dict[int, list[str]]) -> dict[int, float]:
        """BM25 of ``words`` over ``pages`` as a corpus of their own (a word's weight is how
        few of this paper's pages hold it)."""
        count = len(pages)
        held = Counter(word for tokens in pages.values() for word in set(tokens))
        mean = sum(len(t) for t in pages.values()) / count or 1.0
        scores = {}
        for position, tokens in pages.items():
            frequency = Counter(tokens)
            norm = self.k1 * (1 - self.b + self.b * len(tokens) / mean)
            scores[position] = sum(
                math.log(1 + (count - held[w] + 0.5) / (held[w] + 0.5))
                * frequency[w] * (self.k1 + 1) / (frequency[w] + norm)
                for w in words
                if frequency[w]
            )  # fmt: skip
        return scores


def title_unit(item: EvidenceChunk) -> bool:
    """A PDF's first page, a notebook's first cell, or a notebook cell that opens with a level-1
    heading (``# Rolling Regression``: the title, when code cells come first). A code cell that
    opens with a comment (``# Fit the model``) is not one: the reader names a markdown cell's
    section by its own heading, a code cell's by the heading above it."""
    where = item.location
    if where.unit_kind == "page":
        return where.page == 1
    if where.unit_kind != "cell":
        return False
    if where.cell == 0:
        return True
    first = item.full_text().lstrip().partition("\n")[0]
    return first.startswith("# ") and where.title is not None and heading_of(first) == where.title


def _unit_text(item: EvidenceChunk) -> str:
    """A unit's words: a page's text; a cell's with its section's heading (a code cell under
    "## Heteroskedasticity tests" is about heteroskedasticity though it never says so)."""
    where = item.location
    if where.unit_kind == "cell" and where.title:
        return f"{where.title}\n{item.full_text()}"
    return item.full_text()


def _file_title(ranked: list[EvidenceChunk]) -> str | None:
    """The title of the leading file: a PDF page carries its paper's title; a notebook cell
    carries its section's heading, so a notebook's title is its title unit's, where the answer
    holds that unit (a question that names a cell's section names the cell, not the notebook)."""
    where = ranked[0].location
    if where.unit_kind != "cell" or title_unit(ranked[0]):
        return where.title
    return next(
        (i.location.title for i in ranked if i.location.path == where.path and title_unit(i)),
        None,
    )


def _names_file(asked: list[str], title: set[str], names: set[str], share: float) -> bool:
    """The query names the file: one of its authors' names, or at least ``share`` of its title's
    words (a claim that shares a topic word or two with a title does not name the paper)."""
    held = set(asked)
    if names & held:
        return True
    return bool(title) and len(title & held) >= share * len(title)


def _unit(item: EvidenceChunk) -> str:
    where = item.location
    return f"p. {where.page}" if where.unit_kind == "page" else f"cell {where.cell}"
