"""The baselines a researcher could script (bm25s over ``pdftotext`` pages) and ARR as
configured, both answering a query with its 10 best places as (file, unit number)."""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path
from typing import Any


def pdftotext_pages(path: Path) -> list[str]:
    out = subprocess.run(
        ["pdftotext", "-q", "-enc", "UTF-8", str(path), "-"], capture_output=True, timeout=120
    ).stdout.decode("utf-8", "replace")
    pages = out.split("\f")
    return pages[:-1] if pages and not pages[-1].strip() else pages


def bm25s_over(ids: list[tuple[str, int]], corpus: list[str]):  # type: ignore[no-untyped-def]
    """The simplest script a researcher could write: bm25s (PyStemmer English, English stop
    words) over ``corpus``; a query answers with the ``ids`` of its 10 best units."""
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(corpus, stopwords="en", stemmer=stemmer, show_progress=False),
                    show_progress=False)  # fmt: skip

    def search(query: str) -> list[tuple[str, int]]:
        tokens = bm25s.tokenize([query], stopwords="en", stemmer=stemmer, show_progress=False)
        if not tokens.vocab:  # stop words only: bm25s has nothing to look up
            return []
        results, scores = retriever.retrieve(tokens, k=min(10, len(ids)), show_progress=False)
        return [ids[i] for i, s in zip(results[0], scores[0], strict=True) if s > 0]

    return search


def bm25s_pages(texts: dict[str, list[str]]):  # type: ignore[no-untyped-def]
    ids = [(name, n) for name, pages in texts.items() for n in range(1, len(pages) + 1)]
    return bm25s_over(ids, [texts[name][n - 1] for name, n in ids])


def arr_places(folder: Path, overrides: list[str], refused: Counter[str] | None = None):  # type: ignore[no-untyped-def]
    """ARR as configured by ``overrides`` on the workspace at ``folder``: a query answers with
    the locations of its 10 best places (scope ``papers``). ``refused`` counts the codes of
    the rejections and degradations of its answers (a channel that refused a stale index
    scores nothing, and a table must not pass that off as the channel's figure)."""
    import arr

    router = arr.load_router(overrides=overrides, workspace=folder)

    def places(query: str) -> list[Any]:
        result = router.search(query, "papers")
        if refused is not None:
            refused.update(
                {r.code for r in result.rejections} | {d.code for d in result.degradations}
            )
        return [item.location for item in result.evidence[:10]]

    return places


def arr_search(folder: Path, overrides: list[str], unit: str = "page", none: int = 0):  # type: ignore[no-untyped-def]
    """ARR as configured by ``overrides``: a query answers with its 10 best places as (file,
    number of the ``unit``: ``page=7`` -> 7, else ``none``)."""
    places = arr_places(folder, overrides)

    def search(query: str) -> list[tuple[str, int]]:
        found = []
        for where in places(query):
            number = where.page if unit == "page" else where.cell
            found.append((where.path.split("/", 1)[-1], none if number is None else number))
        return found

    return search
