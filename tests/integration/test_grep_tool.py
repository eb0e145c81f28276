"""The grep channel on real files with the real ripgrep binary."""

from __future__ import annotations

import os
import re
import resource
from pathlib import Path

import pytest

from arr.tools.grep import GrepTool, check_sub_path, co_occurrence_pattern, literal_terms
from tests.conftest import SCOPE_A, make_router
from tests.grep_fixtures import MARK, grep_workspace, run


@pytest.fixture
def tool(tmp_path: Path) -> GrepTool:
    ws = grep_workspace(tmp_path)
    root = ws.root / "root"
    (root / "src").mkdir()
    (root / "src" / "train.py").write_text(f"import math\n\ndef f():\n    return '{MARK}'\n")
    (root / "notes.md").write_text(f"first {MARK}\nsecond line\n{MARK} and {MARK}\n")
    (root / "other.md").write_text("nothing here\n")
    return GrepTool("grep", ws)


def test_line_evidence_with_location_and_context(tool: GrepTool) -> None:
    answer = run(tool)
    ids = [e.id for e in answer.evidence]
    assert ids == ["grep:notes.md#L1", "grep:notes.md#L3", "grep:src/train.py#L4"]
    first = answer.evidence[0]
    assert first.location.path == "notes.md" and first.location.start_line == 1
    assert first.snippet == f"first {MARK}\nsecond line" and first.scope == SCOPE_A
    assert answer.counters["files_scanned"] == 3 and answer.counters["matches"] == 3
    assert answer.cut == ""


def test_deterministic_ranking_by_terms_then_density(tool: GrepTool) -> None:
    answer = run(tool, query=f"return {MARK}")
    # The line holding both terms (and the whole query) ranks first.
    assert answer.evidence[0].id == "grep:src/train.py#L4"
    assert [e.id for e in run(tool, query=f"return {MARK}").evidence] == [
        e.id for e in answer.evidence
    ]


def test_sub_path_and_regex(tool: GrepTool) -> None:
    assert [e.id for e in run(tool, path="src").evidence] == ["grep:src/train.py#L4"]
    assert [e.id for e in run(tool, path="src/train.py").evidence] == ["grep:src/train.py#L4"]
    regex = run(tool, query=r"^def \w+\(\):$", regex=True)
    assert [e.id for e in regex.evidence] == ["grep:src/train.py#L3"]
    assert run(tool, path="missing").evidence == []


def test_answers_in_a_process_holding_over_1024_descriptors(tool: GrepTool) -> None:
    """A long-lived server or test session may hold more than FD_SETSIZE descriptors; the
    engine's pipes then get numbers select() refuses ('filedescriptor out of range')."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 1200
    if hard != resource.RLIM_INFINITY and hard < wanted:
        pytest.skip(f"descriptor limit {hard} < {wanted}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    held: list[int] = []
    try:
        while not held or held[-1] < 1100:
            held.append(os.open(os.devnull, os.O_RDONLY))
        answer = run(tool)
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert [e.id for e in answer.evidence][:1] == ["grep:notes.md#L1"]


def test_caps_are_reported(tool: GrepTool) -> None:
    capped = run(tool, top_k=1)
    assert len(capped.evidence) == 1 and capped.cut == "cap"


def test_per_file_caps_alone_are_reported(tmp_path: Path) -> None:
    """Fewer lines than top_k come back because a per-file cap withheld some: still cut_cap,
    with the count; no cap reached: no cut."""
    ws = grep_workspace(tmp_path)
    (ws.root / "root" / "many.md").write_text("".join(f"{MARK} {n}\n" for n in range(9)))
    per_file = run(GrepTool("grep", ws, max_matches_per_file=5), top_k=20)
    assert len(per_file.evidence) == 5 and per_file.cut == "cap"
    assert per_file.counters["lines_over_file_cap"] == 4
    engine = run(GrepTool("grep", ws, max_engine_matches_per_file=3), top_k=20)
    assert len(engine.evidence) == 3 and engine.cut == "cap"
    assert engine.counters["files_at_engine_cap"] == 1
    roomy = run(GrepTool("grep", ws, max_matches_per_file=20), top_k=20)
    assert len(roomy.evidence) == 9 and roomy.cut == ""
    assert "lines_over_file_cap" not in roomy.counters


def test_literal_terms() -> None:
    assert literal_terms("CUDA out of memory at batch_size 256") == [
        "CUDA out of memory at batch_size 256",
        "CUDA",
        "out",
        "memory",
        "batch_size",
        "256",
    ]


@pytest.mark.parametrize(
    "path, code",
    [
        pytest.param("../x", "path_escape", id="dotdot"),
        pytest.param("docs/../../x", "path_escape", id="inner-dotdot"),
        pytest.param("/etc/passwd", "path_absolute", id="absolute"),
        pytest.param("a\\..\\b", "path_invalid_characters", id="backslash"),
        pytest.param("C:/x", "path_invalid_characters", id="drive"),
        pytest.param("file.txt:stream", "path_invalid_characters", id="stream"),
        pytest.param("a\x00b", "path_invalid_characters", id="nul"),
        pytest.param("a\nb", "path_invalid_characters", id="newline"),
        pytest.param(" src", "path_invalid", id="leading-space"),
        pytest.param("src/ok.py", None, id="fine"),
        pytest.param("./src/ok.py", None, id="dot-prefix"),
        pytest.param("src./ok.py", "path_invalid", id="component-dot"),
        pytest.param("src /ok.py", "path_invalid", id="component-space"),
        pytest.param("src/ok.py.", "path_invalid", id="trailing-dot"),
        pytest.param("src/...", "path_invalid", id="dots"),
    ],
)
def test_check_sub_path(path: str, code: str | None) -> None:
    assert check_sub_path(path) == code


@pytest.mark.parametrize("code_point", [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)])
def test_every_control_character_is_refused_in_a_sub_path(code_point: int) -> None:
    """C0, DEL and C1 (U+0080-U+009F) alike, at any position."""
    for path in (f"{chr(code_point)}src", f"src/a{chr(code_point)}b.py", f"src{chr(code_point)}"):
        assert check_sub_path(path) == "path_invalid_characters", repr(path)


def test_grep_through_the_router(tool: GrepTool) -> None:
    result = make_router(tool).search(f"{MARK}_value error", SCOPE_A)
    trace = next(t for t in result.traces if t.tool == "grep")
    assert trace.counters["files_scanned"] == 3 and trace.status in ("ok", "empty")


def test_line_reader_is_linear_in_the_bytes() -> None:
    """A 32 MB line arriving in 512 pieces is copied once when it ends, never per piece."""
    from arr.tools.grep.engine import LineBuffer as _LineBuffer

    buffer = _LineBuffer()
    piece = b"x" * (1 << 16)
    assert all(buffer.feed(piece) == b"" for _ in range(512))
    rows = buffer.feed(b"end\nnext")
    assert rows == piece * 512 + b"end\n"
    assert buffer.copied == len(rows)  # one join, not 512 growing copies
    assert buffer.feed(b" row\n") == b"next row\n" and buffer.rest() == b""


def test_a_huge_line_does_not_starve_the_other_files(tmp_path: Path) -> None:
    ws = grep_workspace(tmp_path)
    root = ws.root / "root"
    (root / "minified.js").write_bytes(b"var a=1;" * (3 << 20) + MARK.encode() + b"\n")  # 24 MB
    (root / "notes.md").write_text(f"{MARK} in a short line\n")
    answer = run(GrepTool("grep", ws, max_file_bytes=64 << 20, deadline_ms=30_000))
    assert answer.cut == ""
    assert {e.location.path for e in answer.evidence} == {"minified.js", "notes.md"}


def test_lines_holding_two_words_are_found_by_the_engine_before_any_word(
    tmp_path: Path,
) -> None:
    """A phrase that does not occur: lines holding two or more of its words come from the
    engine's co-occurrence stage; a common word alone is read only up to the bound."""
    ws = grep_workspace(tmp_path)
    root = ws.root / "root"
    for i in range(40):
        (root / f"common{i:02d}.py").write_text("value = 1\n" * 30)  # 1,200 one-word lines
    (root / "pair.py").write_text("x = 0\n# the gradient of the loss value\n")
    (root / "dotted.py").write_text("see torch.nn and adam-w together\nsee torchXnn, adam-w\n")
    tool = GrepTool("grep", ws, max_any_word_rows=100, max_matches_per_file=1)
    answer = run(tool, query="value of gradient descent", top_k=5)
    assert answer.evidence[0].id == "grep:pair.py#L2"
    assert answer.cut == "cap" and answer.counters["engine_rows_cut"] == 1
    assert answer.counters["matches"] < 1 + 200 + 100  # never every one-word line
    dotted = run(tool, query="torch.nn with adam-w", top_k=1)
    assert [e.id for e in dotted.evidence] == ["grep:dotted.py#L1"]


def test_co_occurrence_pattern_escapes_the_words() -> None:
    pattern = re.compile(co_occurrence_pattern(["a.b", "c-d", "zzz"]))
    assert pattern.search("x A.B then c-d")
    assert pattern.search("c-d before a.b")
    assert not pattern.search("aXb then c-d")
    assert not pattern.search("only a.b here")


@pytest.mark.parametrize(
    "option",
    [
        {"max_file_bytes": 0},
        {"max_any_word_rows": 0},
        {"top_k": 0},
        {"max_narrowed_share": 1.5},
        {"max_narrowed_share": -0.1},
    ],
)
def test_bad_limits_are_refused(tmp_path: Path, option: dict[str, float]) -> None:
    with pytest.raises(ValueError, match=next(iter(option))):
        GrepTool("grep", grep_workspace(tmp_path), **option)  # type: ignore[arg-type]


def test_the_file_size_cap_is_the_workspaces_unless_named(tmp_path: Path) -> None:
    ws = grep_workspace(tmp_path).model_copy(update={"max_file_bytes": 1234})
    assert GrepTool("grep", ws).max_file_bytes == 1234
    assert GrepTool("grep", ws, max_file_bytes=99).max_file_bytes == 99
