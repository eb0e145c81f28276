"""A user pattern cannot hang the process: linear engine, length cap, deadline, bad patterns."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from arr.tools.base import ChannelError
from arr.tools.grep import GrepTool
from tests.conftest import SCOPE_A, make_router
from tests.grep_fixtures import grep_workspace, run
from tests.machine_speed import grace_s


@pytest.fixture
def tool(tmp_path: Path) -> GrepTool:
    ws = grep_workspace(tmp_path)
    (ws.root / "root" / "a.txt").write_text(("a" * 5000 + "!\n") * 20)
    for i in range(30):
        (ws.root / "root" / f"f{i}.txt").write_text("line\n" * 50)
    return GrepTool("grep", ws, deadline_ms=5000)


@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(a|aa)+$", r"(a*)*b", r"^(a|a?)+$", r"(.*a){20}"])
def test_catastrophic_backtracking_patterns_finish_fast(tool: GrepTool, pattern: str) -> None:
    started = time.monotonic()
    answer = run(tool, query=pattern, regex=True)
    assert answer.cut != "deadline"  # linear: never near its 5 s deadline
    assert time.monotonic() - started < grace_s(3.0, at_most=30)


def test_pattern_length_cap(tool: GrepTool) -> None:
    with pytest.raises(ChannelError) as info:
        run(tool, query="a" * 257)
    assert info.value.code == "pattern_too_long"


@pytest.mark.parametrize("pattern", ["(unclosed", "[z-a]", "a{99999999}"])
def test_invalid_regex_has_a_reason_code(tool: GrepTool, pattern: str) -> None:
    with pytest.raises(ChannelError) as info:
        run(tool, query=pattern, regex=True)
    assert info.value.code == "invalid_pattern"


def test_invalid_pattern_through_router_is_a_degradation(tool: GrepTool) -> None:
    from arr.models import QueryPlan

    plan = QueryPlan.model_validate(
        {"tool_rounds": [{"calls": [{"tool": "grep", "query": "(unclosed", "regex": True}]}]}
    )
    result = make_router(tool).search("(unclosed", SCOPE_A, plan=plan)
    assert [d.code for d in result.degradations] == ["invalid_pattern"]


@pytest.mark.parametrize("pattern", [".", "^", "", ".*"])
def test_match_everything_patterns_are_capped(tool: GrepTool, pattern: str) -> None:
    if pattern == "":
        return  # an empty query never reaches a tool: ToolCall refuses it
    answer = run(tool, query=pattern, regex=True, top_k=10)
    assert len(answer.evidence) == 10 and answer.cut == "cap"
    assert (
        max(
            sum(e.location.path == p for e in answer.evidence)
            for p in {e.location.path for e in answer.evidence}
        )
        <= 5
    )


def test_deadline_cuts_the_scan(tmp_path: Path) -> None:
    ws = grep_workspace(tmp_path)
    for i in range(400):
        (ws.root / "root" / f"big{i}.txt").write_text(("abc def ghi\n") * 5000)
    tool = GrepTool("grep", ws, deadline_ms=1, threads=1)
    started = time.monotonic()
    answer = run(tool, query="def", regex=True)
    assert time.monotonic() - started < grace_s(2.0, at_most=15)
    assert answer.cut == "deadline"
    result = make_router(tool).search("def", SCOPE_A, plan=None)
    assert result.partial or any(t.code == "cut_deadline" for t in result.traces)
