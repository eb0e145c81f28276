"""A PDF page's typeset lines as sentences: what grep matches a copied phrase against.

A typeset line ends wherever the column ended, so a sentence copied from a paper (ten words)
usually spans two or three of them, and a line-by-line search never sees it whole. After the
walls have judged the typeset lines (a token broken at a line end is judged joined), each page
is re-flowed: its lines joined with spaces and cut at sentence ends (``.``, ``?``, ``!``
before a capital, a digit or a bracket), a sentence longer than ``MAX_CHARS`` (what grep
shows of a line) cut at a space. Page units stay as they were; the words, and so bm25's and
the vector channel's text, do not change; only where grep's lines end does.
"""

from __future__ import annotations

import re

from arr.readers.view import View, build_view

_SENTENCE_END = re.compile(r"(?<=[.?!])\s+(?=[A-Z0-9(\[\"'\u2018\u201c])")
# a sentence (or a table, a formula) longer than this is cut at a space: grep shows a line's
# first 300 characters (arr.tools.grep.lines: max_line_chars), so a match stays in view
MAX_CHARS = 300


def sentences(lines: list[str] | tuple[str, ...]) -> list[str]:
    text = " ".join(line.strip() for line in lines if line.strip())
    out = []
    for sentence in _SENTENCE_END.split(text):
        while len(sentence) > MAX_CHARS:
            cut = sentence.rfind(" ", MAX_CHARS // 2, MAX_CHARS)
            cut = cut if cut > 0 else MAX_CHARS
            out.append(sentence[:cut])
            sentence = sentence[cut:].lstrip()
        if sentence:
            out.append(sentence)
    return out


def reflowed(view: View) -> View:
    """The view with each unit's lines as sentences (for views whose lines are not the
    file's own: PDF pages)."""
    if view.file_lines:
        return view
    blocks = [(u.anchor, u.title, sentences(view.lines[u.start - 1 : u.end])) for u in view.units]
    cited = [u.citation for u in view.units]
    known = [u.identity for u in view.units]
    return build_view(
        blocks,
        False,
        view.title,
        view.counters,
        citations=cited,
        identities=known,
    )
