"""The text a person scans: openable locations, '+N more', withheld counters, elided queries."""

from __future__ import annotations

from pathlib import Path

import pytest

from arr.cli.render import file_locator, render_result
from arr.models import EvidenceChunk, Location, RouterResult, ToolTrace
from tests.conftest import SCOPE_A


def chunk(rank: int, path: str | None = None, memory: str | None = None) -> EvidenceChunk:
    return EvidenceChunk(
        id=f"c{rank}",
        scope=SCOPE_A,
        channel="memory" if memory else "bm25",
        location=Location(
            path=path,
            start_line=3 if path else None,
            end_line=9 if path else None,
            memory_id=memory,
        ),
        snippet=f"text {rank}",
        score=1.0 / rank,
        ranks={"bm25": rank},
    )


def result(evidence: list[EvidenceChunk], query: str = "warmup", counters=None) -> RouterResult:
    trace = ToolTrace(round=1, tool="grep", status="ok", code="ok", counters=counters or {})
    return RouterResult(
        query=query, scope=SCOPE_A, planner="rule", plan=None, evidence=tuple(evidence),
        traces=(trace,), rejections=(), degradations=(), partial=False,
    )  # fmt: skip


def test_locations_open_from_the_current_folder_or_absolute(tmp_path: Path) -> None:
    root = tmp_path / "project"
    locate = file_locator([root], cwd=tmp_path)
    assert locate(chunk(1, "notes/a.md")) == "project/notes/a.md:3 (lines 3-9)"
    elsewhere = file_locator([root], cwd=tmp_path / "other")
    assert elsewhere(chunk(1, "notes/a.md")) == f"{root}/notes/a.md:3 (lines 3-9)"
    two = file_locator([tmp_path / "a", tmp_path / "b"], cwd=tmp_path)
    assert two(chunk(1, "b/x.py")) == "b/x.py:3 (lines 3-9)"
    assert locate(chunk(2, memory="m1")) == "memory:m1"


def test_more_withheld_and_long_queries_are_said(tmp_path: Path) -> None:
    text = render_result(
        result(
            [chunk(r, "n.md") for r in range(1, 14)],
            query="why " * 100,
            counters={"skipped_credential": 2, "files_scanned": 9, "redacted_secrets": 0},
        ),
        max_evidence=10,
    )
    assert "+3 more (--json shows all)" in text
    assert "withheld: skipped_credential 2" in text and "files_scanned" not in text
    assert "(400 characters)" in text and len(text.splitlines()[0]) < 260


def test_a_plain_search_shows_places_and_says_what_no_result_holds() -> None:
    items = [c.model_copy(update={"snippet": "warmup text"}) for c in (chunk(1, "a.md"),)]
    plain = render_result(result(items, query="warmup zanzibar"), verbose=False)
    assert "score" not in plain and "trace:" not in plain and "degradations:" in plain
    assert "no result holds 'zanzibar'" in plain
    assert "trace:" in render_result(result(items, query="warmup zanzibar"))
    both = [c.model_copy(update={"snippet": "warmup zanzibar"}) for c in (chunk(1, "a.md"),)]
    assert "no result holds" not in render_result(result(both, query="warmup zanzibar"))


class _Screen:
    def __init__(self, tty: bool) -> None:
        self.tty, self.text = tty, ""

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> int:
        self.text += text
        return len(text)


@pytest.mark.parametrize(
    ("tty", "no_color", "shown"),
    [
        (True, None, "a \x1b[1;31mmatch\x1b[0m here"),
        (True, "1", "a match here"),
        (False, None, "a match here"),
    ],
)
def test_matches_are_coloured_on_a_terminal_only(tty, no_color, shown, monkeypatch) -> None:
    from arr.cli.terminal import TerminalSafeStream, emphasised

    if no_color is None:
        monkeypatch.delenv("NO_COLOR", raising=False)
    else:
        monkeypatch.setenv("NO_COLOR", no_color)
    screen = _Screen(tty)
    TerminalSafeStream(screen).write(emphasised("a match here", [(2, 7)]))  # type: ignore[arg-type]
    assert screen.text == shown
