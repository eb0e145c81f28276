"""The one list of readers: each format's suffix, reader class, output version, size cap and
whether its raw bytes are text. Every other place asks here: the worker builds its reader from
it, the view cache keys views by its versions, the workspace's walk and grep's engine leave its
suffixes to the readers, :class:`arr.readers.Readers` takes its caps from it. A new format is
one entry (and its reader module).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Format:
    suffix: str  # lower case, with its dot
    reader: str  # "module:Class"; the class takes the reading limits when ``limits`` is true
    version: str  # bumped when the reader reads the format anew: its files are read again
    text: bool  # raw bytes hold no NUL by nature (a NUL in one: a binary file)
    cap: str | None = None  # "pdf" or "notebook": its own size cap, else the text cap
    limits: bool = False  # the reader takes (max_pages, budget_s)


FORMATS: tuple[Format, ...] = (
    Format(".pdf", "arr.readers.pdf:PdfReader", "pdf-15", text=False, cap="pdf", limits=True),
    Format(".ipynb", "arr.readers.notebook:NotebookReader", "ipynb-2", text=True, cap="notebook"),
    Format(".tex", "arr.readers.latex:LatexReader", "tex-3", text=True),
    Format(".bib", "arr.readers.bibtex:BibtexReader", "bib-4", text=True),
)


def suffixes() -> tuple[str, ...]:
    return tuple(f.suffix for f in FORMATS)


def format_of(suffix: str) -> Format | None:
    return next((f for f in FORMATS if f.suffix == suffix), None)


def reader_for(suffix: str, max_pages: int, budget_s: float) -> Any:
    """A reader of the format (imported on first use: PDFium loads only where a PDF is read)."""
    found = format_of(suffix)
    if found is None:
        raise ValueError(f"no reader for {suffix!r}")
    module, _, name = found.reader.partition(":")
    cls = getattr(importlib.import_module(module), name)
    return cls(max_pages, budget_s) if found.limits else cls()


def engine_glob() -> str:
    """ripgrep's glob that leaves every reader's files to the readers (``--iglob=!*.{pdf,...}``)."""
    return "--iglob=!*.{" + ",".join(s.lstrip(".") for s in suffixes()) + "}"
