"""A corpus file: a collection of many documents in one JSON Lines file, one record per line
(``_id``, ``title``, ``text``), indexed as records instead of as lines of a file. A scope names
it (``corpus: corpus.jsonl``) beside or instead of its roots; the builders read it as one more
source, its state (size, mtime) deciding whether it is read again."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from arr.errors import WorkspaceError
from arr.workspace.sources import Document


def corpus_records(path: Path) -> Iterator[Document]:
    """Each record of the corpus file as a document (its ``_id`` its id); a line that is not
    a record is a WorkspaceError naming the line."""
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                doc_id = str(record["_id"])
            except (ValueError, KeyError, TypeError) as exc:
                raise WorkspaceError(f"{path}:{number}: not a corpus record ({exc})") from exc
            text = f"{record.get('title', '')}\n{record.get('text', '')}".strip()
            yield Document(id=doc_id, text=text, document_id=doc_id)
