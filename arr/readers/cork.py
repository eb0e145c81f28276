"""Letters of TeX's T1 (Cork) encoding that PDFium read as Latin-1: ``Dvo°ák`` -> ``Dvořák``.

A pdflatex font in the T1 encoding with no Unicode map of its own gives PDFium only its codes,
and PDFium reads a code as the Latin-1 character of that number. From 0xC0 up the two agree
(``é``, ``ü``, ``ç``); from 0x80 to 0xBF they do not: Cork puts the letters of Central and
Eastern European names there (``ř`` at 0xB0, Latin-1's ``°``; ``ő`` at 0xAE, ``®``; ``š`` at
0xB2, ``²``), so ``Tomáš Dvořák`` reads ``Tomá² Dvo°ák`` and a byline holding it is no byline
(``make bench-templates``, four seeds, 319 front pages: citations right 230 -> 244 of 245 that
print a year, wrong 8 -> 1; on the held-out seed 20261208, 3 of 10 REVTeX and 2 of 10 authblk
citations had been lost or given to a co-author).

Cork's capitals (0x80-0x9E) are Latin-1's control codes, which no text holds: one starting a
word of lower-case letters is its capital (``Łukasz``, whose ``Ł`` the cleaners dropped as a
control code: ``ukasz``).
A dotless i given as its code (T1 0x19) between letters is ``ı`` (``Yılmaz``, not
``Ylmaz``). The signs in Cork's lower half are read as their letters only where they cannot
be a sign: such a character between two letters (``Dvo°ák``, ``Sz®ke``) is always read as its
Cork letter (not Latin-1's spacing accents, which is how an OT1 font's
accents read: ``Ara´ujo``); after a letter at a word's end (``Tomá²``, but also ``m²``)
only on a page that holds one between letters already (a font misread on that page).
"""

from __future__ import annotations

import re

# Cork 0x80-0xBF, in order. Left as they are: its signs there (0x9F, 0xBD-0xBF); Latin-1's
# spacing accents (0xA8, 0xAF, 0xB4, 0xB8: how an OT1 font's accents read, set before their
# letter, ``Ara´ujo``, composed later); a no-break space and a soft hyphen; and the signs real
# text sets between letters, which a font with a Unicode map gives as they are (math's ``µiµj``
# and ``k·k``, ``±``, ``¬``, guillemets: of 5,599 pages of real PDFs, 290 were changed with them
# in, math pages all; without them none but 92 of 7 Greek documents whose fonts map nothing).
# Never Cork's ĺ, ŕ, ť, ÿ, ţ, ů, ś, ň, ń, ż at those codes.
_KEPT = frozenset([0xA0, 0xAD, 0xA8, 0xAF, 0xB4, 0xB8, 0xB5, 0xB7, 0xB1, 0xAC, 0xAB, 0xBB])
_CORK = {
    chr(code): letter
    for code, letter in zip(
        range(0x80, 0xC0),
        "ĂĄĆČĎĚĘĞĹĽŁŃŇŊŐŔŘŚŠŞŤŢŰŮŸŹŽŻĲİđ§ăąćčďěęğĺľłńňŋőŕřśšşťţűůÿźžżĳ¡¿£",
        strict=True,
    )
    if letter not in "§¡¿£" and code not in _KEPT
}
# a dotless i (and j) given as its code, a control character the cleaners drop (``Y\x19lmaz``
# read ``Ylmaz``): T1 has them at 0x19 and 0x1A; only between letters. (OT1's dotless i, 0x10,
# is a math font's bracket as often: ``h\x10PeVe``, on 14 pages of real papers.)
_DOTLESS = {"\x19": "ı", "\x1a": "ȷ"}
_LETTER = r"[^\W\d_]"
_SUSPECT = re.compile(r"[\x19\x1a\x80-\xbf]")  # most pages hold none: one C-speed scan
_DOTLESS_AT = re.compile(rf"(?<={_LETTER})[\x19\x1a](?={_LETTER})")
_INSIDE = re.compile(rf"(?<={_LETTER})[\x80-\xbf](?={_LETTER})")
# a capital starts a word, and lower-case letters follow it (a math font's brackets and a
# symbol font's codes stand after a letter: ``EŒz\x8d``)
_CAPITAL = re.compile(rf"(?<!{_LETTER})[\x80-\x9e](?=[^\W\d_A-Z]{{2}})")
_WORD_END = re.compile(rf"(?<={_LETTER})[\x80-\xbf](?!{_LETTER}|\d)")


def _letter(match: re.Match[str]) -> str:
    return _CORK.get(match[0], match[0])


def cork_letters(text: str) -> str:
    """``text`` with the Cork letters PDFium read as Latin-1 put back (see the module)."""
    if _SUSPECT.search(text) is None:
        return text
    text = _DOTLESS_AT.sub(lambda m: _DOTLESS[m[0]], text)
    # Cork's capitals sit where Latin-1 has control characters, which no text holds: one that
    # starts a word of lower-case letters is its capital (``\x8aukasz`` -> ``Łukasz``)
    text = _CAPITAL.sub(_letter, text)
    inside = _INSIDE.sub(_letter, text)
    if inside == text:  # no letter misread between letters: a sign after one stays a sign
        return text
    return _WORD_END.sub(_letter, inside)
