"""The shape of a query, read the same way by the planner, fusion and the reranker.

``query_shape`` says whether a query is lexical (error text, symbols, paths, config keys),
semantic (a question in words) or mixed (prose naming an identifier); ``code_shaped``,
``is_prose`` and ``quoted`` are its parts, used alone where a stage needs
only one of them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

# Code-shaped tokens: each of these alone makes a query lexical. Each pattern runs only when
# the query holds the characters it cannot match without (its guard), so plain prose costs a
# few substring tests instead of a dozen regex alternatives tried at every position (the
# planner runs on every search). `code_shaped` is exactly `_CODE.search` (a test pins it).
_DOT_NAME = re.compile(r"\.[A-Za-z_]")  # a sentence's full stop is not a dotted name
_GUARDED_CODE: tuple[tuple[tuple[str | re.Pattern[str], ...], str], ...] = (
    (("Error", "Exception", "Warning"), r"\b\w+(?:Error|Exception|Warning)\b"),
    (
        ("Traceback", "errno", "segfault", "out of memory", "OOM"),
        r"\bTraceback\b|\berrno\b|\bsegfault\b|\bout of memory\b|\bOOM\b",
    ),
    (("_",), r"(?<![\w])_*[A-Za-z]+_[A-Za-z0-9_]+\b"),  # snake_case, _private_names too
    (("()",), r"\b\w+\(\)"),  # call()
    ((_DOT_NAME,), r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*){2,}\b"),  # dotted.config.key
    # paths: ./x ~/x, three or more components, or a file name with a known extension (a
    # prose "/input-output/" or "and/or" is not a path)
    (("/",), r"(?:^|\s)(?:\.{1,2}|~)/[\w.\-]+|(?:^|\s)/?[\w.\-]+/[\w.\-]+/[\w.\-/]*[\w.]"),
    ((_DOT_NAME,), r"\b[\w\-]+\.(?:py|yaml|yml|json|toml|md|log|cfg|sh)\b"),
    # key=value, and a --flag only where a flag can stand (not a dash in "word--that")
    (("=",), r"\b[A-Za-z_][\w.]*\s*=\s*\S+"),
    (("--",), r"(?:^|\s)--[a-z][\w-]+"),
)
_CAMEL = r"\b[a-z]{2,}[A-Z][a-z]+\w*\b"  # camelCase (not gene names such as miRNA)
_CODE = re.compile("|".join([*(p for _, p in _GUARDED_CODE), _CAMEL]))
_GUARDS = tuple((guards, re.compile(p)) for guards, p in _GUARDED_CODE)
LOWER_UPPER = re.compile(r"[a-z][A-Z]")  # a camelCase name cannot exist without this
_CAMEL_RE = re.compile(_CAMEL)


# The guards above as plain substrings (plus the two regex guards): most prose holds none, and
# is answered by a few substring tests (a regex alternation of them costs more than the tests).
_GUARD_STRINGS = tuple(g for guards, _ in _GUARDED_CODE for g in guards if isinstance(g, str))


def _any_guard(query: str) -> bool:
    for guard in _GUARD_STRINGS:
        if guard in query:
            return True
    return bool(("." in query and _DOT_NAME.search(query)) or LOWER_UPPER.search(query))


def code_shaped(query: str) -> bool:
    """True when the query holds a code-shaped token (same answer as ``_CODE.search``)."""
    if not _any_guard(query):
        return False
    for guards, pattern in _GUARDS:
        if any(g in query if isinstance(g, str) else g.search(query) for g in guards) and (
            pattern.search(query)
        ):
            return True
    return bool(LOWER_UPPER.search(query) and _CAMEL_RE.search(query))


# A question is prose even when it names an error word ("why does the loss become nan?").
_QUESTION = re.compile(
    r"^\s*(?:why|how|what|when|where|which|who|does|do|did|is|are|can|could|should|would)\b"
    r"|\?\s*$",
    re.IGNORECASE,
)
# Weaker identifier evidence: a CamelCase name (LlamaAttention, but also FoxO3a in a claim) or
# a _private name. Alone or in a short statement it decides "lexical"; inside prose the query
# stays hybrid and grep is added ("mixed"), so the identifier still reaches the line channel.
_NAME = re.compile(r"\b[A-Z][a-z]+(?:[A-Z][a-z0-9]+)+\b|(?<![\w])__?[a-z]\w*\b")
_UPPERLOWER_UPPER = re.compile(r"[A-Z][a-z]+[A-Z]")  # guard of _NAME's CamelCase half
# Error words are lexical only in short queries; in a sentence they are just words.
_ERROR_WORD = re.compile(r"\b(?:error|exception|failed|fatal|warning|nan|inf)\b", re.IGNORECASE)
SHORT_QUERY_WORDS = 6


# A plain word of prose: letters (hyphens and apostrophes inside), maybe closing punctuation.
# (not CamelCase: "KeyError:" is a name, not a word of prose)
_PROSE_WORD = re.compile(r"[A-Za-z][a-z]*(?:['-][A-Za-z][a-z]*)*[.,;:!?)]*")
# Error text (the first two guarded patterns: ``...Error``, Traceback, out of memory ...) is
# strong evidence of a look-up however long the message is.
_ERROR_TEXT = re.compile(f"{_GUARDED_CODE[0][1]}|{_GUARDED_CODE[1][1]}")
PROSE_WORDS = 5
PROSE_SHARE = 0.6


def is_prose(words: Sequence[str]) -> bool:
    """A sentence rather than a look-up: at least ``PROSE_WORDS`` words, most of them plain
    words ("Add all the edges in ebunch_to_add.", not "model.fit(x, y) on resume")."""
    if len(words) < PROSE_WORDS:
        return False
    plain = sum(1 for w in words if _PROSE_WORD.fullmatch(w))
    return plain >= PROSE_SHARE * len(words)


_QUOTES = "\"'\u201c\u201d\u00ab\u00bb\u2018\u2019"
_QUOTED = re.compile(f"\\s*[{_QUOTES}](.+)[{_QUOTES}]\\s*")


def quoted(query: str) -> str | None:
    """The text inside quotes when the whole query is quoted (a phrase asked for word for
    word), else None."""
    match = _QUOTED.fullmatch(query)
    return match[1] if match else None


VERBATIM_WORDS = 8


# A request typed in lower case opens with what the researcher wants done ("put a running
# header with the chapter title on each page"); a copied sentence rarely does. Sent to grep,
# such a request cost a search on 311 PDFs ~105 ms and found nothing word for word.
REQUEST_OPENINGS = frozenset(
    [
        "compare",
        "describe",
        "explain",
        "find",
        "get",
        "give",
        "help",
        "i",
        "list",
        "look",
        "make",
        "please",
        "put",
        "search",
        "show",
        "summarise",
        "summarize",
        "tell",
        "write",
    ]
)


def copied(query: str) -> bool:
    """A sentence copied from the middle of a text (``right language but if it fails, or if
    the right language is``): 8+ words opening in lower case, not a question, not a request
    (``find ...``, ``put ...``), nothing code-shaped. The planner also sends it to grep, which
    finds it word for word where the other channels rank pages of common words low; its shape
    (and so fusion) is unchanged."""
    if not query[:1].islower() or query.split()[0] in REQUEST_OPENINGS:
        return False
    long = len(query.split()) >= VERBATIM_WORDS
    return long and query_shape(query) == "semantic" and not _QUESTION.search(query)


@functools.lru_cache(maxsize=4096)  # pure; the planner, fusion and reranker each ask it
def query_shape(query: str) -> str:
    """'lexical' for error text, symbols, paths and config keys; 'mixed' for prose that names
    an identifier, and for a quoted phrase; 'semantic' otherwise.

    A code-shaped token (``ValueError``, ``batch_size``, ``src/train.py``, ``lr=0.1``,
    ``--flag``) decides alone in a look-up; inside a sentence of prose ("Add all the edges in
    ebunch_to_add.") it makes the query mixed: hybrid, plus grep for the identifier, because
    lexical-only routing needs strong evidence (measured on docstring queries: routing such
    sentences lexical-only cost 0.04 nDCG@10 on them). An error word (``failed``, ``nan``)
    counts only in a short query, so a sentence that mentions a failure stays semantic.
    """
    words = query.split()
    if len(words) >= 2 and quoted(query) is not None:
        # the whole query quoted: asked for word for word, which only the channels that match
        # words can answer (a semantic neighbour of a phrase is not the phrase)
        return "lexical"
    if code_shaped(query):
        prose = is_prose(words) and not _ERROR_TEXT.search(query)
        return "mixed" if prose else "lexical"
    if len(words) == 1 and len(words[0]) >= 3:
        return "lexical"  # one bare word is a look-up: it must reach the line-level channel
    if ("_" in query or _UPPERLOWER_UPPER.search(query)) and _NAME.search(query):
        short = len(words) <= SHORT_QUERY_WORDS and not _QUESTION.search(query)
        return "lexical" if short else "mixed"
    if (
        len(query.split()) <= SHORT_QUERY_WORDS
        and _ERROR_WORD.search(query)
        and not _QUESTION.search(query)
    ):
        return "lexical"
    if names_someone(words):
        return "lexical"
    return "semantic"


_CAPITALISED = re.compile(r"(?:[A-Z][a-z]+)+(?:-[A-Z]?[a-z]+)*[.,;:]?")  # LeCun, Ben-David
_YEAR = re.compile(r"(?:19|20)\d\d[a-z]?[.,;:]?")


def names_someone(words: Sequence[str]) -> bool:
    """A short look-up that names people (``Karger Lehman Leighton``, ``Hoare 1978``, ``Hazan
    low rank experts``): a capitalised word that is no English word, in a query of at most
    ``SHORT_QUERY_WORDS`` words that asks no question. A surname is matched word for word or
    not at all: the embedding of a list of names is close to every list of names (a
    bibliography's entries), so such a query is answered by the channels that match words."""
    if not words or len(words) > SHORT_QUERY_WORDS or _QUESTION.search(" ".join(words)):
        return False
    from arr.query.lexicon import english_words

    lexicon = english_words()
    if not lexicon:  # no vocabulary to tell a name from a word: the query stays as it is
        return False
    if not all(_PROSE_WORD.fullmatch(w) or _CAPITALISED.fullmatch(w) or _YEAR.fullmatch(w)
               for w in words):  # fmt: skip
        return False
    # a sentence capitalises its first word by spelling alone ("Dexamethasone increases risk
    # of bleeding."): the first word names someone only in a string of keywords
    sentence = words[-1].endswith(".") or any(w.lower() in _FUNCTION_WORDS for w in words)
    return any(
        _CAPITALISED.fullmatch(w) and w.rstrip(".,;:").lower() not in lexicon
        for w in (words[1:] if sentence else words)
    )


_FUNCTION_WORDS_TEXT = (
    "a an the of to in on at by for from with and or but is are was were be been not no that "
    "this these it its as into than then"
)
_FUNCTION_WORDS = frozenset(_FUNCTION_WORDS_TEXT.split())
