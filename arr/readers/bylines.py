"""A paper's byline on page 1: the front matter's lines (before the abstract), the lines that
are never a title or an author (mastheads, stamps, addresses), the people a line's cells name
(marks, e-mails, split accents and ORCID brackets aside; capitals in title case), and the
authors where the evidence agrees (the first author is the byline's first name in reading
order; ``/Author`` only where it begins the byline). Used by :mod:`arr.readers.identity`."""

from __future__ import annotations

import re
import unicodedata

from arr.readers.bib_records import title_key
from arr.readers.citation import (
    FOOTNOTE_MARKS,
    PARTICLES,
    names_on,
    not_people,
    person,
    surname,
)
from arr.readers.pdf_layout import Line

MAX_FRONT_LINES = 40  # lines looked at for the title and the byline when no abstract is found
MAX_AUTHORS = 12
MAX_PEOPLE_WORDS = 5  # a name's words at most (citation.person); a cell of three names side by side
# the line that ends the front matter: the abstract, or a first section
_FRONT_END = re.compile(
    r"(?i)^(?:abstract\b|a b s t r a c t\b|summary$|keywords?\b|index terms\b|"
    r"(?:1\.?|i\.)\s+introduction\b|introduction$)"
)
# lines that are never a title or an author: mastheads, headers, stamps, addresses, notes
_MASTHEAD = re.compile(
    r"(?i)(?:@|https?://|www\.|\bdoi\b|10\.\d{4,9}/|arxiv:|\bissn\b|\bisbn\b|copyright|\u00a9|"
    r"\(c\)\s*\d{4}|\bproceedings\b|\bconference\b|\bworkshop\b|\bsymposium\b|\bjournal\b|"
    r"\btransactions\b|\bjmlr\b|\bvol\.|\bvolume\b|\bpp\.|\bpreprint\b|\bsubmitted\b|"
    r"\baccepted\b|\breceived\b|\bpublished\b|\bappearing in\b|\bunder review\b|"
    r"\btechnical report\b|\bletters\b|\bpress\b|\bcorresponding author\b|\ball rights\b|"
    r"\btypeset using\b|\bdraft version\b)"
)
# what is left of an ORCID in brackets once its raised digits are gone (LNCS: ``Park [``, ``]``)
_BRACKETS = re.compile(r"\[[\d\s\u2212-]*\]?|\]")
_LEAD_SPLIT = re.compile(r"\s*(?:,|;|&|\band\b)\s*")
_LEADING_AND = re.compile(r"(?i)^(?:and|&)\s+")
# words that make a cell an institution or a label, never a name
_NOT_NAME = re.compile(
    r"(?i)\b(?:universit\w*|institut\w*|college|school|department|laborator\w*|research|"
    r"abstract|keywords?|introduction|draft|version|typeset|style|submitted|preprint|inc|ltd)\b"
)
_EMAIL = re.compile(r"\S+@\S+|\{[^}]*\}@\S+")
# an accent PDFium gives apart from its letter, before it (``Matth \u0308aus``, ``G \u0301abor``)
_SPLIT_ACCENT = re.compile(
    "(?P<before>[^\\W\\d_]?)(?P<space>\\s?)([\u00a8\u00b4\u02c6\u02dc\u02d8\u02c7\u02da`\u0300-\u036f])"
    "\\s?([^\\W\\d_])?"
)
_ACCENT_EDGE = re.compile("[\u00a8\u00b4\u02c6\u02dc\u02d8\u02c7\u02da`\u0300-\u036f]\\s*$")
_ACCENT_EDGE_START = re.compile("^\\s*[\u00a8\u00b4\u02c6\u02dc\u02d8\u02c7\u02da`\u0300-\u036f]")
_COMBINING = dict(
    zip(
        "\u00a8\u00b4\u02c6\u02dc\u02d8\u02c7\u02da`",
        "\u0308\u0301\u0302\u0303\u0306\u030c\u030a\u0300",
        strict=True,
    )
)


def _accented(match: re.Match[str]) -> str:
    mark = _COMBINING.get(match[3], match[3])
    # TeX accents the dotless i (``\\'\\i``); Unicode composes only the dotted one (i + acute)
    letter = "i" if match[4] == "\u0131" else match[4]
    # a space between a lower-case letter and an accented capital parts two words (``and
    # \u030aAsa``: OT1 sets the ring before the A); elsewhere it is inside a word
    # (``Matth \u0308aus``)
    space = " " if match["space"] and match["before"].islower() and (letter or "").isupper() else ""
    return f"{match['before']}{space}{letter}{mark}" if letter else match["before"]


def joined_accents(text: str) -> str:
    """Accents split from their letters put back on them (``G\u00e1bor Bal\u00e1zs``)."""
    return unicodedata.normalize("NFC", _SPLIT_ACCENT.sub(_accented, text))


def front_matter(lines: list[Line]) -> list[Line]:
    """Page 1's lines before its abstract (or first section); the first ``MAX_FRONT_LINES``
    when it has neither."""
    for at, line in enumerate(lines[: MAX_FRONT_LINES * 2]):
        if at and _FRONT_END.match(line.text):
            return lines[:at]
    return lines[:MAX_FRONT_LINES]


def masthead(text: str) -> bool:
    return bool(_MASTHEAD.search(text))


# lower-case words a byline holds between names: particles and the words that join names
_BYLINE_LOWER = PARTICLES | {"and", "et", "und", "y", "e"}
# a letter an OT1 font draws in two glyphs (``\\l``: l and its stroke) comes out of PDFium as a
# word cut in two (``Ma lgorzata``, ``Pawe l``, ``L ukasz``): a short fragment on either side
SPLIT_PIECE = 3


def _rejoined(text: str) -> str:
    """Words a letter split put back together: a lower-case piece that is no particle or
    joining word, after a capitalised one, where either piece is short (``Ma lgorzata`` ->
    ``Malgorzata``; ``Maria de Souza``, ``Smith and Jones`` as they are)."""
    out: list[str] = []
    for word in text.split(" "):
        prev = out[-1] if out else ""
        if (
            word[:1].islower()
            and word.strip(",;.").lower() not in _BYLINE_LOWER
            and not not_people(word)
            and prev[:1].isupper()
            and prev.isalpha()
            and (len(prev) <= SPLIT_PIECE or len(word.rstrip(",;.")) <= SPLIT_PIECE - 1)
        ):
            out[-1] = prev + word
        else:
            out.append(word)
    return " ".join(out)


def person_text(cell: str) -> str:
    """A cell as a name would be read: e-mails, marks, split accents and superscripts out;
    an all-capital byline in title case (``JOHN SMITH`` -> ``John Smith``)."""
    text = _BRACKETS.sub(" ", _EMAIL.sub(" ", cell))
    text = FOOTNOTE_MARKS.sub(" ", text)
    # an accent that found no letter to compose with (a capital's in OT1 fonts) is dropped: the
    # name's letters are what identify it
    text = "".join(c for c in joined_accents(text) if not unicodedata.combining(c))
    text = _rejoined(" ".join(unicodedata.normalize("NFC", text).split()))
    letters = [c for c in text if c.isalpha()]
    if letters and all(c.isupper() for c in letters) and len(letters) > 3:
        text = " ".join(w if len(w.rstrip(".")) == 1 else w.capitalize() for w in text.split())
    text = _LEADING_AND.sub("", " ".join(text.split()).strip(" ,;"))
    return text.strip(" ,;")


def name_like(cell: str) -> bool:
    """Whether a byline cell looks like a name even where it does not read as one: a few
    capitalised words, no address, no masthead, no institution (``Ay3e Ylmaz``: a name whose
    letters the font did not map)."""
    text = person_text(cell)
    words = text.split()
    if (
        not 2 <= len(words) <= 3 * MAX_PEOPLE_WORDS
        or "@" in cell
        or masthead(cell)
        or _NOT_NAME.search(text)
        or not_people(text)
    ):
        return False
    return all(w[0].isupper() or w in ("de", "van", "von", "da", "dos", "del", "der", "la")
               for w in words)  # fmt: skip


def _accent_joined_cells(cells: tuple[str, ...]) -> list[str]:
    """Cells a split accent parted joined again (``Jose Garc \u0301`` + ``\u0301\u0131a-Fernandez``:
    the accent glyph's box sits back over its letter, so the gap after it reads as a column's)."""
    out: list[str] = []
    for cell in cells:
        if out and (_ACCENT_EDGE.search(out[-1]) or _ACCENT_EDGE_START.match(cell)):
            out[-1] += cell
        else:
            out.append(cell)
    return out


def names_in(line: Line) -> list[str]:
    """The people a line's cells name (a cell that is not names adds none)."""
    found: list[str] = []
    for cell in _accent_joined_cells(line.cells):
        text = person_text(cell)
        if not text or masthead(cell.replace("@", "")) and "@" not in cell:
            continue
        names = names_on(text)
        if names:
            found += names
    return found


def layout_authors(lines: list[Line], after: int) -> list[str]:
    """The names between the title (ending at line ``after``) and the abstract."""
    front = front_matter(lines)
    found: list[str] = []
    for line in front[after:]:
        for cell in _accent_joined_cells(line.cells):
            names = names_in(Line(line.size, (cell,)))
            if not names and not found and name_like(cell):
                # the first byline name does not read as a name: a later one would be cited
                # as the first author; no authors is the answer the evidence allows
                return []
            found += [name for name in names if name not in found]
    return found[:MAX_AUTHORS]


def _same_person(one: str, other: str) -> bool:
    return title_key(surname(one)) == title_key(surname(other))


def agreed_authors(
    metadata: list[str], byline: list[str], below_title: list[Line]
) -> tuple[list[str], str]:
    """The authors where the evidence agrees, and their source: the first author is the first
    name of the byline in reading order. ``/Author`` is whoever made the file (often a
    co-author, not the first), so it stands only where the byline begins with its first name
    (then its list, if it is no shorter), or where no byline was read and the first line under
    the title begins with that name; a body (``The LaTeX Project``) where page 1 prints it."""
    if byline:
        if metadata and _same_person(metadata[0], byline[0]) and len(metadata) >= len(byline):
            return list(metadata), "metadata"
        return list(byline), "layout"
    if not metadata:
        return [], ""
    if not person(metadata[0]):
        return list(metadata), "metadata"
    first = next((line for line in below_title if line.text.strip()), None)
    if first is None:  # no title read: the byline cannot be placed; page 1 alone agreed
        return list(metadata), "metadata"
    lead = _LEAD_SPLIT.split(person_text(first.cells[0]) if first.cells else "")[0].strip()
    # the same person, written out or with initials (``L. Lamport`` for ``Leslie Lamport``)
    same = title_key(lead).startswith(title_key(metadata[0])) or (
        person(lead) and _same_person(lead, metadata[0]) and lead[0] == metadata[0][0]
    )
    return (list(metadata), "metadata") if same else ([], "")
