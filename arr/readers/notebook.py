"""Notebook reader (``.ipynb``, read with nbformat): one unit per cell, ``nb.ipynb#cell=3``.

A cell's unit holds its source (markdown or code) and its text outputs: ``stream`` text,
``text/plain`` results and error tracebacks (ANSI colours removed). Images, HTML, widget state,
attachments and any base64 payload are never indexed, embedded or shown: only those text
parts are read, and a line that is one long base64-like run is dropped (counted as
``payload_lines_dropped``); ``data:`` URIs and base64 runs inside lines are cut by the walls
every view passes (:mod:`arr.readers.walls`). Cells are numbered by their
index in the notebook, from 0, as nbformat and Jupyter's APIs count them. The notebook's title
is its first markdown heading; a cell's heading is the last one above it.
"""

from __future__ import annotations

import json
import re

from arr.readers.view import UNREADABLE, Unreadable, View, build_view

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_PAYLOAD = re.compile(r"^[A-Za-z0-9+/=]{80,}$")
MAX_OUTPUT_LINES = 200  # per output: a cell that printed a million lines stays one cell


def heading_of(line: str) -> str | None:
    """A markdown ATX heading's text (``## Results ##`` -> ``Results``), or None. Plain string
    operations, linear in the line: a regex with a lazy group between optional runs took
    43 s on ``# x`` + 3,000 spaces + ``y``."""
    body = line.lstrip(" ")
    if len(line) - len(body) > 3 or not body.startswith("#"):
        return None
    text = body.lstrip("#")
    if len(body) - len(text) > 6 or not text[:1].isspace():
        return None
    text = " ".join(text.rstrip("# \t").split())[:300]
    return text or None


def _text(value: object) -> str:
    if isinstance(value, list):
        return "".join(str(part) for part in value)
    return value if isinstance(value, str) else ""


def _output_lines(output: dict) -> list[str]:
    kind = output.get("output_type")
    if kind == "stream":
        text = _text(output.get("text"))
    elif kind in ("execute_result", "display_data"):
        text = _text((output.get("data") or {}).get("text/plain"))
    elif kind == "error":
        trace = output.get("traceback") or []
        head = f"{output.get('ename', '')}: {output.get('evalue', '')}"
        text = "\n".join([head, *(_text(t) for t in trace)])
    else:
        return []
    lines = _ANSI.sub("", text).split("\n")
    return lines[:MAX_OUTPUT_LINES]


def _clean(lines: list[str], dropped: list[int]) -> list[str]:
    out = []
    for line in lines:
        line = line.rstrip("\r")
        if _PAYLOAD.match(line.strip()):
            dropped[0] += 1
            continue
        out.append(line)
    return out


def _why_not(exc: BaseException) -> str:
    """Why the file is not a notebook, in words that never quote it: nbformat's own message
    echoes the file's first bytes (a token there would be shown in ``arr skipped``)."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, json.JSONDecodeError):
            where = f"line {cause.lineno} column {cause.colno}"
            return f"not a notebook: not JSON ({cause.msg}, {where})"
        cause = cause.__cause__ or cause.__context__
    return f"not a notebook ({type(exc).__name__})"


class NotebookReader:
    def read(self, raw: bytes) -> View:
        from nbformat import convert, reader

        try:
            # read and upgraded without validation (a notebook nbformat would warn about is
            # still a user's notebook; only its text parts are read)
            notebook = convert(reader.reads(raw.decode("utf-8")), 4)
            cells = list(notebook.get("cells") or [])
        except RecursionError:
            raise Unreadable(UNREADABLE, "nested too deeply") from None
        except MemoryError:
            raise  # the worker names it extract_memory
        except Exception as exc:  # malformed JSON, a truncated file, not a notebook
            raise Unreadable(UNREADABLE, _why_not(exc)) from None
        dropped = [0]
        title = section = None
        blocks: list[tuple[str | None, str | None, list[str]]] = []
        for index, cell in enumerate(cells):
            if not isinstance(cell, dict):
                continue
            kind = cell.get("cell_type")
            source = _text(cell.get("source")).split("\n")
            if kind == "markdown":
                heading = next((h for s in source if (h := heading_of(s))), None)
                section = heading or section
                title = title or heading
            lines = list(source) if kind in ("markdown", "code", "raw") else []
            for output in cell.get("outputs") or [] if kind == "code" else []:
                if isinstance(output, dict):
                    lines += _output_lines(output)
            blocks.append((f"cell={index}", section, _clean(lines, dropped)))
        counters = {"payload_lines_dropped": dropped[0]} if dropped[0] else {}
        return build_view(blocks, file_lines=False, title=title, counters=counters)
