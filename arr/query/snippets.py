"""Snippets that show why: the part of a chunk where the query matches, and where in it.

A chunk is 40 lines; its first 400 characters are often licence headers and imports while the
identifier the query names sits on line 31. ``centred`` picks the line holding the most of the
query's terms (the whole query as a phrase counts most, then identifiers, then words) and
returns a window of about ``width`` characters from the line before it; ``highlights`` gives the
character spans of the terms inside any snippet (JSON ``highlights``; emphasis on a terminal).
Case-insensitive, plain substring search: the same as grep's literal mode and the reranker.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache

_TOKEN = re.compile(r"[A-Za-z_][\w.]*[\w]|[A-Za-z_]\w*|--[\w-]+|\d[\w.]*")
MIN_WORD = 3
_STOP_WORDS = frozenset(
    (
        "the",
        "and",
        "for",
        "with",
        "are",
        "was",
        "were",
        "this",
        "that",
        "from",
        "why",
        "how",
        "what",
        "when",
        "which",
        "does",
        "did",
        "not",
        "can",
        "into",
        "onto",
        "than",
        "then",
        "its",
        "has",
        "have",
        "had",
        "but",
        "all",
        "any",
        "use",
        "using",
        "used",
    )
)


@lru_cache(maxsize=4096)
def match_terms(query: str) -> tuple[tuple[str, int], ...]:
    """(lower-cased term, weight): the phrase 3, identifiers 2, words 1; longest first."""
    lowered = " ".join(query.lower().split())
    terms: dict[str, int] = {}
    if len(lowered) >= MIN_WORD and " " in lowered:
        terms[lowered] = 3
    for token in _TOKEN.findall(query):
        low = token.lower().strip(".")
        if len(low) < MIN_WORD or low in _STOP_WORDS:
            continue
        code_like = (
            "_" in token
            or "." in token
            or token.startswith("--")
            or (any(c.isupper() for c in token[1:]) and any(c.islower() for c in token))
        )
        terms[low] = max(terms.get(low, 0), 2 if code_like else 1)
    return tuple(sorted(terms.items(), key=lambda t: (-len(t[0]), t[0])))


def highlights(text: str, query: str) -> tuple[tuple[int, int], ...]:
    """Non-overlapping (start, end) spans of the query's terms in ``text``, in order."""
    terms = match_terms(query)
    if not terms or not text:
        return ()
    lower = text.lower()
    spans: list[tuple[int, int]] = []
    taken: bytearray | None = None  # characters inside a span, once a second span exists
    for term, _ in terms:  # longest first: a phrase wins over the words inside it
        start = lower.find(term)
        while start >= 0:
            end = start + len(term)
            if not spans:
                spans.append((start, end))
            else:
                if taken is None:
                    taken = bytearray(len(lower))
                    first = spans[0]
                    taken[first[0] : first[1]] = b"\x01" * (first[1] - first[0])
                if not taken.count(1, start, end):
                    taken[start:end] = b"\x01" * (end - start)
                    spans.append((start, end))
            start = lower.find(term, end)
    return tuple(sorted(spans))


MAX_OCCURRENCES = 64  # lines looked at per term: enough for a 40-line chunk


def centred(text: str, query: str, width: int) -> str:
    """About ``width`` characters of ``text`` around its best-matching line (from the line
    before it); the head of the text when no term matches or the text is short enough."""
    if len(text) <= width or text.count("\n", width) < 2:
        return text[:width]  # short, or one paragraph after the head: lines cannot centre it
    terms = match_terms(query)
    if not terms:
        return text[:width]
    lower = text.lower()
    starts = [0]
    newline = lower.find("\n")
    while newline >= 0:
        starts.append(newline + 1)
        newline = lower.find("\n", newline + 1)
    found: dict[int, dict[str, int]] = {}  # line -> term -> weight (distinct terms count)
    lines = len(starts)
    for term, weight in terms:
        position, seen = lower.find(term), 0
        while position >= 0 and seen < MAX_OCCURRENCES:
            line = bisect_right(starts, position) - 1
            found.setdefault(line, {})[term] = weight
            if line + 1 >= lines:
                break
            # the next line that holds the term (a line counts each term once)
            position, seen = lower.find(term, starts[line + 1]), seen + 1
    if not found:
        return text[:width]
    best = min(found, key=lambda line: (-sum(found[line].values()), line))
    if best <= 0:
        return text[:width]
    start = starts[best - 1]  # one line of context before the match
    if len(text) - start < width:  # near the end: show the last width characters, from a line
        start = next((s for s in starts if len(text) - s <= width), start)
    return text[start : start + width]
