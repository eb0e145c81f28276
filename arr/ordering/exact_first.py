"""Places a query names by their words first (``exact_first``): a title, an author and words
of a title, an author-year citation, a copied sentence or a pasted line of code
(:mod:`arr.ordering.exact`)."""

from __future__ import annotations

from arr.models import EvidenceChunk, ToolTrace
from arr.ordering.exact import LOOKED_AT, MIN_WORDS, QUOTED_MIN_WORDS, exact_positions
from arr.ordering.rule import note_moved
from arr.query.named_paths import put_first


class ExactFirst:
    """The items titled by the query (``titles``), cited by the author it names with words of
    their title (``authors``), named by an author-year citation (``citations``), or holding the
    query's words as a run (``phrases``: ``min_words`` words or more; a quoted phrase or a
    pasted line of code, ``code_lines``, from ``quoted_min_words``) move to the front, in their
    order, among the first ``looked_at``. With ``several_channels`` (the default) only where
    two or more channels answered: with one there is no fusion to bury a place."""

    name = "exact_first"

    def __init__(
        self,
        titles: bool = True,
        authors: bool = True,
        citations: bool = True,
        phrases: bool = True,
        code_lines: bool = True,
        min_words: int = MIN_WORDS,
        quoted_min_words: int = QUOTED_MIN_WORDS,
        looked_at: int = LOOKED_AT,
        several_channels: bool = True,
    ) -> None:
        if min_words < 2 or quoted_min_words < 2 or looked_at < 1:
            raise ValueError(
                f"min_words and quoted_min_words must be >= 2 and looked_at >= 1, got "
                f"{min_words}, {quoted_min_words}, {looked_at}"
            )
        self.kinds = {
            "titles": titles,
            "authors": authors,
            "citations": citations,
            "phrases": phrases,
            "code_lines": code_lines,
        }
        self.min_words = min_words
        self.quoted_min_words = quoted_min_words
        self.looked_at = looked_at
        self.several_channels = several_channels

    def order(
        self, query: str, ranked: list[EvidenceChunk], traces: list[ToolTrace], channels: int
    ) -> list[EvidenceChunk]:
        if self.several_channels and channels < 2:
            return ranked
        chosen = exact_positions(
            query,
            ranked,
            min_words=self.min_words,
            quoted_min_words=self.quoted_min_words,
            looked_at=self.looked_at,
            **self.kinds,
        )
        if not chosen or chosen == list(range(len(chosen))):
            return ranked
        note = (
            f"exact_first: {len(chosen)} item(s) titled by, cited as or holding the query "
            "word for word: put first"
        )
        note_moved(traces, [ranked[i] for i in chosen], note)
        return put_first(ranked, chosen)
