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

from arr.readers.ligatures import joined

MAX_CHARS = 6000
MAX_LINES = 80
CELL_GAP = 1.2  # a gap this many times the type size separates two cells of one line


class Line(NamedTuple):
    size: float  # the line's type size in points
    cells: tuple[str, ...]  # text runs, left to right, that wide gaps separate

    @property
    def text(self) -> str:
        return " ".join(self.cells)


_UNMAPPED = re.compile(r"([A-Za-z]+)\x00([A-Za-z]+)")


def _clean(text: str) -> str:
    # a glyph with no Unicode inside a word: a ligature's letters (or a soft hyphen) put back
    text = _UNMAPPED.sub(lambda m: joined(m[1], m[2]), text)
    # format characters (zero-width) out, forms folded, spacing collapsed
    text = "".join(c for c in text if unicodedata.category(c) not in ("Cc", "Cf", "Co", "Cs"))
    return " ".join(unicodedata.normalize("NFKC", text).split())


def page_lines(textpage: object) -> list[Line]:
    """The first lines of a page (PDFium's text order), with sizes and cells."""
    import pypdfium2.raw as raw_api

    handle = textpage.raw  # type: ignore[attr-defined]
    total = min(textpage.count_chars(), MAX_CHARS)  # type: ignore[attr-defined]
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    lines: list[Line] = []
    letters: list[tuple[str, float, float, float, float]] = []  # char, size, left, right, height

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
        letters.append((char, size, left.value, right.value, top.value - bottom.value))
    close()
    return [line for line in lines if line.cells]


def _line(letters: list[tuple[str, float, float, float, float]]) -> Line:
    shown = [each for each in letters if each[0].strip()]
    reported = max((each[1] for each in shown), default=0.0)
    tallest = max((each[4] for each in shown), default=0.0)
    # size 1 everywhere: the glyphs' own height speaks (capitals are about 0.7 of the size)
    size = reported if reported >= 2 else tallest / 0.7
    cells: list[str] = []
    current = ""
    last_right: float | None = None
    for char, _, left, right, _ in letters:
        if not char.strip():
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
