"""What kind of item an embedded passage is, for ``arr index``'s time left: notebook cells,
PDF pages, code and prose embed at their own rates on one machine (a cell is a few lines; a
page or a code chunk fills most of the model's 256 tokens: cells embedded about 3x faster than
PDF or code passages in issue 63's folder), so the run's clock counts each kind at its own
measured rate (arr.compose.run_clock).

A batch that holds several kinds is timed as one: its time is shared among its items by their
length (the model's work grows with the tokens of each text, plus a fixed cost per item).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from arr.query.named_paths import is_code
from arr.workspace.sources import Document

KINDS = ("cell", "page", "code", "prose")
# An item's share of a mixed batch: its characters (at most what the model reads, about 256
# tokens of 4-5 characters) plus a fixed cost (tokenising, one row of the batch). Fitted on
# nothing: a proportion; the clock's rates are measured per kind, this only splits a batch.
MAX_CHARS = 1200
FIXED_CHARS = 200


def item_kind(document: Document) -> str:
    anchor = document.anchor or ""
    if anchor.startswith("cell="):
        return "cell"
    if anchor.startswith("page="):
        return "page"
    path = document.path or ""
    # a notebook read as a file of lines is still cells; a .tex or .bib unit is prose
    return "code" if is_code(path) and not path.endswith(".ipynb") else "prose"


def kinds_of(documents: Iterable[Document]) -> dict[str, int]:
    """How many items of each kind."""
    return dict(Counter(item_kind(d) for d in documents))


def batch_shares(documents: Sequence[Document]) -> list[tuple[str, float]]:
    """(kind, weight) of each item of a batch: how its time is shared among the kinds."""
    return [(item_kind(d), min(len(d.text), MAX_CHARS) + FIXED_CHARS) for d in documents]


def spread(
    documents: Sequence[Document], per_kind: int, skip: Iterable[str] = ()
) -> dict[str, list[Document]]:
    """Up to ``per_kind`` items of each kind not in ``skip``, spread over the kind's items (a
    paper's first passages are not its typical ones); a kind with fewer items is left out."""
    by_kind: dict[str, list[Document]] = {}
    skipped = set(skip)
    for document in documents:
        kind = item_kind(document)
        if kind not in skipped:
            by_kind.setdefault(kind, []).append(document)
    return {
        kind: items[:: len(items) // per_kind][:per_kind]
        for kind, items in by_kind.items()
        if per_kind > 0 and len(items) >= per_kind
    }
