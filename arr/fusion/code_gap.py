"""The vocabulary gap between a question in words and code: when to trust word matches less.

A query written in plain words ("how to move the cursor to the next line") shares few words
with the code that answers it (``def step_next_line(self): ... self._lineno += 1``), and the
words it does share (``line``, ``move``, ``get``) occur in code that does something else: the
lexical gap of code search (Gu et al., "Deep Code Search", ICSE 2018; Husain et al.,
CodeSearchNet, 2019). A dense channel bridges it; BM25 cannot. So when the query is prose
(the rule planner's ``semantic`` shape: no identifier, path, flag or error text to anchor a
word match) and the lexical channels' heads are code, their weight in the fusion is lowered
to ``weight`` (fitted on a training split, recorded in the config). A query that names an
identifier, or a lexical head of prose, keeps equal weights: there the word match is
evidence.

Code is told from prose by its marks, counted per letter: the characters ``_={};#`` and a
call or index (``(`` or ``[`` not opened after a space or line break: ``f(x)``, ``a[0]``;
prose puts a space before its brackets: "(IL-6)", "[12]"). Measured on the top-10 snippets of
150 queries per collection (``benchmarks.retrieval.fusion``):

- SciFact abstracts: 0.000 / 0.003 / 0.010 (50th / 95th / 99th percentile);
- functions, 1st / 5th / 50th percentile: CoSQA 0.010 / 0.022 / 0.058, networkx 0.034 / 0.051
  / 0.098, pandas 0.026 / 0.040 / 0.086, matplotlib 0.031 / 0.048 / 0.094;
- the demo's notes 0.004-0.015, its Python 0.060-0.100.

One snippet can be misread; the majority of a head of ten decides.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arr.fusion.traits import LEXICAL, SHIPPED, having
from arr.models import EvidenceChunk
from arr.query.shape import query_shape  # the planner's own reading of the query

CODE_CHARACTERS = "_={};#"
_MARKS = tuple(c.encode() for c in CODE_CHARACTERS)
_NOT_LETTERS = bytes(b for b in range(256) if not chr(b).isascii() or not chr(b).isalpha())
_OPENING = (b"(", b"[")  # f(x), a[0]: a bracket glued to what precedes it
_SPACED_OPENING = tuple(space + b for space in (b" ", b"\n", b"\t") for b in _OPENING)
CODE_SHARE = 0.02  # code marks per letter: prose <= 0.010 (99th pct), code >= 0.021 (5th pct)
SAMPLE_CHARS = 600  # a snippet's first characters decide; the rest adds time, not evidence
HEAD = 10  # the lexical head whose majority decides
# the shipped lexical channels, for lists fused without tools (the Router's fusion asks its own)
LEXICAL_CHANNELS = having(SHIPPED, LEXICAL)


def looks_like_code(text: str) -> bool:
    """True when ``text`` reads as source code rather than prose (see the module docstring).
    Letters are ASCII letters: code is written in them, and counting them is a C-level
    ``translate`` (a loop over characters made fusion twice as slow)."""
    sample = text[:SAMPLE_CHARS]
    raw = sample.encode("ascii", "ignore")
    letters = len(raw.translate(None, _NOT_LETTERS))
    if not letters:
        return False
    marks = sum(raw.count(mark) for mark in _MARKS)
    # calls and indexes: brackets not opened after a space or line break ("f(x)", not " (IL-6)")
    marks += sum(raw.count(b) for b in _OPENING) - sum(raw.count(b) for b in _SPACED_OPENING)
    return marks / letters >= CODE_SHARE


def head_is_code(rankings: Mapping[str, Sequence[EvidenceChunk]], channels: Sequence[str]) -> bool:
    """True when most of the named channels' top ``HEAD`` snippets (together) are code."""
    head = [c for name in channels for c in rankings.get(name, ())[:HEAD]]
    code = prose = 0
    for chunk in head:  # stops as soon as the majority is decided
        if looks_like_code(chunk.snippet):
            code += 1
            if 2 * code > len(head):
                return True
        else:
            prose += 1
            if 2 * prose >= len(head):
                return False
    return False


def code_gap_weights(
    query: str,
    rankings: Mapping[str, Sequence[EvidenceChunk]],
    weight: float,
    channels: Sequence[str] = LEXICAL_CHANNELS,
) -> dict[str, float]:
    """Per-query channel weights: ``weight`` for the lexical ``channels`` when the query is
    prose and their head is code, else 1.0 for every channel."""
    lexical = [c for c in channels if rankings.get(c)]
    gap = (
        bool(lexical)
        and query_shape(query[:2000]) == "semantic"
        and not head_is_tree(rankings, lexical)
        and head_is_code(rankings, lexical)
    )
    return {c: (weight if gap and c in lexical else 1.0) for c in rankings}


def head_is_tree(rankings: Mapping[str, Sequence[EvidenceChunk]], channels: Sequence[str]) -> bool:
    """True when most of the lexical head are places in files (chunks and lines of a tree),
    not documents of a collection. The gap was measured where each document is one function
    and the question a web search (CoSQA: +0.05 nDCG@10); on a researcher's own tree the
    questions are written in the tree's own words (a maintainer's "fix autodoc crash on
    __slots__"), and down-weighting bm25 there cost 0.035 on Sphinx's 1,126 fix descriptions
    (benchmarks.retrieval.wsgold), so a tree's chunks keep their lexical weight."""
    head = [c for name in channels for c in rankings.get(name, ())[:HEAD]]
    return 2 * sum(1 for c in head if c.location.path) > len(head)
