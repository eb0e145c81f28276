"""An exact match first: the places that hold a copied sentence word for word lead the answer.

A researcher who pastes a sentence from a paper ("timestamps fall within ten days of the
current time") wants the page that holds it, not the passages that mean something alike: in
fusion, vector passages and file-name matches could bury it. So after reranking, the items
whose text holds the query's words in order, as a run (case, punctuation, line breaks and
hyphens aside), move to the front in their order. It applies to a query of ``MIN_WORDS`` words
or more, or to a quoted one (``"..."``) or a pasted line of code (``forecast =
res.get_forecast('2014')``) of 3 or more; a shorter query is a look-up, where holding every
word in a row says little. An author-year citation (``Gruntz 1996``, ``Goyal et
al. 2017``) puts the BibTeX entries whose label it is first (before the passages citing it),
then the paper's own pages where the folder holds it (their citation names that author and
year; page 1 first).
A query that is a place's title (a paper's, a section's or a cell's heading: ``The amsmath
package``, ``SAT Solving``), or 4+ words of it in a row (``The Extension of TEX`` for ``EncTEX:
The Extension of TEX for Input Re-encoding``), puts the places so titled first, before those
holding it as a run: the paper named by its title, not the manual that mentions it on every
page. So does a query naming an author and words of the title (``Oberdiek ltxcmds``, ``Ongaro
consensus``): the places cited by that author (their ``citation``) whose title holds the other
words; a short query of a name and a topic is how a researcher asks for a paper they know.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from arr.models import EvidenceChunk
from arr.query.shape import is_prose, quoted

MIN_WORDS = 6
QUOTED_MIN_WORDS = 3
LOOKED_AT = 100  # items checked (a phrase's page is in the fused head when any channel had it)
_WORD = re.compile(r"[^\W_]+")
_CODE_LINE = re.compile(r"\w\s*\(|\w\s*=[^=]|\w\[")  # a call, an assignment, an index


def phrase_words(
    query: str,
    min_words: int = MIN_WORDS,
    quoted_min_words: int = QUOTED_MIN_WORDS,
    code_lines: bool = True,
) -> tuple[str, ...] | None:
    """The query's words (lower case) to look for as a run, or None when too short."""
    inside = quoted(query)
    words = _WORD.findall((inside if inside is not None else query).lower())
    short = inside is not None or (code_lines and code_line(query))
    least = quoted_min_words if short else min_words
    return tuple(words) if len(words) >= least else None


def code_line(query: str) -> bool:
    """A line of code pasted (``forecast = res.get_forecast('2014')``, ``print(res.summary())``):
    a call, an assignment or an index, not in prose (``how do I call fit() twice``); where it
    stands word for word is the place (a notebook's cell, a file's line), wherever fusion put
    it."""
    return bool(_CODE_LINE.search(query)) and not is_prose(query.split())


def _run_at(lowered: str, words: tuple[str, ...], at: int) -> bool:
    """The words in a row from ``at``: each followed by a run of non-letters/digits (none
    after the last, where a letter or digit must not follow)."""
    size = len(lowered)
    for number, word in enumerate(words):
        if not lowered.startswith(word, at):
            return False
        at += len(word)
        gap = at
        while gap < size and not lowered[gap].isalnum():
            gap += 1
        if number < len(words) - 1:
            if gap == at:  # "timestampsfall" is not "timestamps fall"
                return False
            at = gap
    return at >= size or not lowered[at].isalnum()


def holds(text: str, words: tuple[str, ...], rarest: str) -> bool:
    """Whether the text holds the words as a run (case, punctuation and line breaks aside).
    No regex is compiled per query (that cost more than the whole bm25 call): one substring
    scan for the rarest word, then a walk from each occurrence of the first."""
    lowered = text.lower()
    if rarest not in lowered:
        return False
    first = words[0]
    at = lowered.find(first)
    while at != -1:
        if (at == 0 or not lowered[at - 1].isalnum()) and _run_at(lowered, words, at):
            return True
        at = lowered.find(first, at + 1)
    return False


# "Gruntz 1996", "Ongaro and Ousterhout 2014", "Goyal et al. 2017": a citation looked up
_CITATION = re.compile(
    r"\s*([^\W\d_][\w'\u2019-]+)(?:\s+(?:and|&)\s+[^\W\d_][\w'\u2019-]+|\s+et\s+al\.?)?,?\s+"
    r"\(?((?:19|20)\d\d)[a-z]?\)?\s*"
)


def citation_label(query: str) -> str | None:
    """``[gruntz 1996]``: the label a BibTeX entry is indexed with (arr.readers.bibtex), when
    the query is an author-year citation, else None."""
    match = _CITATION.fullmatch(query)
    return f"[{match[1].lower()} {match[2]}]" if match else None


TITLE_MIN_WORDS = 2  # one word names a topic more often than a title
TITLE_PREFIX_MIN_WORDS = 3  # a title's opening words, when the heading ran on into authors
TITLE_RUN_MIN_WORDS = 4  # words of a title in a row (its subtitle, after a name or a colon)
AUTHOR_TOPIC_MAX_WORDS = 5  # "Oberdiek ltxcmds", "van Rossum generators": short look-ups


def is_titled(query_words: tuple[str, ...], title: str | None) -> bool:
    """Whether ``title`` (a place's heading; a LaTeX section's path ``A › B``) is the query: the
    same words (case and punctuation aside), or its last part's, or its opening run of 3+ words
    (a first page's heading in large type often runs on into the authors' names)."""
    if not title or len(query_words) < TITLE_MIN_WORDS:
        return False
    lowered = title.lower()
    if query_words[0] not in lowered:  # most titles, at the cost of one substring scan
        return False
    whole = tuple(_WORD.findall(lowered))
    if whole == query_words:
        return True
    if "\u203a" in lowered and tuple(_WORD.findall(lowered.rsplit("\u203a", 1)[1])) == query_words:
        return True
    if len(query_words) >= TITLE_PREFIX_MIN_WORDS and whole[: len(query_words)] == query_words:
        return True
    return len(query_words) >= TITLE_RUN_MIN_WORDS and _contains(whole, query_words)


def titled_exactly(query_words: tuple[str, ...], item: EvidenceChunk) -> bool:
    """Whether the item's title is the query's words, no more."""
    return tuple(_WORD.findall((item.location.title or "").lower())) == query_words


def cited_as(label: str, item: EvidenceChunk) -> bool:
    """Whether a place's citation is the one a label names (``[ongaro 2014]``: its first
    author's surname, or that name's last word, and its year)."""
    names, year = parsed_citation(item.location.citation)
    first, asked_year = label[1:-1].rsplit(" ", 1)
    return bool(names) and year == asked_year and first in (" ".join(names[0]), names[0][-1])


def _contains(words: tuple[str, ...], run: tuple[str, ...]) -> bool:
    size = len(run)
    return any(words[at : at + size] == run for at in range(len(words) - size + 1))


_CITED = re.compile(r"^(?P<who>.*?)(?:\s+(?P<year>(?:19|20)\d\d)[a-z]?)?(?:,\s*p\.\s*\S+)?$")


def parsed_citation(citation: str | None) -> tuple[list[tuple[str, ...]], str | None]:
    """The names a citation gives, as lower-case words, and its year: ``Ongaro & Ousterhout
    2014, p. 3`` -> ``([("ongaro",), ("ousterhout",)], "2014")``; ``van Rossum et al. 2009``
    -> ``([("van", "rossum")], "2009")``."""
    match = _CITED.match(citation or "")
    if not citation or match is None:
        return [], None
    who = match["who"].replace(" et al.", "")
    names = [words for name in who.split(" & ") if (words := tuple(_WORD.findall(name.lower())))]
    return names, match["year"]


def by_author(query_words: tuple[str, ...], citation: str | None, title: str | None) -> bool:
    """Whether the query is an author the citation names and words of the title: every query
    word is the name's or the title's, and there is at least one of each."""
    if not 2 <= len(query_words) <= AUTHOR_TOPIC_MAX_WORDS or not citation or not title:
        return False
    titled = set(_WORD.findall(title.lower()))
    names, _ = parsed_citation(citation)
    # a name's last word alone too: "Han The Thanh" (read as one body's name) is "Thanh"
    for name in names + [name[-1:] for name in names if len(name) > 1]:
        size = len(name)
        for at in range(len(query_words) - size + 1):
            if query_words[at : at + size] == name:
                rest = query_words[:at] + query_words[at + size :]
                if rest and all(word in titled for word in rest):
                    return True
    return False


def _inside_a_pdf(item: EvidenceChunk) -> bool:
    """A PDF's page after its first: titled by a heading inside a collection or a book, so it
    follows a PDF whose first page (where a paper's title is typeset) bears the title."""
    return item.location.page not in (None, 1)


def exact_positions(
    query: str,
    ranked: Sequence[EvidenceChunk],
    *,
    citations: bool = True,
    titles: bool = True,
    authors: bool = True,
    phrases: bool = True,
    code_lines: bool = True,
    min_words: int = MIN_WORDS,
    quoted_min_words: int = QUOTED_MIN_WORDS,
    looked_at: int = LOOKED_AT,
) -> list[int]:
    """Positions of the items titled by the query, then of those that hold the query's words as
    a run (or, for an author-year citation, the bibliography entries it names), each in ranked
    order. Each kind of match can be switched off (:class:`arr.ordering.exact_first.ExactFirst`
    takes them from the config)."""
    label = citation_label(query) if citations else None
    if label is not None:
        head = ranked[:looked_at]
        entries = [i for i, c in enumerate(head) if label in c.full_text().lower()]
        # then the paper itself, where the folder holds it: the pages cited so, page 1 first
        papers = [i for i, c in enumerate(head) if i not in entries and cited_as(label, c)]
        return entries + sorted(papers, key=lambda i: _inside_a_pdf(head[i]))
    inside = quoted(query)
    asked = tuple(_WORD.findall((inside if inside is not None else query).lower()))
    titled = [
        i
        for i, c in enumerate(ranked[:looked_at])
        if (titles and is_titled(asked, c.location.title))
        or (authors and by_author(asked, c.location.citation, c.location.title))
    ]
    # a PDF's first page first; among equals, the title that is the query before one that
    # opens with it (colortbl.pdf before colortbl-DE.pdf, "The colortbl package ... Übersetzung")
    titled.sort(key=lambda i: (_inside_a_pdf(ranked[i]), not titled_exactly(asked, ranked[i])))
    words = phrase_words(query, min_words, quoted_min_words, code_lines) if phrases else None
    if words is None:
        return titled
    rarest = max(words, key=len)
    first = set(titled)
    return titled + [
        i
        for i, item in enumerate(ranked[:looked_at])
        if i not in first and holds(item.full_text(), words, rarest)
    ]
