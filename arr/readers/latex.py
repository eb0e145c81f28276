"""LaTeX reader (``.tex``): units follow ``\\part`` ... ``\\subsubsection``, each with its heading.

The view keeps every line where the file has it (locations stay the file's line ranges) with
comments blanked (``%`` to the line end, not ``\\%``), so comments are neither indexed nor shown.
Text before the first heading is a unit titled by ``\\title{...}`` when there is one. A
citation key (``\\cite{goyal2017}``) is also indexed as words with its chunk (``cites: goyal
2017``, a note of the view: grep and snippets show the line as written), so a question
naming an author and a year finds the passage that cites the work, after the entry itself.
"""

from __future__ import annotations

import re

from arr.readers.view import View, in_place_view

_COMMENT = re.compile(r"(?<!\\)%.*$")
# Every quantifier over untrusted text is bounded or cannot overlap its neighbour, so a search
# costs a constant per position (``\section`` + 200 KB of spaces took 73 s with two adjacent
# ``\s*`` around an optional group; 15,000 unclosed ``\cite{`` each scanned to the line end).
_HEADING = re.compile(
    r"\\(part|chapter|section|subsection|subsubsection|paragraph)\*?[ \t]{0,64}"
    r"(?:\[[^\]\n]{0,300}\][ \t]{0,64})?\{"
)
_TITLE = re.compile(r"\\title[ \t]{0,64}\{")
_CITE = re.compile(
    r"\\[a-zA-Z]{0,16}cite[a-zA-Z]{0,16}\*?[ \t]{0,64}(?:\[[^\]\n]{0,300}\][ \t]{0,64}){0,2}"
    r"\{([^}\n]{0,1000})\}"
)
MAX_HEADING_CHARS = 2000  # a heading's argument is read this far at most
_KEY_WORDS = re.compile(r"[A-Za-z]+|\d+")
_DEPTH = {"part": 0, "chapter": 1, "section": 2, "subsection": 3, "subsubsection": 4}


def braced(text: str) -> str:
    """The text up to the brace that closes one already opened (a heading's argument)."""
    depth, out = 1, []
    for char in text[:MAX_HEADING_CHARS]:
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                break
        out.append(char)
    return " ".join(re.sub(r"\\[a-zA-Z]+\*?|[{}]", " ", "".join(out)).split())


def uncommented(line: str) -> str:
    return _COMMENT.sub("", line.rstrip("\r"))


def cited_words(line: str) -> str | None:
    """The line's citation keys as words (``cites: goyal 2017``), or None."""
    keys = [k.strip() for m in _CITE.finditer(line) for k in m[1].split(",") if k.strip()]
    if not keys:
        return None
    return "cites: " + "; ".join(" ".join(_KEY_WORDS.findall(k)) for k in keys)


class LatexReader:
    def read(self, raw: bytes) -> View:
        text = raw.decode("utf-8", "replace")
        lines = [uncommented(line) for line in text.split("\n")]
        notes = {n: words for n, line in enumerate(lines, 1) if (words := cited_words(line))}
        title = next(
            (braced(line[m.end() :]) for line in lines if (m := _TITLE.search(line))), None
        )
        starts: list[tuple[int, str | None]] = [(0, title)]
        trail: dict[int, str] = {}
        for number, line in enumerate(lines):
            match = _HEADING.search(line)
            if match:
                depth = _DEPTH.get(match[1], 5)
                trail = {d: t for d, t in trail.items() if d < depth}
                trail[depth] = braced(line[match.end() :])
                heading = " › ".join(trail[d] for d in sorted(trail))
                starts.append((number, heading))
        if len(starts) > 1 and starts[1][0] == 0:
            starts.pop(0)
        blocks = []
        ends = [*starts[1:], (len(lines), None)]
        for (start, heading), (end, _) in zip(starts, ends, strict=True):
            # a unit's lines keep their place: empty leading units would shift them
            blocks.append((None, heading, lines[start:end]))
        return in_place_view(blocks, lines, title, notes)
