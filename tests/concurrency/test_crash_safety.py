"""SIGKILL in the middle of an index build or a memory write loses nothing already stored."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from arr.memory.store import ResearchMemoryStore
from arr.models import ToolCall
from arr.tools.bm25 import BM25Tool
from arr.tools.partition import current_generation
from arr.workspace.workspace import Workspace
from tests.conftest import SCOPE_A

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


def big_workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws" / "a"
    root.mkdir(parents=True)
    (root / "anchor.md").write_text("warmup anchor document\n")
    for i in range(400):
        (root / f"f{i}.md").write_text(f"document {i} about topic{i % 17} " * 200 + "\n")
    return Workspace(
        name="t",
        root=tmp_path / "ws",
        index_dir=tmp_path / "idx",
        memory_db=tmp_path / "m.sqlite3",
        scopes={"a": {"key": SCOPE_A, "roots": ["a"]}},
    )


BUILD = textwrap.dedent("""
    import sys
    from arr.tools.bm25 import BM25Tool
    from arr.workspace.workspace import Workspace
    from arr.models import ScopeKey
    ws = Workspace.model_validate_json(sys.argv[1])
    tool = BM25Tool("bm25", ws)
    print("ready", flush=True)
    while True:
        tool.build(ScopeKey.model_validate_json(sys.argv[2]))
""")


@pytest.mark.parametrize("kill_after_s", [0.05, 0.2, 0.45, 0.9])
def test_killed_index_build_leaves_the_old_index_usable(
    tmp_path: Path, kill_after_s: float
) -> None:
    ws = big_workspace(tmp_path)
    BM25Tool("bm25", ws).build(SCOPE_A)
    before = current_generation(ws.index_dir / "bm25", SCOPE_A)
    child = subprocess.Popen(
        [sys.executable, "-c", BUILD, ws.model_dump_json(), SCOPE_A.model_dump_json()],
        stdout=subprocess.PIPE,
        cwd=REPO,
    )
    assert child.stdout is not None and child.stdout.readline().strip() == b"ready"
    time.sleep(kill_after_s)
    child.send_signal(signal.SIGKILL)
    child.wait()
    reader = BM25Tool("bm25", ws)
    assert reader.freshness(SCOPE_A).fresh
    hits = reader.retrieve(ToolCall(tool="bm25", query="warmup anchor"), SCOPE_A)
    assert hits[0].id == "doc:anchor.md#L1"
    current = current_generation(ws.index_dir / "bm25", SCOPE_A)
    assert current is not None and (current == before or (current / "manifest.json").exists())
    BM25Tool("bm25", ws).build(SCOPE_A)  # the next build succeeds and cleans up orphans
    generations = [p for p in current.parent.iterdir() if p.name.startswith("gen-")]
    assert len(generations) <= 2


WRITER = textwrap.dedent("""
    import sys
    from arr.memory.store import ResearchMemoryStore
    from arr.models import ScopeKey
    store = ResearchMemoryStore(sys.argv[1])
    scope = ScopeKey.model_validate_json(sys.argv[2])
    i = 0
    while True:
        store.add_draft(f"m{i}", scope, "title", "body " * 200)
        store.transition(f"m{i}", "publish")
        if i == 0:  # one memory written: the kill below can never land before any write
            print("ready", flush=True)  # (a fixed wait after start-up did, on a loaded CI)
        i += 1
""")


@pytest.mark.parametrize("kill_after_s", [0.1, 0.3, 0.7])
def test_killed_memory_writer_leaves_a_consistent_store(
    tmp_path: Path, kill_after_s: float
) -> None:
    db = tmp_path / "m.sqlite3"
    ResearchMemoryStore(db).initialise()
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db), SCOPE_A.model_dump_json()],
        stdout=subprocess.PIPE,
        cwd=REPO,
    )
    assert child.stdout is not None and child.stdout.readline().strip() == b"ready"
    time.sleep(kill_after_s)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    memories = dict(conn.execute("SELECT id, status FROM memories").fetchall())
    audit = conn.execute("SELECT memory_id, action FROM audit").fetchall()
    fts = {r[0] for r in conn.execute("SELECT memory_id FROM memory_fts").fetchall()}
    conn.close()
    assert memories, "the writer wrote nothing before it was killed"
    added = {m for m, a in audit if a == "add_draft"}
    published = {m for m, a in audit if a == "publish"}
    assert added == set(memories)  # no memory without its audit row, no audit row without it
    assert published == {m for m, s in memories.items() if s == "published"} == fts


VECTOR_BUILD = textwrap.dedent("""
    import sys, time
    from arr.embedder.hashing import HashingEmbedder
    from arr.tools.vector import VectorTool
    from arr.vector_store.chroma import ChromaStore
    from arr.workspace.workspace import Workspace
    from arr.models import ScopeKey

    class SlowEmbedder(HashingEmbedder):
        def embed(self, texts, show_progress=False):
            time.sleep(0.15)  # a model's pace: the kill lands between committed batches
            return super().embed(texts, show_progress)

    ws = Workspace.model_validate_json(sys.argv[1])
    tool = VectorTool("vector", ws, SlowEmbedder(), ChromaStore(sys.argv[3]), commit_every=20)
    print("ready", flush=True)
    tool.build(ScopeKey.model_validate_json(sys.argv[2]))
    print("done", flush=True)
""")


def test_killed_vector_build_resumes_with_only_what_is_missing(tmp_path: Path) -> None:
    """SIGKILL mid-build: the batches already embedded stay stored; the next build embeds only
    the rest, and the finished index is complete and fresh."""
    from arr.embedder.hashing import HashingEmbedder
    from arr.tools.vector import VectorTool
    from arr.vector_store.chroma import ChromaStore

    root = tmp_path / "ws" / "a"
    root.mkdir(parents=True)
    for i in range(200):
        (root / f"note{i}.md").write_text(f"note {i} about topic{i % 13}\n")
    ws = Workspace(
        name="t",
        root=tmp_path / "ws",
        index_dir=tmp_path / "idx",
        memory_db=tmp_path / "m.sqlite3",
        scopes={"a": {"key": SCOPE_A, "roots": ["a"]}},
    )
    chroma = tmp_path / "chroma"
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            VECTOR_BUILD,
            ws.model_dump_json(),
            SCOPE_A.model_dump_json(),
            str(chroma),
        ],
        stdout=subprocess.PIPE,
        cwd=REPO,
    )
    assert child.stdout is not None and child.stdout.readline().strip() == b"ready"
    store = ChromaStore(chroma)
    deadline = time.monotonic() + 60
    stored = 0
    while time.monotonic() < deadline and stored < 60:  # let some batches land
        time.sleep(0.1)
        try:
            stored = len(ChromaStore(chroma).existing(SCOPE_A))
        except Exception:
            stored = 0
    child.send_signal(signal.SIGKILL)
    child.wait()
    kept = len(store.existing(SCOPE_A))
    assert 0 < kept < 200, kept
    embedder = HashingEmbedder()
    tool = VectorTool("vector", ws, embedder, ChromaStore(chroma), commit_every=20)
    assert not tool.freshness(SCOPE_A).fresh  # never a half-built index served as fresh
    report = tool.build(SCOPE_A)
    assert embedder.texts_embedded == report["embedded"] == 200 - kept
    assert tool.freshness(SCOPE_A).fresh and len(store.existing(SCOPE_A)) == 200


OPEN_STORE = textwrap.dedent("""
    import sys, time
    from arr.models import ScopeKey
    from arr.vector_store.chroma import ChromaStore
    start = float(sys.argv[3])
    while time.time() < start:  # every child opens the store at the same instant
        pass
    try:
        ChromaStore(sys.argv[1])._collection(ScopeKey.model_validate_json(sys.argv[2]), create=True)
        print("ok")
    except Exception as exc:
        print(f"failed: {exc}")
""")


def test_processes_opening_one_new_store_at_once_all_succeed(tmp_path: Path) -> None:
    """A search and an index build may open a store that does not exist yet at the same time;
    Chroma's first-open migration is not guarded between processes, so ARR guards it."""
    outcomes: list[str] = []
    for trial in range(5):
        start = time.time() + 3  # past the children's imports
        children = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    OPEN_STORE,
                    str(tmp_path / f"chroma{trial}"),
                    SCOPE_A.model_dump_json(),
                    str(start),
                ],
                stdout=subprocess.PIPE,
                text=True,
                cwd=REPO,
            )
            for _ in range(4)
        ]
        outcomes += [child.communicate(timeout=120)[0].strip() for child in children]
    assert outcomes == ["ok"] * 20, [o for o in outcomes if o != "ok"]
