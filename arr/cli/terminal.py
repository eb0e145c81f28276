"""Text for a terminal: control characters shown escaped, emphasis only on a TTY.

Imported by the CLI before anything else (nothing heavy here): every text written to stdout
without ``--json`` passes ``TerminalSafeStream``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from typing import Any, TextIO

# Characters a terminal acts on instead of showing: C0 controls but newline and tab (ESC starts
# title changes and screen clears, BEL, CR overwrites a line), DEL, C1 controls (0x9b is a
# one-byte CSI) and the bidirectional overrides and isolates that reorder what is shown. Text
# output shows them escaped, as ripgrep and git do; JSON output keeps them exact.
_CONTROLS = [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]
_BIDI = [*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C]
_ESCAPES = {c: f"\\x{c:02x}" for c in _CONTROLS} | {c: f"\\u{c:04x}" for c in _BIDI}


# Where a snippet's match begins and ends in rendered text: private-use characters that the
# terminal stream turns into bold on a TTY and drops elsewhere (a pipe, a file, a test). The
# same characters inside evidence are escaped first, so text can never turn emphasis on.
EMPHASIS_ON, EMPHASIS_OFF = "\ue000", "\ue001"
_ESCAPES[ord(EMPHASIS_ON)] = "\\ue000"
_ESCAPES[ord(EMPHASIS_OFF)] = "\\ue001"
_PLAIN: dict[int, str] = {}
_MARK_CHARS = (EMPHASIS_ON, EMPHASIS_OFF)
_MARK_SPLIT = re.compile(f"([{EMPHASIS_ON}{EMPHASIS_OFF}])")
# a match in bold red, as ripgrep shows it; none where NO_COLOR is set (no-color.org)
_BOLD = {ord(EMPHASIS_ON): "\x1b[1;31m", ord(EMPHASIS_OFF): "\x1b[0m"}


def terminal_safe(text: str) -> str:
    """``text`` with every character a terminal would act on shown as an escape (``\\x1b``)."""
    return text.translate(_ESCAPES)


_JSON_ESCAPES = {c: f"\\u{c:04x}" for c in (*_CONTROLS, *_BIDI, *map(ord, _MARK_CHARS))}


def json_for_terminal(text: str) -> str:
    """JSON text (``json.dumps`` with ``ensure_ascii=False``) with every character a terminal
    would act on written as a JSON escape (``\\u009b``): still valid JSON, and inert on a
    terminal (text output's escaping, ``\\x9b``, would make it unparseable)."""
    return text.translate(_JSON_ESCAPES)


def emphasised(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """``text`` made terminal-safe, with the spans marked for emphasis."""
    out, cursor = [], 0
    for start, end in sorted(spans):
        if start < cursor or end > len(text):
            continue
        out += [terminal_safe(text[cursor:start]), EMPHASIS_ON]
        out += [terminal_safe(text[start:end]), EMPHASIS_OFF]
        cursor = end
    out.append(terminal_safe(text[cursor:]))
    return "".join(out)


class TerminalSafeStream:
    """A text stream that escapes terminal controls in everything written through it (the
    CLI's stdout for text output; never for JSON or the MCP protocol). Emphasis marks become
    bold red on a terminal and vanish elsewhere, or where ``NO_COLOR`` is set."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        try:
            coloured = stream.isatty() and not os.environ.get("NO_COLOR")
        except (AttributeError, ValueError):
            coloured = False
        self._marks = _BOLD if coloured else _PLAIN

    def write(self, text: str) -> int:
        if EMPHASIS_ON in text or EMPHASIS_OFF in text:
            # marks were put by the renderer (the same characters in evidence are escaped)
            parts = _MARK_SPLIT.split(text)
            self._stream.write(
                "".join(
                    self._marks.get(ord(p)) or "" if p in _MARK_CHARS else terminal_safe(p)
                    for p in parts
                )
            )
        else:
            self._stream.write(terminal_safe(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
