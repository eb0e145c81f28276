"""A file's name is evidence: query words that name a place in the tree (``path_match``).

A maintainer's description of a fix names the module it touches more often than not ("fix
setting CSP header options" -> ``datastructures/csp.py``, "reloader path split on Windows" ->
``_reloader.py``, "autodoc crash on __slots__" -> ``ext/autodoc/__init__.py``). Matching the
query against file paths is one of the oldest signals of bug localisation (the file-name
similarity of Saha et al., "Improving bug localization using structured information retrieval",
ASE 2013; Lucia et al. 2014); the content channels see a path only when it is written inside
the file.

``path_match`` scores one candidate path: the inverse document frequency of each query word
that is also a word of the path, summed and divided by ``log N``, where ``N`` and the document
frequencies count the candidate paths of this query (the files the channels returned; nothing
is read from disk, so only places a channel already admitted are ever scored). A word every
candidate path holds (``src``, the package's own name) weighs 0; a word only one path holds
weighs 1. Words are split at ``/``, ``_``, ``.``, ``-`` and camelCase humps, lower-cased and
reduced to a crude stem (``parsing``/``parser`` -> ``pars``; ``parse`` stays): a path word is
matched whole, so "parser" names ``form_parser.py`` and not ``formparser.py``.

Which query words may name a file (``words``): ``naming`` (the default) counts a word of an
identifier-shaped token (``form_parser``, ``FormParser``, ``a.b``, ``path/x``, a quoted or
back-ticked name), a capitalised word where a sentence would not capitalise it (a name:
``Chen 2015``, ``the Raft paper``), a word that is not an ordinary English word (``csp``,
``reloader``, ``autodoc``: the packaged model's vocabulary decides) and a word that is a
candidate source file's whole stem (``rules`` names ``rules.py``; ``paper`` does not name
``paper.bib``: a document's name is a generic word); an English word of prose that a
longer file name happens to share does not (``file system`` in a description of a lock
service named a file system paper's file; ``state`` and ``machines`` named
``...replicated-state-machines.pdf``).
``all`` counts every word (the rule before; ``fusion.path_words=all``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

from arr.query.named_paths import is_code

_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_SUFFIXES = ("ing", "ers", "er", "ed", "es", "s")
MIN_STEM = 3
# Words of a fix description that name no place: the task, not the module.
_STOP = frozenset(
    (
        "and",
        "are",
        "bug",
        "bugfix",
        "can",
        "correct",
        "correctly",
        "does",
        "don",
        "fix",
        "fixes",
        "for",
        "from",
        "handle",
        "has",
        "have",
        "into",
        "issue",
        "not",
        "prevent",
        "should",
        "that",
        "the",
        "this",
        "was",
        "when",
        "with",
        "without",
    )
)


def stem(word: str) -> str:
    """Lower case without a common English ending, when enough of the word is left."""
    word = word.lower()
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + MIN_STEM and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


@lru_cache(maxsize=8192)
def path_words(path: str) -> frozenset[str]:
    """The stems of a path's words (directories, file name, extension)."""
    return frozenset(stem(w) for w in _WORD.findall(path) if len(w) >= MIN_STEM)


def query_words(query: str) -> frozenset[str]:
    """The stems of the query's words that could name a place."""
    words = _WORD.findall(query[:2000])
    return frozenset(stem(w) for w in words if len(w) >= MIN_STEM and w.lower() not in _STOP)


WORDS = ("naming", "all")
_TOKEN = re.compile(r"\S+")
_QUOTED = re.compile(r"[`'\"]([^`'\"\s]+)[`'\"]")
# a token shaped as an identifier or a path: an inner _ . / :: or -, a capital after a lower-case
# letter (camelCase), a digit among letters
_IDENTIFIER = re.compile(r"\w[_./:\\]\w|[a-z][A-Z]|[A-Za-z]\d|\d[A-Za-z]|\w-\w.*[_./]")


def naming_words(query: str) -> tuple[frozenset[str], frozenset[str]]:
    """(stems that name a file wherever they match, stems of prose words that name a file only
    as its whole stem): see the module docstring."""
    from arr.query.lexicon import english_words

    lexicon = english_words()
    named: set[str] = set()
    prose: set[str] = set()
    text = query[:2000]
    quoted = {m[1] for m in _QUOTED.finditer(text)}
    tokens = _TOKEN.findall(text)
    for position, token in enumerate(tokens):
        bare = token.strip("`'\"()[]{},;:!?")
        # a capital where a sentence does not put one is a name (``Chen 2015``, ``the Raft
        # paper``): the first word of a sentence of 4+ words is capitalised by spelling alone
        proper = bare[:1].isupper() and (position > 0 or len(tokens) <= 3)
        shaped = bare in quoted or proper or bool(_IDENTIFIER.search(bare))
        for word in _WORD.findall(bare):
            if len(word) < MIN_STEM or word.lower() in _STOP:
                continue
            plain = word.lower() in lexicon and not shaped
            (prose if plain else named).add(stem(word))
    return frozenset(named), frozenset(prose - named)


@lru_cache(maxsize=8192)
def file_stem(path: str) -> str:
    """A path's file name without its extension, as one stem (``rules.py`` -> ``rules``)."""
    name = path.rsplit("/", 1)[-1]
    return stem(name.rsplit(".", 1)[0] if "." in name[1:] else name)


def path_matches(query: str, paths: Iterable[str], words: str = "naming") -> dict[str, float]:
    """The candidate paths that match the query, each with its match (see the module
    docstring); a path no word matches is left out. Fewer than two candidates: no evidence to
    weigh a word by, no match."""
    if words not in WORDS:
        raise ValueError(f"path words must be one of {list(WORDS)}, got {words!r}")
    unique = set(paths)
    if words == "all":
        wanted, prose = query_words(query), frozenset[str]()
    else:
        wanted, prose = naming_words(query)
    if len(unique) < 2 or not (wanted or prose):
        return {}

    def matched_words(path: str) -> frozenset[str]:
        named = path_words(path) & wanted
        # a prose word names a module of code by its whole stem (``rules`` -> ``rules.py``),
        # not a document (``paper`` in "the paper that introduced X" -> ``paper.bib``)
        return named | (prose & {file_stem(path)}) if is_code(path) else named

    held = {p: found for p in unique if (found := matched_words(p))}
    frequency: dict[str, int] = {}
    for words in held.values():
        for word in words:
            frequency[word] = frequency.get(word, 0) + 1
    scale = math.log(len(unique))
    idf = {w: math.log(len(unique) / n) / scale for w, n in frequency.items()}
    # a word every candidate holds weighs 0: such a path holds no evidence
    matched = {p: sum(idf[w] for w in words) for p, words in held.items()}
    return {p: m for p, m in matched.items() if m > 0}


def path_boosted(
    scores: Mapping[str, float],
    path_of: Mapping[str, str],
    query: str,
    weight: float,
    words: str = "naming",
) -> dict[str, float]:
    """Each item's fused score plus ``weight`` x (the best fused score) x its path's match;
    items without a path, or whose path matches nothing, are unchanged."""
    matches = path_matches(query, path_of.values(), words)
    if not matches or not scores:
        return dict(scores)
    unit = weight * max(scores.values())
    return {
        item: value + unit * matches.get(path_of.get(item, ""), 0.0)
        for item, value in scores.items()
    }
