"""T1 (Cork) letters that PDFium read as Latin-1 (arr.readers.cork): a byline's Central and
Eastern European names put back, signs in ordinary text left alone."""

from __future__ import annotations

import pytest

from arr.readers.cork import cork_letters
from arr.readers.pdf_layout import ligatures


@pytest.mark.parametrize(
    ("read", "meant"),
    [
        ("Tomá\xb2 Dvo\xb0ák,1, ∗ Hans-Peter Schäfer", "Tomáš Dvořák,1, ∗ Hans-Peter Schäfer"),
        ("Ji\xb0í Novák", "Jiří Novák"),
        ("John Smith, and Zsófia Sz\xaeke", "John Smith, and Zsófia Szőke"),
        ("Sz\xaeke1 and Jane Doe2", "Szőke1 and Jane Doe2"),
        ("\x8aukasz Wróbel", "Łukasz Wróbel"),  # a capital where Latin-1 has a control code
        ("Ay\xb3e Y\x19lmaz", "Ayşe Yılmaz"),  # T1's dotless i, given as its code
    ],
)
def test_a_cork_letter_read_as_latin1_is_put_back(read: str, meant: str) -> None:
    assert cork_letters(read) == meant
    assert ligatures(read) == meant  # what both PDF text paths call


@pytest.mark.parametrize(
    "text",
    [
        "an area of 5 m\xb2 at 25\xb0C",  # signs after a letter, no misread letter on the page
        "Foo\xae is a mark; \xa7 3 and \xa3 5",
        "Ara\xb4ujo and Mu\xa8ller",  # an OT1 font's spacing accents, set before their letter
        "\u00b5i\u00b5j = 1 and k\u00b7k\u221e, a\u00b1b",  # math a Unicode-mapped font sets
        "no-break\xa0space and a soft\xadhyphen",
        "h\x10PeVe and E\u0152z\x8d D",  # a math font's brackets: OT1's 0x10, a code after a letter
        "plain ASCII text",
    ],
)
def test_signs_and_ot1_accents_stay(text: str) -> None:
    assert cork_letters(text) == text


def test_a_byline_set_in_t1_names_its_first_author() -> None:
    """REVTeX, T1 with no Unicode map: before, ``Tomá² Dvo°ák`` was no name, and the paper got
    no citation or its co-author's (held-out templates seed 20261208, revtex p04, p07, p09)."""
    from arr.readers.bylines import names_in
    from arr.readers.pdf_layout import Line

    read = "Tomá\xb2 Dvo\xb0ák, Hans-Peter Schäfer, and Li-Wei Chen"  # raised marks dropped
    assert names_in(Line(10, (read,))) == []  # as read: no byline at all
    assert names_in(Line(10, (ligatures(read),)))[:2] == ["Tomáš Dvořák", "Hans-Peter Schäfer"]
