"""No file stalls the index or a search: every reader parses in linear time, runs under one
guard (a time and memory budget per file, in the worker), and a search's deadline holds over
any reading it triggers (issue 41: a 3 KB notebook took 43 s, a 200 KB ``.tex`` 73 s, a grep
with a 5 s deadline 39 s, a search with a 3 s deadline 71 s).

Slow files are made two ways: real pathological inputs for each parser, and a real worker
process speaking the worker protocol that hangs on files holding ``HANG`` (a decompression
bomb's stand-in: native code nothing inside a process can stop).
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from arr.models import ToolCall
from arr.readers import guard as guard_module
from arr.readers.bibtex import BibtexReader
from arr.readers.guard import Guard
from arr.readers.latex import LatexReader
from arr.readers.notebook import NotebookReader
from arr.readers.view import EXTRACT_MEMORY, EXTRACT_TIMEOUT, UNREADABLE, Unreadable
from arr.tools.bm25 import BM25Tool
from arr.tools.grep import GrepTool
from arr.workspace.workspace import Workspace
from tests.conftest import SCOPE_A, file_workspace, lexical_router
from tests.machine_speed import grace_s, slowness
from tests.readers_fixtures import pdf_bytes, write

KB = 1024


def _notebook(markdown: list[str], code: list[str] = ()) -> bytes:  # type: ignore[assignment]
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    cells = [new_markdown_cell(m) for m in markdown] + [new_code_cell(c) for c in code]
    return nbformat.writes(new_notebook(cells=cells)).encode()


PATHOLOGICAL: list[tuple[str, Callable[[bytes], object], bytes]] = [
    ("heading spaces", NotebookReader().read, _notebook(["# x" + " " * 200 * KB + "y"])),
    ("heading tabs", NotebookReader().read, _notebook(["#" + "\t" * 200 * KB + "#x"])),
    ("heading hashes", NotebookReader().read, _notebook(["# " + "# " * 100 * KB + "y"])),
    ("many cells", NotebookReader().read, _notebook(["# h\ntext"] * 20_000)),
    ("section spaces", LatexReader().read, b"\\section" + b" " * 600 * KB + b"x\n"),
    ("section tabs", LatexReader().read, b"\\subsection*" + b"\t" * 600 * KB + b"[x\n"),
    ("section brackets", LatexReader().read, b"\\section[" * 60_000 + b"\n"),
    ("unclosed cites", LatexReader().read, b"\\cite{" * 20_000 + b"\n"),
    ("cites", LatexReader().read, b"\\cite{a2017}" * 60_000 + b"\n"),
    ("cite letters", LatexReader().read, b"\\" + b"c" * 600 * KB + b"\n"),
    ("backslashes", LatexReader().read, b"\\" * 600 * KB + b"\n"),
    ("braces", LatexReader().read, b"\\section{" + b"{" * 600 * KB + b"\n"),
    ("title braces", LatexReader().read, (b"\\title{" + b"{" * 2000 + b"\n") * 300),
    ("comments", LatexReader().read, b"%" * 600 * KB + b"\n"),
    ("entry ats", BibtexReader().read, b"@" * 600 * KB),
    ("entry opens", BibtexReader().read, b"@a{" * 200_000),
    ("entry keys", BibtexReader().read, b"@article{" + b"k" * 600 * KB),
    ("entry braces", BibtexReader().read, b"@article{k,\n title={" + b"{" * 600 * KB),
    ("entry spaces", BibtexReader().read, b"@article" + b" " * 600 * KB + b"{k,}"),
]


@pytest.mark.parametrize(("case", "read", "raw"), PATHOLOGICAL, ids=[c[0] for c in PATHOLOGICAL])
def test_every_reader_parses_hostile_text_in_linear_time(
    case: str, read: Callable[[bytes], object], raw: bytes
) -> None:
    """Each input is 200-600 KB; a backtracking parse took minutes (a quadratic one on
    600 KB: ~10^11 steps). A linear one takes well under a second; 3 s, scaled by the
    machine's slowness (at most 30 s, still far below minutes), leaves room for a loaded one."""
    budget = grace_s(3.0, at_most=30.0)
    started = time.monotonic()
    with contextlib.suppress(Unreadable):  # refused with a reason is fine; hanging is not
        read(raw)
    assert time.monotonic() - started < budget, case


HANGING_WORKER = """
import sys, time
from arr.readers.worker import answer, read_message, write_message
import json
while True:
    header = read_message(sys.stdin.buffer)
    raw = read_message(sys.stdin.buffer) if header is not None else None
    if raw is None:
        break
    if b"HANG" in raw:
        time.sleep(60)
    write_message(sys.stdout.buffer, json.dumps(answer(json.loads(header), raw)).encode())
"""


@pytest.fixture
def hanging_worker(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The real worker, except that it hangs on a file holding ``HANG``."""
    script = tmp_path / "hanging_worker.py"
    script.write_text(HANGING_WORKER)

    def start(self: guard_module._Worker, memory_mb: int) -> None:
        self.memory_mb, self.peak_kb = memory_mb, 0
        self.process = subprocess.Popen(
            [sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    monkeypatch.setattr(guard_module._Worker, "__init__", start)


def workspace(tmp_path: Path, timeout_s: float = 20.0) -> Workspace:
    ws = file_workspace(tmp_path, {"a": SCOPE_A}, {"notes.md": "gradient noise notes\n"})
    return Workspace.model_validate({**ws.model_dump(), "extract_timeout_s": timeout_s})


def hostile(name: str) -> bytes:
    if name.endswith(".pdf"):  # the marker in the metadata: page text is compressed
        return pdf_bytes([["gradient noise"]], title="HANG")
    return b"\\section{HANG}\ngradient noise\n"


@pytest.mark.usefixtures("hanging_worker")
def test_a_hostile_file_costs_its_own_budget_and_never_its_neighbours(tmp_path: Path) -> None:
    ws = workspace(tmp_path, timeout_s=1.0)
    write(ws.root / "a" / "bomb.pdf", hostile("bomb.pdf"))
    write(ws.root / "a" / "bomb.tex", hostile("bomb.tex"))
    write(ws.root / "a" / "good.pdf", pdf_bytes([["Gradient noise scale and batch size"]]))
    started = time.monotonic()
    manifest = BM25Tool("bm25", ws).build(SCOPE_A)
    # two files at their budget (1 s + the worker's start grace each), the rest at once
    assert time.monotonic() - started < 2 * (1.0 + guard_module.GRACE_S) + grace_s(5, at_most=40)
    skipped = {tuple(r) for r in manifest["skipped_files"]}
    assert ("bomb.pdf", EXTRACT_TIMEOUT, "over 1 s") in skipped
    assert ("bomb.tex", EXTRACT_TIMEOUT, "over 1 s") in skipped
    found = BM25Tool("bm25", ws).retrieve(ToolCall(tool="bm25", query="batch size"), SCOPE_A)
    assert found[0].location.path == "good.pdf"


@pytest.mark.usefixtures("hanging_worker")
def test_a_search_deadline_holds_over_the_reading_it_triggers(tmp_path: Path) -> None:
    """A file added after the index, whose reading hangs: grep with a 1 s deadline and a
    Router search with a 1.5 s deadline end on time, say what they could not read, and
    still answer from the rest."""
    ws = workspace(tmp_path, timeout_s=30.0)
    write(ws.root / "a" / "good.pdf", pdf_bytes([["Gradient noise scale and batch size"]]))
    bm25 = BM25Tool("bm25", ws)
    bm25.build(SCOPE_A)
    write(ws.root / "a" / "new.pdf", hostile("new.pdf"))
    grep = GrepTool("grep", ws, deadline_ms=1000)
    started = time.monotonic()
    answer = grep.retrieve(ToolCall(tool="grep", query="batch size"), SCOPE_A)
    assert time.monotonic() - started < 1.0 + grace_s(0.1 + 0.3, at_most=10.0)  # hang: 30 s
    assert answer.counters.get("views_not_ready") == 1
    assert [e.location.path for e in answer.evidence] == ["good.pdf"]

    write(ws.root / "a" / "other.tex", b"\\section{HANG again}\nbatch\n")
    # 1.5 s on an idle machine, scaled by its slowness now (at load 15 grep read nothing of
    # good.pdf within 1.5 s: no answer to assert on), and below the hanging read's 30 s
    deadline_s = 1.5 * min(slowness(), 8.0)
    router = lexical_router(ws, bm25, deadline_ms=int(deadline_s * 1000))
    started = time.perf_counter()
    result = router.search("gradient noise batch size", SCOPE_A)
    elapsed = time.perf_counter() - started
    assert elapsed < deadline_s + grace_s(0.15 + 0.3, at_most=10.0), elapsed
    assert result.partial
    assert "good.pdf" in {e.location.path for e in result.evidence}
    assert "views_not_ready" in {d.code for d in result.degradations}
    said = " ".join(r.detail for r in result.rejections) + " ".join(
        d.detail for d in result.degradations
    )
    assert "deadline" in said


def _dying_worker(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, how: str) -> None:
    script = tmp_path / "dying_worker.py"
    script.write_text(f"import os, signal, sys\nsys.stdin.buffer.read(8)\n{how}\n")

    def start(self: guard_module._Worker, memory_mb: int) -> None:
        self.memory_mb, self.peak_kb = memory_mb, 0
        self.process = subprocess.Popen(
            [sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    monkeypatch.setattr(guard_module._Worker, "__init__", start)


@pytest.mark.parametrize(
    ("how", "reason"),
    [
        ("os.abort()", EXTRACT_MEMORY),  # native code's answer to a failed allocation
        ("os.kill(os.getpid(), signal.SIGSEGV)", UNREADABLE),  # a crash: the file's fault
        ("sys.exit(3)", UNREADABLE),
    ],
)
def test_a_worker_death_is_named_for_what_ended_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, how: str, reason: str
) -> None:
    _dying_worker(monkeypatch, tmp_path, how)
    with pytest.raises(Unreadable) as caught:
        Guard(timeout_s=10.0, memory_mb=512).read(".pdf", b"%PDF-1.4 x")
    assert caught.value.reason == reason


def test_a_file_over_the_memory_limit_is_extract_memory_and_the_next_file_reads() -> None:
    """A 60 MB notebook in a worker limited to 200 MB: Python's MemoryError inside nbformat
    was reported ``unreadable: not a notebook``."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook, new_output

    text = ("word " * 1000 + "\n") * (60 * 1024 * 1024 // 5000)
    cell = new_code_cell("print(1)", outputs=[new_output("stream", name="stdout", text=text)])
    raw = nbformat.writes(new_notebook(cells=[cell])).encode()
    guard = Guard(timeout_s=20.0, memory_mb=200)
    with pytest.raises(Unreadable) as caught:
        guard.read(".ipynb", raw)
    assert caught.value.reason == EXTRACT_MEMORY
    assert guard.read(".tex", b"\\section{A}\ntext\n").units
    guard.close()
