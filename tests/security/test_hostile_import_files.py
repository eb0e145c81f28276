"""Hostile ``arr memory import`` files: each is one named error with the line and the field,
nothing imported, never an internal error (before: RecursionError, a followed link, a
ValidationError from inside the store, a lone surrogate SQLite cannot store)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from arr.errors import MemoryStoreError
from arr.memory.store import ResearchMemoryStore
from arr.memory.transfer import import_memories
from tests.conftest import SCOPE_A

GOOD = {"id": "ok1", "scope": SCOPE_A.model_dump(), "title": "T", "body": "B"}


def line(**changes: object) -> str:
    return json.dumps({**GOOD, **changes}) + "\n"


CASES = {
    "nested_200000_deep": ("[" * 200_000 + "]" * 200_000 + "\n", "nested deeper than"),
    "id_with_dots": (line(id="../../x"), "field 'id'"),
    "lone_surrogate_title": (line(title="\ud800"), "field 'title'"),
    "lone_surrogate_tag": (line(tags=["ok", "\udfff"]), "field 'tags"),
    "body_50_mb": (line(body="x" * 50_000_000), "field 'body'"),
    "empty_title": (line(title=""), "field 'title'"),
    "scope_not_five_fields": (line(scope={"team_id": "t"}), "field 'scope"),
    "not_json": ("{not json\n", ":2: not a memory record"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_import_file_is_one_named_error_and_nothing_is_written(
    tmp_path: Path, case: str
) -> None:
    store = ResearchMemoryStore(tmp_path / "m.sqlite3")
    text, named = CASES[case]
    path = tmp_path / "in.jsonl"
    path.write_text(line(id="first") + text, encoding="utf-8", errors="surrogatepass")
    with pytest.raises(MemoryStoreError) as caught:
        import_memories(store, path)
    message = str(caught.value)
    assert named in message and (":2:" in message or "nested" in message), message
    assert len(message) < 400 and "\n" not in message
    store.initialise()
    assert store.list() == []  # the good first line was not imported either


def test_a_link_to_an_import_file_is_refused(tmp_path: Path) -> None:
    store = ResearchMemoryStore(tmp_path / "m.sqlite3")
    target = tmp_path / "real.jsonl"
    target.write_text(line())
    os.symlink(target, tmp_path / "link.jsonl")
    with pytest.raises(MemoryStoreError, match="symbolic link"):
        import_memories(store, tmp_path / "link.jsonl")
    assert import_memories(store, target) == (1, 0)  # the file itself is fine
