"""Ligatures a PDF's font does not map: the letters they stood for, put back by the word.

A font may draw ``ffi`` as one glyph and give PDFium no Unicode for it (code 0): "Efficient"
then reads ``E?cient`` and searches for *efficient*, *significant* or *find* miss the page. On
papersdev, 192 of 193 PMLR PDFs hold such glyphs (pdftotext reads them by glyph name). PDFium
reports a line-end soft hyphen the same way in its text (U+FFFE), so which one a mark is, is
decided by the word: the halves joined as they are, when that is a word (``con?vex``: a
hyphen); else the one ligature (fi, fl, ff, ffi, ffl) that makes a word (``E?cient`` ->
``Efficient``); else joined as they are. A word is one of the document's own (``vocabulary``)
or of the English lexicon (:func:`arr.query.lexicon.english_words`).
"""

from __future__ import annotations

from collections.abc import Collection

from arr.query.lexicon import english_words

LIGATURES = ("fi", "fl", "ff", "ffi", "ffl")


def restored(left: str, right: str, vocabulary: Collection[str] = ()) -> str | None:
    """``left`` + the ligature's letters + ``right`` when exactly one ligature (the document's
    own words first, then the lexicon's) makes a word of them, else None."""
    lexicon = english_words()
    for known in (vocabulary, lexicon):
        words = [left + g + right for g in LIGATURES if (left + g + right).lower() in known]
        if len(words) == 1:
            return words[0]
        if words:  # two ligatures make a word: the document's own evidence decides, or none
            return None
    return None


def joined(left: str, right: str, vocabulary: Collection[str] = ()) -> str:
    """Two halves around an unmapped mark inside a word: a soft hyphen's halves joined when
    that is a word, else a ligature's letters restored when one makes a word, else joined."""
    whole = left + right
    if whole.lower() in vocabulary or whole.lower() in english_words():
        return whole
    return restored(left, right, vocabulary) or whole
