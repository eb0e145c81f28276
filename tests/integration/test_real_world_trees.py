"""Real trees are hostile: unreadable files and folders, FIFOs and sockets, files that vanish
mid-scan, damaged indexes and stores. None of them fails a scope or a call; each is skipped and
counted, or a degradation with its code (and a repair command) while the other channels answer.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from arr import codes
from arr.models import ScopeKey
from arr.tools.bm25 import BM25Tool
from arr.tools.grep import GrepTool
from arr.workspace.workspace import Workspace
from tests.conftest import SCOPE_A

REPO = Path(__file__).resolve().parents[2]
MARK = "quokka_marker"


def tree_workspace(base: Path) -> Workspace:
    root = base / "ws" / "root"
    (root / "notes").mkdir(parents=True)
    for number in range(5):
        (root / "notes" / f"note{number}.md").write_text(f"{MARK} note {number}\nwarmup\n")
    return Workspace(
        name="t",
        root=base / "ws",
        index_dir=base / "idx",
        memory_db=base / "m.sqlite3",
        scopes={"a": {"key": SCOPE_A, "roots": ["root"]}},
    )


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A folder an unprivileged user can enter (pytest's tmp_path is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="arr-perm-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


UNPRIVILEGED_PROBE = """
import json, sys
from pathlib import Path
from arr.models import ScopeKey, ToolCall
from arr.tools.bm25 import BM25Tool
from arr.tools.grep import GrepTool
from arr.workspace.workspace import Workspace
base = Path(sys.argv[1])
scope = ScopeKey(team_id="t1", project_id="p1", repository="r1", branch="main",
                 experiment_environment="e1")
ws = Workspace(name="t", root=base / "ws", index_dir=base / "idx", memory_db=base / "m.sqlite3",
               scopes={"a": {"key": scope, "roots": ["root"]}})
manifest = BM25Tool("bm25", ws).build(scope)
grep = GrepTool("grep", ws).retrieve(ToolCall(tool="grep", query="quokka_marker"), scope)
print(json.dumps({"documents": manifest["documents"], "skipped": manifest["skipped"],
                  "grep_hits": len(grep.evidence), "grep_counters": grep.counters}))
"""


@pytest.mark.slow
def test_unreadable_file_and_folder_are_skipped_and_counted(shared_dir: Path) -> None:
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to run the channel as an unprivileged user")
    ws = tree_workspace(shared_dir)
    root = ws.root / "root"
    (root / "secret.md").write_text(f"{MARK} locked\n")
    (root / "secret.md").chmod(0o000)
    (root / "locked").mkdir()
    (root / "locked" / "inside.md").write_text(f"{MARK} inside\n")
    (root / "locked").chmod(0o000)
    (shared_dir / "idx").mkdir(mode=0o777)
    (shared_dir / "idx").chmod(0o777)
    done = subprocess.run(
        [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            sys.executable,
            "-c",
            UNPRIVILEGED_PROBE,
            str(shared_dir),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
        env={**os.environ, "HOME": str(shared_dir), "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["documents"] == 5  # the readable notes answer
    assert report["skipped"] == {"unreadable": 1, "unreadable_dir": 1}
    assert report["grep_hits"] == 5  # ripgrep's exit 2 is not an invalid pattern
    assert report["grep_counters"].get("skipped_unreadable", 0) >= 1


def test_fifo_and_socket_are_skipped_and_counted(tmp_path: Path) -> None:
    ws = tree_workspace(tmp_path)
    root = ws.root / "root"
    os.mkfifo(root / "pipe.log")  # a FIFO would block a reader forever
    short = Path(tempfile.mkdtemp(prefix="s", dir="/tmp"))  # AF_UNIX paths are short
    try:
        (root / "sock").symlink_to(short)  # links are not followed: counted, not read
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(short / "s.txt"))
        shutil.move(str(short / "s.txt"), str(root / "s.txt"))
        manifest = BM25Tool("bm25", ws).build(SCOPE_A)
        server.close()
    finally:
        shutil.rmtree(short, ignore_errors=True)
    assert manifest["documents"] == 5
    assert manifest["skipped"]["special_file"] == 2


def test_files_vanishing_during_index_and_grep_never_fail(tmp_path: Path) -> None:
    ws = tree_workspace(tmp_path)
    churn = ws.root / "root" / "churn"
    churn.mkdir()
    stop = threading.Event()

    def flap() -> None:
        while not stop.is_set():
            for number in range(40):
                path = churn / f"f{number}.md"
                path.write_text(f"{MARK} churn {number}\n" * 50)
            for number in range(40):
                (churn / f"f{number}.md").unlink(missing_ok=True)

    worker = threading.Thread(target=flap)
    worker.start()
    try:
        bm25, grep = BM25Tool("bm25", ws), GrepTool("grep", ws)
        for _ in range(15):
            manifest = bm25.build(SCOPE_A)
            assert manifest["documents"] >= 5
            from arr.models import ToolCall

            answer = grep.retrieve(ToolCall(tool="grep", query=MARK), SCOPE_A)
            assert len(answer.evidence) >= 5
    finally:
        stop.set()
        worker.join()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    from arr.compose.indexing import index_workspace
    from arr.workspace.file import add_scope, init_workspace

    folder = tmp_path / "project"
    (folder / "notes").mkdir(parents=True)
    (folder / "notes" / "warmup.md").write_text(f"# Warmup\n{MARK} loss spikes and warmup\n")
    init_workspace(folder, {})
    add_scope(folder, "notes", [str(folder / "notes")], {})
    from arr.compose.library import compose
    from arr.compose.runner import build_tools, build_workspace, config_container

    container = config_container(
        compose("index", ["progress=false", "embedder=hashing"], workspace=folder)
    )
    workspace = build_workspace(container)
    _, reports = index_workspace(
        workspace, build_tools(container, workspace), workspace.named_scopes(), progress=False
    )
    assert not any(r.error for r in reports)
    return folder


def _search(folder: Path, query: str = f"{MARK} warmup") -> dict:
    from arr.compose.library import load_router

    router = load_router(["progress=false", "embedder=hashing"], workspace=folder)
    result = router.search(query, "notes")
    router.close()
    return json.loads(result.model_dump_json())


CHROMA_PROBE = """
import json, sys
from arr.compose.library import load_router
router = load_router(["progress=false", "embedder=hashing", "tools.vector.eager_warm_up=true"],
                     workspace=sys.argv[1])
result = router.search("why did the warmup schedule fix the loss spikes", "notes")
print(json.dumps({"warm": {k: v.code for k, v in router.warm_failures.items()},
                  "result": json.loads(result.model_dump_json())}))
"""


def test_damaged_chroma_store_degrades_at_warm_up_and_search(project: Path) -> None:
    store = project / ".arr" / "index" / "chroma" / "chroma.sqlite3"
    data = bytearray(store.read_bytes())
    data[100:4000] = b"x" * 3900
    store.write_bytes(bytes(data))
    # A fresh process, as a user's: chromadb caches open stores per process.
    done = subprocess.run(
        [sys.executable, "-c", CHROMA_PROBE, str(project)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr  # load_router never raised
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["warm"] == {"vector": "vector_store_unavailable"}
    result = report["result"]
    failed = [d for d in result["degradations"] if d["code"] == "vector_store_unavailable"]
    assert failed and "arr index rebuild=true" in failed[0]["detail"]
    assert result["partial"] is True and result["evidence"]  # the other channels answer
    rebuilt = subprocess.run(
        [sys.executable, "-m", "arr.cli", "index", "rebuild=true", "tools=[vector]"]
        + ["embedder=hashing", "progress=false"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=project,
    )
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    again = subprocess.run(
        [sys.executable, "-m", "arr.cli", "search", "query=why did the warmup fix the loss spikes"]
        + ["scope=notes", "--json", "embedder=hashing"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=project,
    )
    assert again.returncode == 0, again.stderr
    assert "vector" in {c for e in json.loads(again.stdout)["evidence"] for c in e["ranks"]}


def test_damaged_bm25_partition_degrades_and_others_answer(project: Path) -> None:
    index = project / ".arr" / "index" / "bm25"
    for path in index.rglob("*"):
        if path.is_file() and path.name not in ("CURRENT", "manifest.json", "build.lock"):
            path.write_bytes(b"\x00garbage")
    result = _search(project)
    assert codes.INDEX_CORRUPT in {d["code"] for d in result["degradations"]}
    assert result["evidence"] and result["partial"] is True


def test_damaged_memory_database_degrades_and_others_answer(project: Path) -> None:
    db = project / ".arr" / "state" / "memory.sqlite3"
    for suffix in ("-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    db.write_bytes(b"garbage" * 1000)
    result = _search(project, "why did the warmup schedule fix the loss spikes")
    assert codes.MEMORY_DB_CORRUPT in {d["code"] for d in result["degradations"]}
    assert result["evidence"]


def test_only_arr_errors_reach_a_library_caller(project: Path) -> None:
    import arr
    from arr.errors import ArrError

    router = arr.load_router(["progress=false", "embedder=hashing"], workspace=project)
    for query, scope in (("", "notes"), ("x", "nope"), ("x" * 5000, "notes"), (3, "notes")):
        with pytest.raises(ArrError):
            router.search(query, scope)  # type: ignore[arg-type]
    router.close()


def test_scope_key_is_unchanged_by_discovery(project: Path) -> None:
    from arr.workspace.file import read_file

    parsed = read_file(project)
    assert isinstance(parsed.scopes["notes"].key, ScopeKey)


def test_damage_while_a_router_is_running(project: Path) -> None:
    """A warm router (as in a server) whose stores are damaged under it keeps answering from
    the channels that still work, each failure a degradation with its code."""
    from arr.compose.library import load_router

    router = load_router(["progress=false", "embedder=hashing"], workspace=project)
    query = "why did the warmup schedule fix the loss spikes"
    assert router.search(query, "notes").degradations == ()
    db = project / ".arr" / "state" / "memory.sqlite3"
    for suffix in ("-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    db.write_bytes(b"garbage" * 1000)
    partition = next((project / ".arr" / "index" / "bm25").iterdir())
    (partition / "CURRENT").write_text("gen-does-not-exist")
    result = router.search(query, "notes")
    found = {d.code for d in result.degradations}
    assert codes.MEMORY_DB_CORRUPT in found and codes.INDEX_MISSING in found
    assert result.evidence and result.partial is True  # the vector channel answers
    router.close()
