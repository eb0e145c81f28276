"""Who wrote a paper and when, read from the PDF itself, as a citation a researcher can paste:
``Ongaro & Ousterhout 2014``, ``Downes et al. 2009``, ``Lamport 1994``.

Authors: the metadata's ``Author`` when it names people or a body (not a user name such as
``jdoe``, not a tool, an e-mail or a web address; ``Frank Mittelbach, Email: see top of the
source file`` keeps the name), else the lines under the page's opening heading: the first run
of lines that read as names (``Diego Ongaro and John Ousterhout``, ``Karl Berry`` then ``Olaf
Weber``), footnote marks aside; a line naming an institution (``Stanford University``), a
date or a sentence ends the run. Year: the first year (1900 to next year) on the lines under
the heading (``2020/01/04``, ``November 2022``, ``Version 2.07, 2009/08/19``); never a file's
date. These are the parts; page 1's paper is identified from evidence by
:mod:`arr.readers.identity`, and a work inside a volume by the lines under its heading. Nothing
readable -> no citation: a wrong name is worse than none. Plain string work on a page's first
lines; runs inside the reading worker.
"""

from __future__ import annotations

import re
import time
import unicodedata

NAME_LINES = 8  # lines under a heading looked at for the authors
INNER_NAME_LINES = 2  # under a heading inside a PDF: a new paper's byline stands right there
YEAR_LINES = 12  # and for the year
MAX_AUTHORS = 12
# footnote symbols set beside a name or a title (asterisks, daggers, section marks, suits)
_SYMBOLS = r"[\u2217\u2020\u2021\u00a7\u00b6*\u2022\u2663\u2660\u2665\u2666\u22c6]+"
FOOTNOTE_MARKS = re.compile(_SYMBOLS)
# and affiliation numbers after a name, glued or spaced (``Rossum1,2``, ``Forsyth1, 2``,
# ``Govan 1``), ORCID marks (the icon extracted as ``ID``, an ORCID number)
_MARKS = re.compile(
    _SYMBOLS + r"|(?<=[^\W\d_])\s*\d{1,2}(?:\s*,\s*\d{1,2})*(?=\s*(?:[,;&]|\band\b|$))|"
    r"(?<![^\s,])[iI][dD](?![^\s,])|\b\d{4}[-\u2212]\d{4}[-\u2212]\d{4}[-\u2212]\d{3}[\dX]\b"
)
_FAMILY_FIRST = re.compile(r"([A-Z]{2,})\s+([A-Z][a-z]+(?:-[A-Za-z][a-z]+)?)")
_SPLIT = re.compile(r"\s*(?:,\s*(?:and\s+)?|;\s*|\s+and\s+|\s*&\s*)", re.IGNORECASE)
_YEAR = re.compile(r"(?<![\d.])(19\d\d|20\d\d)(?![\d])")
# a word of a person's name: Ongaro, McKay, O'Neil, Jean-Pierre, Łukasz, van, de; or an
# initial: A. / J.-P. (upper case as Unicode has it, so names of every script's capitals pass)
_NAME_WORD = re.compile(
    r"(?:[^\W\d_][^\W\d_'\u2019]*(?:['\u2019][^\W\d_]+)?(?:-[^\W\d_]+)?|"
    r"[^\W\d_]\.(?:-?[^\W\d_]\.)*|Jr\.?)"
)
PARTICLES = frozenset("van von de der den da di del la le du dos bin ibn".split())  # noqa: SIM905


def _name_word(word: str) -> bool:
    if word in PARTICLES or word in _SUFFIXES:
        return True
    if not _NAME_WORD.fullmatch(word) or not word[0].isupper():
        return False
    rest = word.replace("-", "").replace("'", "").replace("\u2019", "").rstrip(".")
    # a word in capitals is a name only as an initial or a short particle-free form (``JR``
    # aside): ``LSTM`` is not a name, ``Mc`` + capital is (``McKay``)
    return len(rest) <= 1 or not rest[1:].isupper() or rest[:2] in ("Mc", "O'")


# words that make a line an affiliation, a heading or a sentence, not a list of people
_NOT_PEOPLE_WORDS = """university universit\u00e4t universite universidad college school institute
    institut department dept laboratory laboratories labs lab inc corporation corp ltd gmbh
    research society association group team project consortium committee organization
    organisation press publishing company center centre faculty academy foundation abstract
    contents introduction version release
    released manual guide package documentation draft preprint copyright email e-mail
    submitted accepted published proceedings conference journal chapter section the of for in
    on with by at to from is are was updated translated maintained edited editor editors
    workshop symposium road street avenue terrace boulevard"""
_NOT_PEOPLE = frozenset(_NOT_PEOPLE_WORDS.split())
# a tool's or an account's name in the Author field (``Microsoft Office User``), never a body
_NOT_AUTHORS = frozenset(
    "user admin administrator owner author unknown anonymous root microsoft office adobe "  # noqa: SIM905
    "acrobat windows pc computer word".split()
)
_SUFFIXES = frozenset({"Jr", "Jr.", "II", "III", "IV"})


def _fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).split())


def not_people(text: str) -> bool:
    """Whether a text holds a word that makes it an institution, a heading or a sentence
    (``American Mathematical Society``, ``Department of ...``), never a person's name."""
    return any(w.lower().strip(".,;:") in _NOT_PEOPLE for w in text.split())


def person(name: str) -> bool:
    """Whether ``name`` reads as one person's name: 2 to 5 name words (initials count), the
    last a capitalised word."""
    words = name.split()
    if not 2 <= len(words) <= 5 or not all(_name_word(w) for w in words):
        return False
    if any(w.lower() in _NOT_PEOPLE for w in words):
        return False
    last = next((w for w in reversed(words) if w not in _SUFFIXES), "")
    return len(last) >= 2 and last[0].isupper() and not last.endswith(".")


def given_first(name: str) -> str:
    """A name printed surname first in capitals, as East Asian bylines often are (``WANG
    Xiaoming``, ``LEE Seung-Hoon``), in reading order (``Xiaoming Wang``); others as they are."""
    match = _FAMILY_FIRST.fullmatch(name)
    return f"{match[2]} {match[1].capitalize()}" if match else name


def names_on(line: str) -> list[str] | None:
    """The people a line names (``Diego Ongaro and John Ousterhout``), or None when the line
    is not a list of names (footnote marks and superscript numbers aside)."""
    cleaned = _MARKS.sub(" ", _fold(line)).strip(" ,;")
    if not cleaned or len(cleaned) > 200 or "@" in cleaned or "://" in cleaned:
        return None
    parts = [given_first(p.strip()) for p in _SPLIT.split(cleaned) if p.strip()]
    if not parts or not all(person(p) for p in parts):
        return None
    return parts


def metadata_authors(field: str | None) -> list[str]:
    """The names of a metadata ``Author`` field: people, or one body (``The LaTeX Project``);
    empty for a user name, a tool, an e-mail or nothing plausible."""
    text = _fold(field or "")
    if not text or any(unicodedata.category(c) in ("Cc", "Cf", "Co", "Cs") for c in text):
        return []
    out = []
    for part in _SPLIT.split(_MARKS.sub(" ", text)):
        part = part.strip(" .")
        if not part or "@" in part or "://" in part or part.lower().startswith(("email", "e-mail")):
            continue
        if person(part) and not any(w.lower() in _NOT_AUTHORS for w in part.split()):
            out.append(part)
        elif not out and _body(part):
            return [part]
    return out[:MAX_AUTHORS]


def _body(text: str) -> bool:
    """A body named as an author (``The LaTeX Project``, ``American Mathematical Society``):
    2 to 6 words, most capitalised, letters only, not a user name or a placeholder."""
    words = text.split()
    if not 2 <= len(words) <= 6 or any(w.lower() in _NOT_AUTHORS for w in words):
        return False
    if not all(w.replace("-", "").replace(".", "").isalpha() for w in words):
        return False
    return sum(w[0].isupper() for w in words) >= len(words) - 1


def authors_under(
    lines: list[str], skip: int, window: int = NAME_LINES, words: frozenset[str] = frozenset()
) -> list[str]:
    """The people named on the first run of name lines among ``lines[skip:skip+window]``
    (the lines under a heading that took ``skip`` lines); a "name" made of ``words`` alone
    (English words: ``Getting Started``) is no one's."""
    found: list[str] = []
    for line in lines[skip : skip + window]:
        names = names_on(line)
        if names and words and any(all(w.lower() in words for w in n.split()) for n in names):
            names = None
        if names is None:
            if found:
                break
            continue
        found += names
        if len(found) >= MAX_AUTHORS:
            break
    return found[:MAX_AUTHORS]


def year_under(lines: list[str], skip: int, latest: int | None = None) -> int | None:
    """The first plausible year on ``lines[skip:skip+YEAR_LINES]``."""
    latest = latest or time.gmtime().tm_year + 1
    for line in lines[skip : skip + YEAR_LINES]:
        for match in _YEAR.finditer(line):
            if 1900 <= int(match[1]) <= latest:
                return int(match[1])
    return None


def surname(name: str) -> str:
    """A person's surname (the last name word, ``Jr.`` aside); a body's whole name."""
    words = name.split()
    if not person(name):
        return name
    rest = [w for w in words if w not in _SUFFIXES]
    # particles belong to the surname: "van Rossum", "de Moura"
    at = len(rest) - 1
    while at > 0 and rest[at - 1][0].islower():
        at -= 1
    return " ".join(rest[at:])


def cite(authors: list[str], year: int | str | None) -> str | None:
    """``Ongaro & Ousterhout 2014``, ``Downes et al. 2009``, ``Lamport 1994``; None without
    authors (a year alone names no one)."""
    return cite_surnames([surname(a) for a in authors], year)


def cite_surnames(names: list[str], year: int | str | None, more: bool = False) -> str | None:
    """The citation of works by ``names`` (surnames, in order) in ``year``; ``more``: authors
    beyond those named (BibTeX's ``and others``)."""
    names = [n for n in names if n]
    if not names:
        return None
    if len(names) == 1 and not more:
        who = names[0]
    elif len(names) == 2 and not more:
        who = f"{names[0]} & {names[1]}"
    else:
        who = f"{names[0]} et al."
    return f"{who} {year}" if year else who


def heading_lines(lines: list[str], heading: str | None) -> int:
    """How many of a page's first lines are its opening heading (their words are the
    heading's), so the lines under it can be read."""
    if not heading:
        return 0
    words = heading.split()
    at = taken = 0
    for line in lines[:6]:
        part = line.split()
        if not part or words[at : at + len(part)] != part:
            break
        at += len(part)
        taken += 1
        if at >= len(words):
            break
    return taken
