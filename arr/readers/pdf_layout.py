"""Page 1 as it is laid out: its first lines, each with its type size and its *cells* (runs of
text that wide gaps separate: the names of a byline set side by side, a name and its e-mail).

This is the evidence :mod:`arr.readers.identity` reads a paper's title and authors from. PDFium
gives each letter its box and its font size; some producers report size 1 for every letter
(their text matrix scales the glyphs), so a line's size is the larger of the reported sizes and
the height of its tallest letters. A gap wider than ``CELL_GAP`` times the line's size starts a
new cell (a space is about a quarter of it). Only the page's first ``MAX_CHARS`` letters are
looked at, a few ctypes calls each: the front matter of a paper is there.

Runs inside the reading worker, under its budget.
"""

from __future__ import annotations

import ctypes
import re
import unicodedata
from typing import NamedTuple

from arr.readers.cork import cork_letters
from arr.readers.ligatures import joined

MAX_CHARS = 6000
MAX_LINES = 80
# a gap this many times the type size separates two cells of one line (papersdev's bylines set
# side by side; the templates' IEEEtran and acmart author blocks read apart with it too)
CELL_GAP = 1.2


class Line(NamedTuple):
    size: float  # the line's type size in points
    cells: tuple[str, ...]  # text runs, left to right, that wide gaps separate

    @property
    def text(self) -> str:
        return " ".join(self.cells)


# a glyph the font maps to nothing at all (PDFium's code 0, marked \x00 here) inside a word
_UNMAPPED = re.compile(r"([A-Za-z]+)\x00([A-Za-z]+)")
# TeX's ligatures where a font (Type 3, no ToUnicode: EC fonts without cm-super, bitmap fonts)
# maps none: PDFium gives the glyph's code, a control character (T1 0x1b-0x1f: ff fi fl ffi ffl;
# OT1 0x0b-0x0f). Read only beside letters: ``E\x1ecient`` is Efficient, ``\x1cle`` file; a
# lone 0x0d is a line end, never fl. Python's split() takes 0x1c-0x1f for spaces (``E cient``).
_T1_LIGATURES = dict(zip("\x1b\x1c\x1d\x1e\x1f", ("ff", "fi", "fl", "ffi", "ffl"), strict=True))
_OT1_LIGATURES = dict(zip("\x0b\x0c\x0d\x0e\x0f", ("ff", "fi", "fl", "ffi", "ffl"), strict=True))
_T1_AT = re.compile(r"(?<=[^\W\d_])[\x1b-\x1f]|[\x1b-\x1f](?=[a-z])")
_OT1_AT = re.compile(r"(?<=[^\W\d_])[\x0b-\x0f](?=[a-z])")


_LIGATURE_CODES = frozenset(_T1_LIGATURES) | frozenset(_OT1_LIGATURES)
# a glyph char, its size, left, right, height, bottom
Glyph = tuple[str, float, float, float, float, float]
# superscript marks: fitted on the generated templates (elsarticle's ``a``/``*``, mnras's and
# authblk's numbers at 0.6-0.7 of the type, raised about a third of it) and kept where papersdev
# (PMLR's marks) did not move
MARK_SCALE = 0.8
MARK_RISE = 0.2


def ligatures(text: str) -> str:
    """TeX's unmapped ligature glyphs as their letters (``E\x1ecient`` -> ``Efficient``), and
    T1 letters read as Latin-1 (``Dvo°ák`` -> ``Dvořák``: :mod:`arr.readers.cork`)."""
    text = cork_letters(text)
    if not any("\x0b" <= c <= "\x1f" for c in text):
        return text
    text = _T1_AT.sub(lambda m: _T1_LIGATURES[m[0]], text)
    return _OT1_AT.sub(lambda m: _OT1_LIGATURES[m[0]], text)


def _clean(text: str) -> str:
    # a glyph with no Unicode inside a word: a ligature's letters (or a soft hyphen) put back
    text = _UNMAPPED.sub(lambda m: joined(m[1], m[2]), text)
    # format characters (zero-width) out, forms folded, spacing collapsed
    text = ligatures(text)
    text = "".join(c for c in text if unicodedata.category(c) not in ("Cc", "Cf", "Co", "Cs"))
    return " ".join(unicodedata.normalize("NFKC", text).split())


def page_lines(textpage: object) -> list[Line]:
    """The first lines of a page (PDFium's text order), with sizes and cells."""
    import pypdfium2.raw as raw_api

    handle = textpage.raw  # type: ignore[attr-defined]
    total = min(textpage.count_chars(), MAX_CHARS)  # type: ignore[attr-defined]
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    lines: list[Line] = []
    letters: list[Glyph] = []

    def close() -> None:
        if letters:
            lines.append(_line(letters))
            letters.clear()

    for index in range(total):
        code = raw_api.FPDFText_GetUnicode(handle, index)
        if code in (10, 13):
            close()
            if len(lines) >= MAX_LINES:
                break
            continue
        raw_api.FPDFText_GetCharBox(
            handle, index, ctypes.byref(left), ctypes.byref(right), ctypes.byref(bottom),
            ctypes.byref(top),
        )  # fmt: skip
        size = float(raw_api.FPDFText_GetFontSize(handle, index))
        # code 0: a glyph the font maps to nothing (an ffi ligature): marked, for _clean
        char = chr(code) if 0 < code < 0x110000 else "\x00" if code == 0 else ""
        letters.append((char, size, left.value, right.value, top.value - bottom.value,
                        bottom.value))  # fmt: skip
    close()
    return [line for line in lines if line.cells]


def _shown(char: str) -> bool:
    return bool(char.strip()) or char in _LIGATURE_CODES


def _raised(letters: list[Glyph], size: float) -> set[int]:
    """The glyphs set as superscripts: type at most ``MARK_SCALE`` of the line's, standing
    ``MARK_RISE`` of the size above the line's baseline (affiliation marks ``Smithᵃ``,
    ``Lee¹˒³``, footnote stars) - glued to a name in the text, apart here."""
    # the baseline: of the glyphs in the line's own type (0.95: sizes differ by rounding)
    full = sorted(g[5] for g in letters if _shown(g[0]) and g[1] >= 0.95 * size)
    if size < 2 or not full:
        return set()
    base = full[len(full) // 2]
    return {
        at for at, g in enumerate(letters)
        if _shown(g[0]) and g[1] <= MARK_SCALE * size and g[5] > base + MARK_RISE * size
        # an accent PDFium gives apart from its letter is raised too, and belongs to the name
        and unicodedata.category(g[0]) not in ("Sk", "Mn")
    }  # fmt: skip


def _line(letters: list[Glyph]) -> Line:
    shown = [each for each in letters if _shown(each[0])]
    reported = max((each[1] for each in shown), default=0.0)
    tallest = max((each[4] for each in shown), default=0.0)
    # size 1 everywhere: the glyphs' own height speaks (capitals are about 0.7 of the size)
    size = reported if reported >= 2 else tallest / 0.7
    raised = _raised(letters, reported)
    cells: list[str] = []
    current = ""
    last_right: float | None = None
    for at, (char, _, left, right, _, _) in enumerate(letters):
        if not _shown(char) or at in raised:
            current += " "
            continue
        if last_right is not None and size > 0 and left - last_right > CELL_GAP * size:
            cells.append(current)
            current = ""
        current += char
        last_right = right
    cells.append(current)
    found = tuple(text for text in (_clean(c) for c in cells) if text)
    return Line(round(size, 1), found)
