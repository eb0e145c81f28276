"""Helpers for grep tests: a one-scope workspace in a temp dir and a call shortcut."""

from __future__ import annotations

from pathlib import Path

from arr.models import ScopeKey, ToolCall
from arr.tools.base import ChannelAnswer
from arr.tools.grep import GrepTool
from arr.workspace.workspace import Workspace
from tests.conftest import SCOPE_A

MARK = "needle_marker"


def grep_workspace(tmp_path: Path, scope: ScopeKey = SCOPE_A, name: str = "root") -> Workspace:
    root = tmp_path / "ws" / name
    root.mkdir(parents=True, exist_ok=True)
    return Workspace(
        name="t",
        root=tmp_path / "ws",
        index_dir=tmp_path / "idx",
        memory_db=tmp_path / "m.sqlite3",
        scopes={"a": {"key": scope, "roots": [name]}},
    )


def run(
    tool: GrepTool, query: str = MARK, scope: ScopeKey = SCOPE_A, **call: object
) -> ChannelAnswer:
    answer = tool.retrieve(ToolCall(tool="grep", query=query, **call), scope)
    assert isinstance(answer, ChannelAnswer)
    return answer


def returned_text(answer: ChannelAnswer) -> str:
    return "\n".join(e.snippet + " " + (e.location.path or "") for e in answer.evidence)
