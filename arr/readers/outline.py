"""The works a PDF collects, from its outline (bookmarks): the page ranges of a volume's issues
or papers, and what each is called.

A collected volume (a newsletter's issues, a workshop's proceedings) carries one top-level
bookmark per work, on the page where the work begins (``Issue 18, 2007/12``, a paper's title).
A manual's or a book's top-level bookmarks are its chapters and sections, which are parts of
one work. Bookmarks are taken for works only when the pages they point at open a work as it is
printed, for at least two of them and at least half: the same heading repeated at the top (a
newsletter's masthead, ``LATEX News``) or a byline right under the page's heading (a paper's
authors). Each such bookmark's work runs to the next top-level bookmark (a ``Contents`` or an
``Index`` bookmark, or page 1's, ends a work without starting one) and titles its pages:
``LATEX News › Issue 18, 2007/12`` under a masthead, else the bookmark alone. Pages outside
every work (a volume's front matter) keep their headings.

Bookmark titles are the file's words like any other: control characters are dropped, and the
walls (:mod:`arr.readers.walls`) judge them with the rest of the view. Runs inside the reading
worker.
"""

from __future__ import annotations

import ctypes
import re
import unicodedata
from collections import Counter
from collections.abc import Callable

MAX_BOOKMARKS = 5000  # top-level bookmarks read at most (a hostile outline is a long list)
MAX_TITLE = 300
_CONTROL = frozenset({"Cc", "Cf", "Co", "Cs", "Cn"})  # control, format, private, unassigned
_WORD = re.compile(r"[^\W_]+")


def top_bookmarks(document: object) -> list[tuple[int, str]]:
    """The outline's top-level bookmarks that point at a page: ``(page index, title)`` in page
    order, the first bookmark of a page only. Nothing (no outline, a broken one) -> []."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw_api

    found: dict[int, str] = {}
    seen: set[int] = set()
    try:
        mark = raw_api.FPDFBookmark_GetFirstChild(document, None)
        while mark and len(seen) < MAX_BOOKMARKS:
            address = ctypes.addressof(mark.contents)
            if address in seen:  # a circular outline
                break
            seen.add(address)
            bookmark = pdfium.PdfBookmark(mark, document, 0)
            destination = bookmark.get_dest()
            index = destination.get_index() if destination is not None else None
            title = clean_title(bookmark.get_title() or "")
            if index is not None and index >= 0 and title and index not in found:
                found[index] = title
            mark = raw_api.FPDFBookmark_GetNextSibling(document, mark)
    except (pdfium.PdfiumError, ValueError, OSError):
        pass  # a broken outline: what was read before it broke
    return sorted(found.items())


_FORMAT = frozenset({"Cf"})  # format characters: zero width, removed


def _shown(char: str) -> str:
    kind = unicodedata.category(char)
    return "" if kind in _FORMAT else " " if kind in _CONTROL else char


def clean_title(text: str) -> str:
    """A bookmark's title as shown: NFKC, one line, no control or format characters. A format
    character (zero width) is removed, not made a space, as page text removes it: a token split
    by one (``AKIA\u200bQZ7R...``) is the token the secret rules judge."""
    text = unicodedata.normalize("NFKC", text)
    kept = "".join(_shown(char) for char in text)
    title = " ".join(kept.split())[:MAX_TITLE]
    return title if any(c.isalnum() for c in title) else ""


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _opens_with(heading: str, words: list[str]) -> bool:
    return bool(words) and _words(heading)[: len(words)] == words


def work_titles(
    bookmarks: list[tuple[int, str]],
    headings: list[str | None],
    byline: Callable[[int], bool],
) -> list[str | None]:
    """Each page's work title, or None for a page outside every work (and for every page when
    the bookmarks are not a volume's). ``byline(page index)``: whether that page names authors
    right under its heading."""
    count = len(headings)
    out: list[str | None] = [None] * count
    starts = [(index, title) for index, title in bookmarks if index < count]
    if len(starts) < 2:
        return out
    repeated = Counter(headings[index] for index, _ in starts if headings[index])
    masthead, times = repeated.most_common(1)[0] if repeated else ("", 0)
    masthead_words = _words(masthead) if times >= 2 else []

    def opens_work(index: int) -> bool:
        heading = headings[index]
        # page 1 under the masthead is the volume's own title page (its contents), not an issue
        under_masthead = index > 0 and _opens_with(heading or "", masthead_words)
        return bool(heading) and (under_masthead or byline(index))

    works = [opens_work(index) for index, _ in starts]
    if sum(works) < 2 or 2 * sum(works) < len(starts):
        return out
    for k, ((index, title), is_work) in enumerate(zip(starts, works, strict=True)):
        if not is_work:
            continue
        end = starts[k + 1][0] if k + 1 < len(starts) else count
        heading = headings[index] or ""
        under_masthead = masthead_words and _opens_with(heading, masthead_words)
        if under_masthead and not _opens_with(title, masthead_words):
            title = f"{masthead} \u203a {title}"
        out[index:end] = [title] * (end - index)
    return out
