"""A loop's progress on a pipe is plain lines (``arr eval``'s "evaluating"), never ``\\r``."""

from __future__ import annotations

from arr.compose import counted as module
from arr.compose.counted import counted


def test_plain_lines_on_a_pipe(capsys, monkeypatch) -> None:
    monkeypatch.setattr(module, "PLAIN_EVERY_S", 0.0)
    assert list(counted(["a", "b", "c"], "evaluating", "query", "queries", True)) == ["a", "b", "c"]
    err = capsys.readouterr().err
    assert "\r" not in err
    assert err.splitlines() == [f"evaluating: {n} of 3 queries" for n in (1, 2, 3)]


def test_the_end_is_said_once_and_nothing_when_not_shown(capsys) -> None:
    assert list(counted(range(5), "evaluating", "query", "queries", True)) == [0, 1, 2, 3, 4]
    assert capsys.readouterr().err == "evaluating: 5 of 5 queries\n"
    assert list(counted(range(5), "evaluating", "query", "queries", False)) == [0, 1, 2, 3, 4]
    assert capsys.readouterr().err == ""
