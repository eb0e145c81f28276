"""The walls every reader's output passes before any channel sees it: payloads and credentials.

A reader emits more than page text: titles from a PDF's metadata, headings, a notebook's
outputs, BibTeX fields, notes indexed beside a chunk. All of it is judged here, once per file
version, in the searching process (the worker's output is not trusted to have done it):

- **payloads** (:func:`strip_payloads`): ``data:`` URIs in any spelling (a parameter before
  ``base64``, upper case, ``%2C`` for the comma) and base64 runs anywhere in a line (inside a
  string, after a word, in a ``b'...'`` repr; 40+ characters mixing upper case, lower case and
  digits), and the lines that continue such a run (MIME wraps at 76 columns), are replaced by
  ``[data]`` / ``[base64]``: never indexed, embedded or shown;
- **credentials** (:func:`credential_in`): the content rules of :mod:`arr.safety.rules` run on the
  view's lines, its titles and its notes, and the token formats run once more on the text with
  line and page wraps joined (``ghp_...`` broken at a line end, over a page end, or at a space
  after a long run), so a token is judged as a reader would show it after any join. A view
  that holds one is refused whole (``credential``), as a plain file is;
- **size** (:func:`capped`): a line longer than ``MAX_LINE_CHARS`` keeps its head, and a view's
  text stops at ``MAX_VIEW_CHARS`` (the lines after it are emptied, so line numbers hold): an
  output cap that counted lines alone kept a notebook's one 99 MB output line whole.

The worker applies all three (:func:`walled`) inside the file's budget and memory limit; the
searching process applies them again on the reply it does not trust, on text already bounded.
"""

from __future__ import annotations

import re
from dataclasses import replace

from arr.readers.view import Unit, View

_DATA_URI = re.compile(
    r"(?i)data:(?:[\w.+-]{1,64}/[\w.+-]{1,64}(?:;[\w.+-]{1,64}(?:=[\w.+%-]{0,64})?){0,8}"
    r"|(?:;[\w.+-]{1,64}(?:=[\w.+%-]{0,64})?){1,8})(?:,|%2C)[A-Za-z0-9+/=%]*"
)
_RUN = re.compile(r"[A-Za-z0-9+/]{40,}={0,2}")
_CONTINUED = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")
_UPPER, _LOWER, _DIGIT = re.compile("[A-Z]"), re.compile("[a-z]"), re.compile("[0-9]")
DATA, BASE64 = "[data]", "[base64]"
MAX_LINE_CHARS = 10_000  # a paragraph set as one line is ~2,000; nothing read needs more
MAX_VIEW_CHARS = 20_000_000  # a 2,000-page book is ~10 million characters
CUT = " [cut]"


def _is_payload(run: str) -> bool:
    """Base64 of bytes mixes all three classes (40 random characters lack a digit 1 time in
    900); identifiers, hex digests, paths and words do not."""
    return bool(_UPPER.search(run) and _LOWER.search(run) and _DIGIT.search(run))


def strip_line(line: str, after_payload: bool = False) -> tuple[str, bool]:
    """(the line without payloads, whether it ended in one). A line that is one base64 run
    after a line that ended in one is a continuation (a MIME wrap), whatever its length."""
    if "data:" in line.lower():
        line = _DATA_URI.sub(DATA, line)
    found = False

    def replace(match: re.Match[str]) -> str:
        nonlocal found
        if _is_payload(match[0]):
            found = True
            return BASE64
        return match[0]

    line = _RUN.sub(replace, line)
    stripped = line.strip()
    if not found and after_payload and stripped and _CONTINUED.fullmatch(stripped):
        return BASE64, True
    return line, found and line.rstrip().endswith((BASE64, DATA))


def strip_payloads(lines: tuple[str, ...] | list[str]) -> tuple[list[str], int]:
    """The lines without payloads, and how many lines changed."""
    out, changed, after = [], 0, False
    for line in lines:
        new, after = strip_line(line, after)
        changed += new != line
        out.append(new)
    return out, changed


def _text(value: str | None) -> str | None:
    return None if value is None else strip_line(value)[0]


def without_payloads(view: View) -> View:
    """The view with every payload replaced (lines, titles, notes); line numbers unchanged."""
    lines, changed = strip_payloads(view.lines)
    units = tuple(
        Unit(u.start, u.end, u.anchor, _text(u.title), _text(u.citation), _text(u.identity))
        for u in view.units
    )
    notes = {n: strip_line(text)[0] for n, text in view.notes.items()}
    counters = dict(view.counters)
    if changed:
        counters["payload_lines_cut"] = counters.get("payload_lines_cut", 0) + changed
    return View(tuple(lines), units, view.file_lines, _text(view.title), counters, notes)


# A wrap a typesetter or a viewer makes: a line end (with its indentation) between two token
# characters, or one space after a run of 16 (prose words are shorter; a broken token is not).
_TOKEN = "A-Za-z0-9_+/=\\-"
_LINE_WRAP = re.compile(rf"(?<=[{_TOKEN}])[ \t]*\n[ \t]*(?=[{_TOKEN}])")
_SPACE_WRAP = re.compile(rf"(?<=[{_TOKEN}]{{16}}) (?=[{_TOKEN}])")


def joined(text: str) -> str:
    """The text with line, page and long-run wraps joined (what a token looks like whole)."""
    return _SPACE_WRAP.sub("", _LINE_WRAP.sub("", text))


def token_kind(content: bytes) -> str | None:
    """The kind of known token format (the token rules alone, not the keyword rule) the
    content holds, or None: for text whose wraps were joined, where a keyword's value would
    run into the next word."""
    from arr.safety.rules import token_spans, visible_bytes

    return next((kind for kind, _, _ in token_spans(visible_bytes(content))), None)


def credential_in(view: View) -> str | None:
    """The kind of credential the view shows anywhere (lines, titles, notes), or None."""
    from arr.safety.rules import credential_kind

    parts = [*view.lines, view.title or "", *(u.title or "" for u in view.units)]
    parts += [u.citation for u in view.units if u.citation]
    parts += [u.identity for u in view.units if u.identity]
    parts += list(view.notes.values())
    text = "\n".join(parts)
    # two joins: the whole text (a token wrapped over several lines), and each line with the
    # next alone (a fixed-length token at a wrap, which the whole join runs into the next word)
    lines = view.lines
    pairs = "\n".join(a.rstrip() + b.lstrip() for a, b in zip(lines, lines[1:], strict=False))
    # and the line join alone: a token that ends a wrapped paragraph before a space and a word
    # ("...Vw8A Then we") is run into the word by the space join
    return (
        credential_kind(text.encode("utf-8", "surrogatepass"))
        or token_kind(joined(text).encode("utf-8", "surrogatepass"))
        or token_kind(_LINE_WRAP.sub("", text).encode("utf-8", "surrogatepass"))
        or token_kind(_SPACE_WRAP.sub("", pairs).encode("utf-8", "surrogatepass"))
    )


def capped(view: View) -> View:
    """The view within the character caps (counted ``line_chars_cut``, ``view_chars_cut``)."""
    lines, long_cut, left, emptied = [], 0, MAX_VIEW_CHARS, 0
    for line in view.lines:
        if len(line) > MAX_LINE_CHARS:
            line, long_cut = line[:MAX_LINE_CHARS] + CUT, long_cut + 1
        if left <= 0 and line:
            line, emptied = "", emptied + 1
        left -= len(line) + 1
        lines.append(line)
    long_titles = {id(u) for u in view.units if len(u.title or "") > MAX_LINE_CHARS}
    if not long_cut and not emptied and not long_titles and len(view.title or "") <= MAX_LINE_CHARS:
        return view
    counters = dict(view.counters)
    for name, count in (("line_chars_cut", long_cut), ("view_chars_cut", emptied)):
        if count:
            counters[name] = counters.get(name, 0) + count
    units = tuple(
        replace(u, title=_head(u.title)) if id(u) in long_titles else u for u in view.units
    )
    title = _head(view.title)
    return replace(view, lines=tuple(lines), units=units, counters=counters, title=title)


def _head(value: str | None) -> str | None:
    return value if value is None or len(value) <= MAX_LINE_CHARS else value[:MAX_LINE_CHARS]


def walled(view: View) -> View | str:
    """The view within the caps and without payloads, or the kind of credential it shows."""
    view = capped(view)
    kind = credential_in(view)  # before payloads are cut: a token is judged whole
    return kind if kind else without_payloads(view)
