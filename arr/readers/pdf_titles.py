"""Whether a PDF's metadata title, or a page's heading, can stand for its title: not a file or
a producer's name for it (``paper.dvi``, ``Microsoft Word - Kalman15.doc``), not ``untitled``
or a template's placeholder, not a DOI, no control characters."""

from __future__ import annotations

import re
import unicodedata


def metadata_title(info: dict[str, str]) -> str | None:
    title = " ".join(unicodedata.normalize("NFKC", info.get("Title", "")).split())
    return title[:300] if plausible_title(title) else None


_FILE_NAME = re.compile(
    r"(?i)(?:^microsoft (?:word|powerpoint|excel) - |\.(?:dvi|pdf|ps|eps|doc|docx|rtf|odt|tex|"
    r"txt|indd|qxd|pptx?|xlsx?|pages|key|html?)$|^[\w.-]+\.[a-z]{2,4}$)"
)
_NOT_TITLES = frozenset(
    {
        "untitled",
        "untitled document",
        "no title",
        "title",
        "document",
        "paper",
        "article",
        "slides",
        "presentation",
        "powerpoint presentation",
        "microsoft word document",
        "abstract",
        "contents",
        "no title given",
        "insert title here",
        "title of the paper",
    }
)
_DOI = re.compile(r"(?i)^(?:doi:?\s*|https?://(?:dx\.)?doi\.org/)?10\.\d{4,9}/\S+$")


def plausible_heading(heading: str | None) -> bool:
    """A page-1 heading that can stand for the title: plausible as a title, a word of three
    letters or more (not the letters of a figure, ``R R a``), not one phrase said twice (a
    running head set in large type)."""
    if not heading or not plausible_title(heading):
        return False
    words = heading.split()
    half = len(words) // 2
    if half and len(words) % 2 == 0 and words[:half] == words[half:]:
        return False
    return any(sum(c.isalpha() for c in word) >= 3 for word in words)


def plausible_title(title: str) -> bool:
    """Whether a metadata title is plausibly the document's own: not a file or a producer's
    name for it (``paper.dvi``, ``Microsoft Word - Kalman15.doc``), not ``untitled``, not a
    DOI, no control characters, some letters, more than one short word."""
    if not title or any(unicodedata.category(c) in ("Cc", "Cf", "Co", "Cs") for c in title):
        return False
    lowered = title.lower().strip(" .")
    if lowered in _NOT_TITLES or lowered.startswith("untitled") or _DOI.match(title):
        return False
    if _FILE_NAME.search(title.strip()):
        return False
    letters = sum(c.isalpha() for c in title)
    return letters >= 4 and letters >= len(title) / 2
