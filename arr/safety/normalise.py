"""Text as the secret judge reads it: normalised once, before any rule runs.

Two steps, both linear and both kept by the caller's offsets where it needs them:

- :func:`visible_text` / :func:`visible_bytes` remove every character that renders as nothing:
  Unicode's format characters (category ``Cf``: zero-width space and joiners, the direction
  marks U+200E/U+200F, bidirectional controls, the soft hyphen, tag characters ...), variation
  selectors (U+FE00-FE0F and the supplement), the combining grapheme joiner U+034F, the Hangul
  fillers (U+115F, U+1160, U+3164, U+FFA0), Mongolian variation selectors and the blank Braille
  pattern. A token split by one of them reads whole on screen, so it is judged whole. The
  table is written out (a scan of Unicode costs 0.2 s per import); a test checks it against
  ``unicodedata`` of the running Python.
- :func:`neutral_view` is a second view of the same length (so a span found in it is a span
  of the text): the punctuation that wraps a value in the places researchers write one is
  made a quote or a space, so a scanner whose rules end a token at a quote, a space or ``=``
  sees ``name = "value"``: R's ``<-``, Go's ``:=``, Perl/PHP/Ruby ``=>``, ``.bib`` and LaTeX
  braces (``\\newcommand{\\key}{value}``, ``note = {value}``), XML's ``<token>value</token>``,
  backticks, and the escapes of a string inside JSON (a notebook cell on disk: ``\\"``,
  ``\\n``).
"""

from __future__ import annotations

import json
import re

# (first, last) code points, inclusive: Unicode 14 ``Cf`` plus the fillers and selectors above.
FORMAT_CHARACTERS = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD),
    (0x070F, 0x070F), (0x0890, 0x0891), (0x08E2, 0x08E2), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F),
    (0x2800, 0x2800), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0),
    (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x13438),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F),
    (0xE0100, 0xE01EF),
)  # fmt: skip
# One character class: a single pass of the C engine, no backtracking possible.
_INVISIBLE = re.compile(
    "[" + "".join(f"{chr(a)}-{chr(b)}" if a != b else chr(a) for a, b in FORMAT_CHARACTERS) + "]"
)


def visible_text(text: str) -> str:
    """``text`` without the characters that render as nothing."""
    return text if text.isascii() else _INVISIBLE.sub("", text)


def visible_bytes(content: bytes) -> bytes:
    """UTF-8 ``content`` without the characters that render as nothing; unchanged (the same
    object, no copy) when it is ASCII. Bytes that are not UTF-8 pass through as they were."""
    if content.isascii():
        return content
    text = content.decode("utf-8", "surrogateescape")
    visible = _INVISIBLE.sub("", text)
    return content if len(visible) == len(text) else visible.encode("utf-8", "surrogateescape")


# Same length in, same length out: (two bytes, their stand-in), then one byte for one byte.
_PAIRS = (
    (b"}{", b'="'),  # \newcommand{\name}{value} -> name="value"
    (b"<-", b" ="),
    (b":=", b" ="),
    (b"=>", b"= "),
    (b'\\"', b' "'),  # a JSON string's escapes (a notebook on disk)
    (b"\\n", b" \n"),
    (b"\\t", b"  "),
)
# Not parentheses or brackets: with them, C++ and Python sources turn into quoted runs that the
# scanner's generic rules crawl (torch's DispatchKeySet.h: 0.15 s for 42 KB, 0.8 ms without).
_SINGLES = bytes.maketrans(b"{}<>`\\", b'""""" ')
_WRAPPED = re.compile(rb"[{}<>`\\:=]")


def neutral_view(content: bytes) -> bytes | None:
    """The view of ``content`` with its wrapping punctuation made quotes and spaces (module
    docstring), the same length; None when the content has none (the view would be itself)."""
    if not _WRAPPED.search(content):
        return None
    for pair, stand_in in _PAIRS:
        if pair in content:
            content = content.replace(pair, stand_in)
    return content.translate(_SINGLES)


MAX_JSON_VIEW_BYTES = 8_000_000  # a larger JSON file is judged by its bytes and neutral view only


def json_strings(content: bytes) -> bytes | None:
    """A JSON file's strings, decoded and one per line (a third view, for verdicts only: its
    offsets are not the file's): a value escaped inside a JSON string (``\\"``, ``\\n``,
    ``\\u0041``, a line continuation) reads as it was written. None when the content is not a
    JSON object or array, or is larger than ``MAX_JSON_VIEW_BYTES``."""
    head = content.lstrip()[:1]
    if head not in (b"{", b"[") or len(content) > MAX_JSON_VIEW_BYTES:
        return None
    try:
        document = json.loads(content)
    except (ValueError, RecursionError):
        return None
    found: list[str] = []
    stack = [document]
    while stack:  # no recursion: a deep document cannot exhaust the stack here
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            for name, value in item.items():
                found.append(name)
                stack.append(value)
        elif isinstance(item, list):
            stack.extend(item)
    if not any("\\" in text or "\n" in text or '"' in text for text in found):
        return None  # nothing a decode changes: the bytes were judged already
    return "\n".join(found).encode("utf-8", "surrogatepass")
