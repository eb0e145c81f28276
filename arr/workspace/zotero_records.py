"""A Zotero data folder inside a scope (``zotero.sqlite`` beside ``storage/<KEY>/paper.pdf``):
each stored PDF attachment named by its parent item's metadata (title, authors in order,
year, DOI), as :mod:`arr.readers.bib_records` names them from a ``.bib``, with its source named
``zotero``. Items in Zotero's trash (``deletedItems``: the attachment or its parent) are left
out. The authors are the item's creators of type ``author`` (else those of its first
creator's type: an edited book's editors, a program's programmers; never a translator beside
an author), each a given and a family name (``fieldMode`` 1: one field, a body's name).
An item with no date has no year: the PDF's own guess is not put in its place.

The database is read under the one file rule (no link, inside the root, a size cap) into a
private temporary copy, which is opened read-only: a running Zotero's lock is never waited on
or taken, and the researcher's file is never written. Zotero's schema (5.x and later):
``items`` (the attachment's ``key`` is its storage folder), ``itemAttachments`` (``path``:
``storage:paper.pdf``), ``itemData``/``itemDataValues``/``fields`` (``title``, ``date``,
``DOI``), ``creators``/``itemCreators``/``creatorTypes`` (``orderIndex``), ``deletedItems``.
A database of another shape is not used.
"""

from __future__ import annotations

import os
import re
import sqlite3
import tempfile

from arr.readers.bib_records import BibRecord, Person
from arr.safety import file_rule

# read whole into memory once per change of the database, in the searching process: a bound on
# that memory (a library of tens of thousands of items is under 100 MB); a larger one is not used
MAX_ZOTERO_BYTES = 256_000_000
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
_QUERY = """
SELECT attachment.key, itemAttachments.path, itemAttachments.parentItemID
FROM itemAttachments JOIN items AS attachment ON attachment.itemID = itemAttachments.itemID
WHERE itemAttachments.path LIKE 'storage:%' AND itemAttachments.parentItemID IS NOT NULL
AND itemAttachments.itemID NOT IN (SELECT itemID FROM deletedItems)
AND itemAttachments.parentItemID NOT IN (SELECT itemID FROM deletedItems)
"""
_FIELDS = """
SELECT fields.fieldName, itemDataValues.value FROM itemData
JOIN fields ON fields.fieldID = itemData.fieldID
JOIN itemDataValues ON itemDataValues.valueID = itemData.valueID
WHERE itemData.itemID = ? AND fields.fieldName IN ('title', 'date', 'DOI')
"""
_CREATORS = """
SELECT creators.firstName, creators.lastName, creatorTypes.creatorType FROM itemCreators
JOIN creators ON creators.creatorID = itemCreators.creatorID
JOIN creatorTypes ON creatorTypes.creatorTypeID = itemCreators.creatorTypeID
WHERE itemCreators.itemID = ? ORDER BY itemCreators.orderIndex
"""


def zotero_records(root: str, relative: str) -> dict[str, BibRecord]:
    """``storage/<KEY>/<file>.pdf`` (relative to the data folder) -> its item's record, from
    the ``zotero.sqlite`` at ``relative`` under ``root``; {} when it cannot be read."""
    raw, _ = file_rule.read_path(root, relative, MAX_ZOTERO_BYTES, check_content=False)
    if raw is None or not raw.startswith(b"SQLite format 3\x00"):
        return {}
    handle, copy = tempfile.mkstemp(suffix=".sqlite")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(raw)
        del raw
        connection = sqlite3.connect(f"file:{copy}?mode=ro", uri=True)
        try:
            return _read(connection)
        finally:
            connection.close()
    except sqlite3.Error:  # another shape, or damaged: not evidence
        return {}
    finally:
        os.unlink(copy)


def _read(connection: sqlite3.Connection) -> dict[str, BibRecord]:
    out: dict[str, BibRecord] = {}
    for key, path, parent in connection.execute(_QUERY).fetchall():
        name = str(path).removeprefix("storage:")
        if not name.lower().endswith(".pdf") or "/" in name or not re.fullmatch(r"\w+", key):
            continue
        fields = dict(connection.execute(_FIELDS, (parent,)).fetchall())
        year = _YEAR.search(str(fields.get("date") or ""))
        out[f"storage/{key}/{name}"] = BibRecord(
            key=key,
            title=str(fields["title"]) if fields.get("title") else None,
            people=authors(connection.execute(_CREATORS, (parent,)).fetchall()),
            more=False,
            year=int(year[1]) if year else None,
            doi=str(fields["DOI"]) if fields.get("DOI") else None,
            files=(f"storage/{key}/{name}",),
            source="zotero",
        )
    return out


def authors(creators: list[tuple[object, object, object]]) -> tuple[Person, ...]:
    """The item's authors in order (else the creators of its first creator's type), from its
    ``(firstName, lastName, creatorType)`` rows; a name without a last name is no one."""
    kinds = [kind for _, _, kind in creators]
    wanted = "author" if "author" in kinds else (kinds[0] if kinds else None)
    return tuple(
        Person(str(first or "").strip(), str(last).strip())
        for first, last, kind in creators
        if kind == wanted and str(last or "").strip()
    )
