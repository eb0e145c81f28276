"""Paths a query names: ``routing/rules.py``, ``src/pkg/a.py:120``, ``a.py#L12``,
``File "/home/ci/proj/pkg/a.py", line 120``.

A query that names a file (or a line of one) asks for that place; its text shares few words
with the place's. The grep channel looks the named files up among the files it may read
(:mod:`arr.tools.grep.paths`), and the Router puts the places the query names first
(:func:`named_first`), whatever the channels' scores: only items a channel returned (and the
Router admitted) move, nothing is read or added here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from arr.models import EvidenceChunk

_PATH_TOKEN = re.compile(r"(?:[\w.\-]+/)*[\w\-]+\.[A-Za-z][\w]{0,7}\b|(?:[\w.\-]+/)+[\w.\-]+")
# Every path token has a folder or a name with an extension: without ``/``, ``\\`` or a
# ``name.ext`` no token can match (a sentence's full stop is followed by a space or nothing).
_NAME_DOT_EXTENSION = re.compile(r"[\w\-]\.[A-Za-z]")
# The line a path names, right after it: compilers, linters and rg (``:120``, ``:120:5``),
# GitHub (``#L120``), Python tracebacks (``", line 120``).
_LINE_AFTER = re.compile(r':(\d+)\b|#L(\d+)\b|"?,? line (\d+)\b')


@dataclass(frozen=True)
class NamedPath:
    token: str  # without a leading ``./`` or ``/``; ``\`` read as ``/``
    line: int | None = None


def named_paths(query: str) -> list[NamedPath]:
    """Path-shaped tokens of the query (a name with an extension, or with a folder), in the
    query's order, each with the line it names, if any."""
    if "/" not in query and "\\" not in query and not _NAME_DOT_EXTENSION.search(query):
        return []  # the common case (this runs for every search): no path can be named
    query = query.replace("\\", "/")
    found = []
    for match in _PATH_TOKEN.finditer(query):
        token = match.group().removeprefix("./").strip("/")
        if not token or not ("/" in token or "." in token) or token.replace(".", "").isdigit():
            continue
        after = _LINE_AFTER.match(query, match.end())
        line = int(next(g for g in after.groups() if g)) if after else 0
        found.append(NamedPath(token, line or None))
    return found


WHOLE = 100  # names() of a token that is the path's whole tail, above any partial match


def names(path: str, token: str) -> int:
    """How well ``token`` names the file at ``path``, higher is more specific; 0: it does not.

    ``WHOLE`` + its component count when the token is the path or its end at a folder boundary
    (``rules.py`` names ``src/routing/rules.py``). Else, when the two end alike in at least a
    folder and the name, twice the number of trailing components they share, plus one when
    that is the whole path: a path from elsewhere (an absolute path, another machine's
    traceback, one without the root's folder ARR shows) names the file it ends like
    (``/ci/proj/pkg/a.py`` names ``pkg/a.py``, and less well ``src/pkg/a.py``), but a bare name
    does not (else every ``x/a.py`` would name a top-level ``a.py``)."""
    if path == token or path.endswith("/" + token):
        return WHOLE + token.count("/") + 1
    ours, theirs = path.split("/"), token.split("/")
    shared = 0
    for mine, other in zip(reversed(ours), reversed(theirs), strict=False):
        if mine != other:
            break
        shared += 1
    if shared < 2:
        return 0
    return 2 * shared + (shared == len(ours))


def _covers(item: EvidenceChunk, line: int | None) -> bool:
    where = item.location
    if line is None:
        return True
    if not where.start_line:
        return False
    return where.start_line <= line <= (where.end_line or where.start_line)


def named_places(query: str, evidence: Sequence[EvidenceChunk]) -> list[int]:
    """Positions of the items the query names, in the query's order: for each named path, the
    best ranked item of a file it names (the most specific name first) that holds the named
    line, or, when no line is named or no item holds it, the file's best ranked item."""
    chosen: list[int] = []
    for named in named_paths(query):
        level = {
            i: how
            for i, item in enumerate(evidence)
            if item.location.path
            and i not in chosen
            and (how := names(item.location.path, named.token))
        }
        if not level:
            continue
        best = max(level.values())  # the most specific name wins
        in_file = [i for i, how in level.items() if how == best]
        holding = [i for i in in_file if _covers(evidence[i], named.line)]
        chosen.append((holding or in_file)[0])
    return chosen


def put_first(evidence: Sequence[EvidenceChunk], positions: list[int]) -> list[EvidenceChunk]:
    """The items at ``positions`` (in that order), then every other item in its order."""
    moved = set(positions)
    return [evidence[i] for i in positions] + [c for i, c in enumerate(evidence) if i not in moved]


def named_first(query: str, evidence: Sequence[EvidenceChunk]) -> list[EvidenceChunk]:
    """The items the query names (:func:`named_places`) first; everything else keeps its
    order."""
    return put_first(evidence, named_places(query, evidence))


# Source files by extension: their names are a namespace of modules; documents' names
# (paper.bib, notes.md, main.tex, report.pdf) are generic words.
_CODE_SUFFIXES_TEXT = (
    "py pyi pyx ipynb js jsx ts tsx java kt scala c h cc cpp hpp cs go rs rb php pl r jl m "
    "swift lua sh bash zsh sql hs ml ex exs erl clj el vim"
)
CODE_SUFFIXES = frozenset(_CODE_SUFFIXES_TEXT.split())


def is_code(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return "." in name[1:] and name.rsplit(".", 1)[1].lower() in CODE_SUFFIXES
