"""A full disk is named as a full disk, and nothing already stored changes.

Runs on a small tmpfs mounted for the test (CI runs as root); skipped where mounting is not
permitted."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from arr import codes
from arr.errors import MemoryStoreError
from arr.memory.store import ResearchMemoryStore
from tests.conftest import SCOPE_A

pytestmark = pytest.mark.slow


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode()[:200]}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def indexed_on(disk: Path, tmp_path: Path):
    """A one-scope workspace (root tmp_path/ws/a) whose indexes live on ``disk``."""
    from arr.workspace.workspace import Workspace

    return Workspace(
        name="t",
        root=tmp_path / "ws",
        index_dir=disk / "idx",
        memory_db=tmp_path / "m.sqlite3",
        scopes={"a": {"key": SCOPE_A, "roots": ["a"]}},
    )


def fill(disk: Path) -> Path:
    filler = disk / "filler"
    # unbuffered: a buffered writer keeps a partly written block and raises ENOSPC again when
    # it is closed (whenever the space left is not a multiple of the write)
    with filler.open("wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"x" * 65536)
        except OSError:
            pass
    return filler


def test_memory_writes_on_a_full_disk_say_so_and_lose_nothing(small_disk: Path) -> None:
    store = ResearchMemoryStore(small_disk / "memory.sqlite3")
    store.add_draft("kept", SCOPE_A, "Warmup", "linear warmup removes loss spikes")
    store.transition("kept", "publish")
    filler = fill(small_disk)
    for attempt in range(3):
        with pytest.raises(MemoryStoreError) as caught:
            store.add_draft(f"new-{attempt}", SCOPE_A, "Big", "body " * 5000)
        assert caught.value.code == codes.DISK_FULL
        assert "no space left" in str(caught.value) and "cannot rollback" not in str(caught.value)
    filler.unlink()
    # the disk has room again: what was stored is intact and writes work again
    assert [m.id for m in store.list(SCOPE_A, None)] == ["kept"]
    store.add_draft("after", SCOPE_A, "After", "space freed")
    assert sorted(m.id for m in store.list(SCOPE_A, None)) == ["after", "kept"]
    assert [m.id for m, _ in store.search("warmup", SCOPE_A, 5)] == ["kept"]


@pytest.mark.parametrize(
    "args",
    [
        ["search", "query=warmup", "scope=vision-main", "tools=[bm25]"],
        ["index", "tools=[bm25]"],
        ["eval", "tools=[bm25,memory]"],
        ["eval", "-m", "tools=[bm25],[bm25,memory]"],
    ],
    ids=["search", "index", "eval", "sweep"],
)
def test_cli_with_its_output_folder_on_a_full_disk_says_so_in_one_line(
    small_disk: Path, demo_overrides: list[str], args: list[str]
) -> None:
    import os
    import shutil
    import sys

    arr = shutil.which("arr", path=str(Path(sys.executable).parent)) or "arr"
    fill(small_disk)
    overrides = [o for o in demo_overrides if not o.startswith("paths.output_dir=")]
    done = subprocess.run(
        [arr, *args, *overrides, f"paths.output_dir={small_disk / 'out'}"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "Logging error" not in done.stderr
    assert "No space left on device" in done.stderr
    assert len([line for line in done.stderr.splitlines() if line.startswith("arr: error")]) >= 1
    # nothing half-written is left: no temporary file, no empty result or status file
    left = [
        p.name
        for p in small_disk.rglob("*")
        if p.is_file() and (".tmp" in p.name or (p.suffix == ".json" and p.stat().st_size == 0))
    ]
    assert left == []


def test_index_builds_on_a_full_disk_say_so_and_keep_the_previous_index(
    small_disk: Path, tmp_path: Path
) -> None:
    """An index folder on a full disk: the build fails naming the cause (ENOSPC), the previous
    generation keeps answering, and after space is freed the next build succeeds."""
    import errno

    from arr.models import ToolCall
    from arr.tools.bm25 import BM25Tool

    root = tmp_path / "ws" / "a"
    root.mkdir(parents=True)
    (root / "anchor.md").write_text("warmup anchor document\n")
    workspace = indexed_on(small_disk, tmp_path)
    BM25Tool("bm25", workspace).build(SCOPE_A)
    for i in range(100):  # more than a full disk holds, well under what a free one does
        (root / f"big{i}.md").write_text(f"document {i} topic{i % 17} " * 40 + "\n")
    filler = fill(small_disk)
    with pytest.raises(OSError) as caught:
        BM25Tool("bm25", workspace).build(SCOPE_A)
    assert caught.value.errno == errno.ENOSPC
    reader = BM25Tool("bm25", workspace)
    hits = reader.retrieve(ToolCall(tool="bm25", query="warmup anchor"), SCOPE_A)
    assert hits[0].id == "doc:anchor.md#L1"  # the previous generation still answers
    filler.unlink()
    BM25Tool("bm25", workspace).build(SCOPE_A)
    assert BM25Tool("bm25", workspace).freshness(SCOPE_A).fresh


def test_a_rebuild_on_a_full_index_folder_destroys_no_index(
    small_disk: Path, tmp_path: Path
) -> None:
    """``arr index rebuild=true`` (the advised repair) with the index folder full: every
    channel fails naming the disk, and every index that was there still answers."""
    from arr.compose.indexing import index_workspace
    from arr.embedder.hashing import HashingEmbedder
    from arr.models import ToolCall
    from arr.tools.bm25 import BM25Tool
    from arr.tools.grep import GrepTool
    from arr.tools.vector import VectorTool
    from arr.vector_store.chroma import ChromaStore

    root = tmp_path / "ws" / "a"
    root.mkdir(parents=True)
    for i in range(40):
        (root / f"note{i}.md").write_text(f"warmup note {i} topic{i % 7} " * 30 + "\n")
    workspace = indexed_on(small_disk, tmp_path)

    def tools() -> dict[str, object]:
        return {
            "bm25": BM25Tool("bm25", workspace),
            "grep": GrepTool("grep", workspace),
            "vector": VectorTool(
                "vector", workspace, HashingEmbedder(), ChromaStore(workspace.index_dir / "c")
            ),
        }

    built = tools()
    _, reports = index_workspace(workspace, built, {"a": SCOPE_A}, progress=False)
    assert [r.error for r in reports if r.error] == []
    call = ToolCall(tool="bm25", query="warmup topic3")
    before = {name: [e.id for e in built[name].retrieve(call, SCOPE_A)] for name in ("bm25",)}
    built["vector"].close()
    filler = fill(small_disk)
    again = tools()
    _, reports = index_workspace(workspace, again, {"a": SCOPE_A}, progress=False, rebuild=True)
    failed = {r.tool: r.error for r in reports if r.error}
    assert failed, "a rebuild on a full disk cannot have succeeded"
    for error in failed.values():
        assert "space" in error.lower() or "full" in error.lower(), error
    again["vector"].close()
    # every index is still there: bm25 answers on the full disk; Chroma writes when it opens
    # a store, so the vectors answer once space is freed (nothing was rebuilt meanwhile)
    reader = tools()
    assert [e.id for e in reader["bm25"].retrieve(call, SCOPE_A)] == before["bm25"]
    assert [p.name for p in small_disk.rglob("*") if ".tmp" in p.name] == []
    filler.unlink()
    assert reader["vector"].freshness(SCOPE_A).fresh
    assert reader["vector"].retrieve(ToolCall(tool="vector", query="warmup topic3"), SCOPE_A)
    reader["vector"].close()


@pytest.mark.model
def test_an_onnx_export_onto_a_full_disk_leaves_no_partial_model(small_disk: Path) -> None:
    """The first vector search exports the model; on a full disk it fails naming the cause and
    leaves no partial file keeping the disk full (the next try starts clean)."""
    import errno

    from arr.embedder.onnx import OnnxEmbedder
    from arr.errors import is_disk_full

    (small_disk / "taken").write_bytes(b"x" * 3 * 1024 * 1024)  # 1 MB left of 4: not the model
    embedder = OnnxEmbedder(cache_dir=small_disk / "onnx", quantize=False)
    with pytest.raises(Exception) as caught:
        embedder.warm_up()
    assert is_disk_full(caught.value) or getattr(caught.value, "errno", None) == errno.ENOSPC
    left = [p.name for p in (small_disk / "onnx").rglob("*") if p.suffix != ".lock"]
    assert left == [], left


@pytest.mark.parametrize(
    "args",
    [
        ["scope", "add", "more", "more"],
        ["index"],
        ["index", "--json"],
        ["index", "rebuild=true"],
        ["index", "--lexical"],
        ["memory", "list"],
        ["search", "warmup", "scope=notes"],
    ],
    ids=["scope-add", "index", "index-json", "rebuild", "lexical", "memory-list", "search"],
)
def test_a_workspace_on_a_full_disk_gets_one_disk_full_line_and_no_temp_file(
    small_disk: Path, args: list[str]
) -> None:
    """The workspace's own ``.arr`` on the full disk: a command that cannot write fails with
    one ``disk_full`` line (exit 2, text and JSON) and leaves no temporary file; one that only
    reads still answers."""
    import json
    import os
    import shutil
    import sys

    arr = shutil.which("arr", path=str(Path(sys.executable).parent)) or "arr"
    folder = small_disk / "ws"
    (folder / "notes").mkdir(parents=True)
    (folder / "more").mkdir()
    (folder / "notes" / "a.md").write_text("warmup removes loss spikes\n" * 20)
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}

    def run(*command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [arr, *command], cwd=folder, capture_output=True, text=True, timeout=300, env=env
        )

    for setup in (["init"], ["scope", "add", "notes", "notes"], ["index", "--lexical"]):
        assert run(*setup).returncode == 0
    (folder / "notes" / "b.md").write_text("a new note to index " * 200)
    fill(small_disk)
    done = run(*args)
    errors = [line for line in done.stderr.splitlines() if line.startswith("arr: error")]
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    if done.returncode != 0:
        assert done.returncode == 2, done.stderr + done.stdout
        if "--json" in args:
            assert json.loads(done.stdout)["error"]["code"] == "disk_full", done.stdout
        else:
            assert len(errors) == 1 and (
                "disk full" in errors[0].lower() or "No space" in errors[0]
            )
        assert "FAILED" not in done.stdout
    else:
        assert args[0] in ("memory", "search"), done.stdout  # reading commands may answer
    left = [p.name for p in small_disk.rglob("*") if p.is_file() and ".tmp" in p.name]
    assert left == []
