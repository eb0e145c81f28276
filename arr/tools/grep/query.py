"""What a grep call asks for: its literal terms, the engine stages that answer it, and the
pure check of a sub-path it names (before any file is touched)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from arr import codes

_STOP_WORDS = (
    "the a an and or of to in on for with at by is are was were be this that it from as why how "
    "what when which does did do not no"
)
_STOP = frozenset(_STOP_WORDS.split())  # noqa: SIM905
_BAD_PATH = re.compile(r"[\x00-\x1f\x7f-\x9f\\]|^[A-Za-z]:|:")  # C0, DEL, C1 controls
# A phrase stage that reports more lines than this is ranked from per-file counts first (see
# arr.tools.grep.lines.LineSearch.by_counts): parsing and ranking 16,000 lines of "def
# __init__" cost more than ripgrep's own read of the 3,700 files holding it.
COUNT_FIRST_ROWS = 1000


def check_sub_path(sub_path: str) -> str | None:
    """Reason code for an unacceptable sub-path, or None. Pure: touches no file."""
    if _BAD_PATH.search(sub_path):
        return "path_invalid_characters"
    if not sub_path or sub_path != sub_path.strip():
        return "path_invalid"
    if sub_path.startswith("/"):
        return "path_absolute"
    parts = PurePosixPath(sub_path).parts
    if ".." in parts:
        return codes.PATH_ESCAPE
    # "name." and "name " name another file on some file systems (and are a classic way to
    # slip past a name rule): refused, as the README says; "." alone is the current folder.
    if any(p != "." and p.endswith((" ", ".")) for p in parts):
        return "path_invalid"
    return None


def literal_terms(query: str, max_terms: int = 8) -> list[str]:
    """The whole query, then its distinct content words (>= 3 chars), for OR-ed literal search."""
    whole = query.strip()
    words = [w for w in re.findall(r"[\w.\-/:]+", whole) if len(w) >= 3 and w.lower() not in _STOP]
    terms = [whole] + [w for w in dict.fromkeys(words) if w != whole]
    return terms[:max_terms]


def co_occurrence_pattern(words: list[str]) -> str:
    """A case-insensitive regex for lines holding at least two of ``words`` (every ordered
    pair, so the engine does the ranking's first cut instead of Python reading every line that
    holds one common word)."""
    escaped = [re.escape(w) for w in words]
    pairs = [f"{a}.*{b}" for a in escaped for b in escaped if a != b]
    return "(?i)" + "|".join(pairs)


def whole_score(byte_terms: list[bytes]) -> float:
    """The score of a line holding the whole phrase when every word lies inside the phrase
    (such a line holds them all: one test scores it), else 0.0."""
    return float(len(byte_terms) + 1) if all(t in byte_terms[0] for t in byte_terms) else 0.0


def line_score(text: bytes, byte_terms: list[bytes], whole_holds: float) -> float:
    """Terms of the query the line holds, the whole phrase counting twice."""
    lowered = text.lower()
    if whole_holds and byte_terms[0] in lowered:
        return whole_holds
    return sum(t in lowered for t in byte_terms) + float(byte_terms[0] in lowered)


@dataclass(frozen=True)
class Stage:
    """One engine run of a search: its patterns, regex or fixed strings, a row bound (0: none),
    and for the word index the literals of which a matching line holds ``at_least`` (no
    literals: a regex, which the index cannot narrow)."""

    patterns: list[str]
    regex: bool
    max_rows: int = 0
    literals: tuple[str, ...] = ()
    at_least: int = 1
    words: bool = False  # a fallback over the query's words: its files are ranked and capped
    by_counts: bool = False  # the phrase stage: many lines are ranked from per-file counts


def query_terms(query: str, regex: bool) -> list[str]:
    """The lower-cased terms a line is scored by: the regex itself, or the literal's terms."""
    return [query.lower()] if regex else [t.lower() for t in literal_terms(query)]


def stages(query: str, regex: bool, terms: list[str], max_any_word_rows: int) -> list[Stage]:
    """The exact query first (phrase, or the regex); for a literal, then lines holding two or
    more of its words (found by the engine), then any word read up to a bound (a common word
    matches most lines). ``terms``: ``query_terms(query, regex)``, computed once by the caller."""
    # The phrase stage of a literal whose words all lie inside it: every line it finds ranks
    # equal but for its file's count, so many lines are ranked from counts.
    countable = not regex and bool(whole_score([t.encode() for t in terms]))
    found = [
        Stage(
            [query],
            regex,
            COUNT_FIRST_ROWS if countable else 0,
            literals=() if regex else (query,),
            by_counts=countable,
        )
    ]
    words = [] if regex else literal_terms(query)[1:]
    if len(words) > 1:
        pairs = co_occurrence_pattern(words)
        found.append(Stage([pairs], True, literals=tuple(words), at_least=2, words=True))
    if words:
        found.append(Stage(words, False, max_any_word_rows, literals=tuple(words), words=True))
    return found
