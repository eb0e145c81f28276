"""A benchmark table never passes off a refused channel as the channel's figure: the answers'
rejection and degradation codes are counted (a vector channel that finds no index, or one
built with another reader, answers nothing and scores 0.00) and the breadth bench says so."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from benchmarks.common.baselines import arr_places
from benchmarks.common.workspace import paper_workspace


def test_a_refused_channel_is_counted_and_a_working_one_is_not(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "notes.md").write_text("logical clocks order the events of a system\n")
    folder = tmp_path / "ws"
    paper_workspace(folder, source, "papers")
    refused: Counter[str] = Counter()
    assert arr_places(folder, ["tools=[vector]"], refused)("clocks") == []  # no index built
    assert refused["index_missing"] == 1  # one answer: its rejection and degradation, once
    working: Counter[str] = Counter()
    found = arr_places(folder, ["tools=[grep]"], working)("clocks")
    assert [w.path for w in found] == ["papers/notes.md"] and working == Counter()
