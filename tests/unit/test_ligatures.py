"""A font's unmapped ligature glyph (PDFium: code 0, U+FFFE in its text) is put back by the
word it makes; a soft hyphen's halves are joined as they are."""

from __future__ import annotations

import pytest

from arr.query.lexicon import english_words
from arr.readers.ligatures import joined, restored
from arr.readers.pdf_text import clean_page


def test_the_documents_own_words_decide_first() -> None:
    assert joined("E", "cient", vocabulary={"efficient"}) == "Efficient"
    assert joined("con", "vex", vocabulary={"convex"}) == "convex"  # a hyphen, not a glyph
    assert restored("xy", "zq", vocabulary={"xyzq"}) is None  # nothing to put back
    # two ligatures make a word of the document's: it does not guess
    assert restored("o", "ce", vocabulary={"ofice", "office"}) is None


@pytest.mark.skipif(not english_words(), reason="the packaged model's vocabulary is missing")
def test_the_lexicon_restores_a_title_pdfium_read_without_its_ffi() -> None:
    assert clean_page("E\ufffecient Training of Structured SVMs\r\n") == [
        "Efficient Training of Structured SVMs"
    ]
    assert clean_page("a signi\ufffecant con\ufffevex re\ufffeection") == [
        "a significant convex reflection"
    ]
    assert joined("Wolc", "ott") == "Wolcott"  # no ligature makes a word: joined as it is
