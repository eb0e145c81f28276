"""The page that holds the part first (``part_page``): a question about a part of a paper
answers with that page, not the paper's title page.

"Where does the Deep Exponential Families paper define the sparse gamma DEF" names the paper
and a part of it. Every channel ranks the title page high: it holds the paper's title and
names (the words that name the paper) and an abstract that touches every part. So when the
answer leads with a PDF's page 1, this step weighs that PDF's pages in the answer again by the
query's other words only (the words that are not the paper's title or its authors' names),
with BM25 over those pages alone: a word every page holds says nothing about which page is
meant, a word one page holds says much. A page that beats page 1 on those words leads; page 1
follows it. A title, a list of names or a query that is all the paper's own words has fewer
than ``min_words`` other words and is left as it is; so is an answer led by any other page.

Measured on bench-breadth's frozen questions whose gold names a page (part of a paper, a
finding, an exact phrase; 34): the right page first 26 -> 28, no page lost; within-paper
BM25 over all the query's words, or blended with the fused order (RRF), did not beat the fused
order there. k1 and b are BM25's textbook values, not fitted.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable

from arr.models import EvidenceChunk, ToolTrace
from arr.ordering.rule import note_moved


class PartPage:
    """When the answer leads with a PDF's title page: that PDF's page (among the first
    ``looked_at`` items) that best holds the query's words other than the paper's title and
    names, first, when it holds them better than page 1 does."""

    name = "part_page"

    def __init__(self, looked_at: int = 50, min_words: int = 2, k1: float = 1.2, b: float = 0.75):
        if looked_at < 2 or min_words < 1 or k1 <= 0 or not 0 <= b <= 1:
            raise ValueError(
                f"looked_at >= 2, min_words >= 1, k1 > 0 and 0 <= b <= 1, got {looked_at}, "
                f"{min_words}, {k1}, {b}"
            )
        self.looked_at = looked_at
        self.min_words = min_words
        self.k1 = k1
        self.b = b
        self._tokenize: Callable[[str], list[str]] | None = None

    def order(
        self, query: str, ranked: list[EvidenceChunk], traces: list[ToolTrace], channels: int
    ) -> list[EvidenceChunk]:
        if not ranked or ranked[0].location.unit_kind != "page" or ranked[0].location.page != 1:
            return ranked
        where = ranked[0].location
        pages = {
            position: item
            for position, item in enumerate(ranked[: self.looked_at])
            if item.location.path == where.path and item.location.page is not None
        }
        if len(pages) < 2:
            return ranked
        tokenize = self._tokens()
        own = set(tokenize(f"{where.title or ''} {where.citation or ''}"))
        other = [word for word in dict.fromkeys(tokenize(query)) if word not in own]
        if len(other) < self.min_words:
            return ranked
        scores = self._scores(other, {p: tokenize(item.full_text()) for p, item in pages.items()})
        best = max(scores, key=lambda p: (scores[p], -p))
        if best == 0 or scores[best] <= scores[0]:
            return ranked
        moved = ranked[best]
        note_moved(traces, [moved], f"part_page: p. {moved.location.page} before the title page")
        return [moved] + [item for position, item in enumerate(ranked) if position != best]

    def _tokens(self) -> Callable[[str], list[str]]:
        """The BM25 channel's own tokenizer (stems, English stop words), built once."""
        if self._tokenize is None:
            from arr.tools.bm25.tokenize import english_stopwords, make_tokenizer

            self._tokenize = make_tokenizer("english", english_stopwords(), split_identifiers=False)
        return self._tokenize

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
