"""Binary files, size caps (exactly at the cap vs one byte over) and over-long lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from arr.tools.grep import GrepTool
from tests.grep_fixtures import MARK, grep_workspace, returned_text, run

CAP = 4096


def sized(n: int) -> bytes:
    line = f"{MARK}\n".encode()
    body = line + b"x" * (n - len(line) - 1) + b"\n"
    assert len(body) == n
    return body


@pytest.mark.parametrize(
    "size, found",
    [
        pytest.param(CAP - 1, True, id="under-cap"),
        pytest.param(CAP, True, id="exactly-at-cap"),
        pytest.param(CAP + 1, False, id="one-byte-over"),
    ],
)
def test_size_cap_boundary(tmp_path: Path, size: int, found: bool) -> None:
    ws = grep_workspace(tmp_path)
    (ws.root / "root" / "f.txt").write_bytes(sized(size))
    answer = run(GrepTool("grep", ws, max_file_bytes=CAP))
    assert bool(answer.evidence) is found


def test_binary_files_are_skipped(tmp_path: Path) -> None:
    ws = grep_workspace(tmp_path)
    (ws.root / "root" / "blob.bin").write_bytes(f"{MARK} binary_payload".encode() + b"\x00\x01")
    (ws.root / "root" / "late_nul.txt").write_bytes(
        f"{MARK} late_payload\n".encode() + b"y" * 100_000 + b"\x00"
    )
    (ws.root / "root" / "ok.txt").write_text(f"{MARK}\n")
    answer = run(GrepTool("grep", ws))
    assert [e.location.path for e in answer.evidence] == ["ok.txt"]
    text = returned_text(answer)
    assert "binary_payload" not in text and "late_payload" not in text


def test_long_lines_are_cut_with_a_counter(tmp_path: Path) -> None:
    ws = grep_workspace(tmp_path)
    (ws.root / "root" / "wide.txt").write_text(f"{MARK} " + "z" * 10_000 + "\n")
    answer = run(GrepTool("grep", ws, max_line_chars=100))
    assert len(answer.evidence[0].snippet) <= 101
    assert answer.counters["long_lines_cut"] == 1
