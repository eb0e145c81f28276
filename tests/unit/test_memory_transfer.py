"""``arr memory import`` / ``export``: one transaction, conflicts named, hostile files refused,
nothing left behind by a failed export."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arr.errors import MemoryStoreError
from arr.memory import transfer
from arr.memory.store import ResearchMemoryStore
from arr.memory.transfer import export_memories, import_memories
from tests.conftest import SCOPE_A
from tests.machine_speed import grace_s

REPO = Path(__file__).resolve().parents[2]


def record(memory_id: str, status: str = "published", title: str = "T") -> dict:
    return {
        "id": memory_id,
        "scope": SCOPE_A.model_dump(),
        "title": title,
        "body": f"body of {memory_id}",
        "tags": ["x"],
        "status": status,
    }


def write_file(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def states(store: ResearchMemoryStore) -> dict[str, str]:
    return {m.id: m.status for m in store.list()}


def test_import_is_one_transaction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = ResearchMemoryStore(tmp_path / "m.sqlite3")
    source = write_file(tmp_path / "in.jsonl", [record("a"), record("b", "retracted")])
    real = store.apply_transition
    calls = []

    def crash_on_third(conn, memory_id, action, actor):
        calls.append(action)
        if len(calls) == 3:  # b published, not yet retracted: the crash of the issue
            raise KeyboardInterrupt
        return real(conn, memory_id, action, actor)

    monkeypatch.setattr(store, "apply_transition", crash_on_third)
    with pytest.raises(KeyboardInterrupt):
        import_memories(store, source)
    assert states(store) == {}  # none of the file, not a published "b"
    monkeypatch.setattr(store, "apply_transition", real)
    assert import_memories(store, source) == (2, 0)
    assert states(store) == {"a": "published", "b": "retracted"}
    assert [m.id for m, _ in store.search("body", SCOPE_A, 5)] == ["a"]
    assert import_memories(store, source) == (0, 2)  # the same file again: all kept


def test_a_memory_in_another_state_is_a_conflict_and_nothing_is_written(tmp_path: Path) -> None:
    store = ResearchMemoryStore(tmp_path / "m.sqlite3")
    store.add_draft("a", SCOPE_A, "T", "body of a", ("x",))
    store.transition("a", "publish")
    source = write_file(tmp_path / "in.jsonl", [record("new"), record("a", "retracted")])
    with pytest.raises(MemoryStoreError) as info:
        import_memories(store, source)
    message = str(info.value)
    assert "nothing written" in message and "a (store: published, file: retracted" in message
    assert states(store) == {"a": "published"}
    edited = write_file(tmp_path / "edited.jsonl", [record("a", title="Other title")])
    with pytest.raises(MemoryStoreError, match="differs in title"):
        import_memories(store, edited)


@pytest.mark.parametrize("kind", ["dev_zero", "fifo", "folder", "too_big"])
def test_only_regular_files_within_the_cap_are_imported(
    tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ResearchMemoryStore(tmp_path / "m.sqlite3")
    if kind == "dev_zero":
        path = Path("/dev/zero")
    elif kind == "fifo":
        path = tmp_path / "pipe.jsonl"
        os.mkfifo(path)
    elif kind == "folder":
        path = tmp_path
    else:
        path = write_file(tmp_path / "big.jsonl", [record("a")] * 50)
        monkeypatch.setattr(transfer, "MAX_IMPORT_BYTES", 1000)
    started = time.monotonic()
    with pytest.raises(MemoryStoreError) as info:
        import_memories(store, path)
    assert time.monotonic() - started < grace_s(5, at_most=30)  # a FIFO would block for ever
    assert "regular file" in str(info.value) or "limit" in str(info.value)
    assert not store.path.exists()  # refused before the store was even created


@pytest.mark.parametrize("target", ["missing/dir/x.jsonl", "a_folder"])
def test_export_to_a_bad_target_is_one_error_and_leaves_nothing(
    tmp_path: Path, target: str
) -> None:
    store = ResearchMemoryStore(tmp_path / "state" / "m.sqlite3")
    store.add_draft("a", SCOPE_A, "T", "B")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "a_folder").mkdir()
    with pytest.raises(MemoryStoreError, match="cannot export"):
        export_memories(store, tmp_path / "out" / target)
    assert sorted(p.name for p in (tmp_path / "out").rglob("*")) == ["a_folder"]


KILLED_IMPORT = """
import sys
from pathlib import Path
from arr.memory.store import ResearchMemoryStore
from arr.memory.transfer import import_memories
print("ready", flush=True)
import_memories(ResearchMemoryStore(Path(sys.argv[1])), Path(sys.argv[2]))
print("done", flush=True)
"""


@pytest.mark.slow
def test_random_kills_never_leave_a_state_the_file_does_not_say(tmp_path: Path) -> None:
    statuses = ["draft", "published", "retracted"]
    source = write_file(
        tmp_path / "in.jsonl", [record(f"m{i}", statuses[i % 3]) for i in range(300)]
    )
    wanted = {f"m{i}": statuses[i % 3] for i in range(300)}
    for attempt in range(12):
        db = tmp_path / f"m{attempt}.sqlite3"
        child = subprocess.Popen(
            [sys.executable, "-c", KILLED_IMPORT, str(db), str(source)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        time.sleep(0.01 * attempt)  # from "at once" to after the import is done
        child.send_signal(signal.SIGKILL)
        child.wait()
        if db.exists():
            ResearchMemoryStore(db).initialise()  # a kill may land before the schema is whole
        found = states(ResearchMemoryStore(db)) if db.exists() else {}
        assert found in ({}, wanted), (attempt, len(found))
        # a re-run converges on the file
        import_memories(ResearchMemoryStore(db), source)
        assert states(ResearchMemoryStore(db)) == wanted
