"""``arr index``'s one bar: on a pipe or in a log, plain lines with the whole run's time left
at a steady pace, never ``\\r`` frames."""

from __future__ import annotations

import time

from arr.compose import run_bar
from arr.compose.run_bar import RunBar
from arr.compose.run_clock import RunClock


def test_plain_lines_on_a_pipe_say_the_whole_runs_time_left(capsys, monkeypatch) -> None:
    monkeypatch.setattr(run_bar, "PLAIN_EVERY_S", 0.0)
    monkeypatch.setattr(run_bar, "TICK_S", 0.02)
    clock = RunClock(None)
    bar = RunBar(clock, 3, shown=True)
    try:
        bar.starts(1, "bm25 code")
        clock.planned({"vector code": (100, 0.0), "vector papers": (300, 0.0)})
        clock.starts("vector code")
        bar.starts(2, "vector code")
        clock.begin(100)
        time.sleep(0.05)
        clock.advance(50)
        time.sleep(0.2)
    finally:
        bar.close()
    err = capsys.readouterr().err
    assert "\r" not in err
    lines = err.splitlines()
    assert lines[0] == "indexing 1/3: bm25 code"
    assert "indexing 2/3: vector code" in lines
    told = [line for line in lines if "about" in line]
    assert told, lines
    assert told[-1].startswith("indexing 2/3 vector code: 50 of 400 passages embedded; about ")


def test_no_lines_when_progress_is_off(capsys) -> None:
    bar = RunBar(RunClock(None), 2, shown=False)
    bar.starts(1, "bm25 code")
    bar.close()
    assert capsys.readouterr().err == ""


def test_a_line_said_aside_is_never_glued_onto_the_bar(capsys) -> None:
    bar = RunBar(RunClock(None), 2, shown=True)
    bar.aside(lambda: print("lexical channels ready"))
    bar.close()
    assert capsys.readouterr().out == "lexical channels ready\n"
