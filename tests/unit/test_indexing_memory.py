"""``arr index`` gives freed memory back after each partition: the vector build, the largest,
starts from what the lexical builds still hold, not from their high-water mark."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arr.compose import indexing
from arr.models import ScopeKey
from tests.conftest import SCOPE_A, file_workspace


class Channel:
    def __init__(self, semantic: bool, calls: list[str], name: str) -> None:
        self.semantic, self.calls, self.name = semantic, calls, name

    def build(self, scope: ScopeKey) -> dict[str, Any]:
        self.calls.append(self.name)
        return {"documents": 1}

    rebuild = build

    def reset(self, scope: ScopeKey) -> None:
        pass


def test_memory_is_given_back_after_every_partition(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    monkeypatch.setattr(indexing, "give_back_freed_memory", lambda: calls.append("trim"))
    workspace = file_workspace(tmp_path, {"a": SCOPE_A}, {})
    tools = {"bm25": Channel(False, calls, "bm25"), "vector": Channel(True, calls, "vector")}
    _, reports = indexing.index_workspace(workspace, tools, {"a": SCOPE_A}, progress=False)
    assert [r.error for r in reports] == [""] * len(reports)
    assert calls == ["bm25", "trim", "vector", "trim"]
