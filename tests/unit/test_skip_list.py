"""``arr skipped`` and the list behind it (arr.cli.skip_list): merged rows, kept per scope,
bad arguments and a damaged file named in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arr.cli import skip_list
from arr.errors import ArrError, ConfigError


def test_rows_merge_per_file_and_reason_and_scopes_are_kept(tmp_path: Path) -> None:
    rows = skip_list.merged(
        [("b.pdf", "no_text", "scan"), ("a.pdf", "unreadable", "x"), ("b.pdf", "no_text", "y")]
    )
    assert rows == [("a.pdf", "unreadable", "x"), ("b.pdf", "no_text", "scan")]
    skip_list.write(tmp_path, {"papers": rows})
    skip_list.write(tmp_path, {"code": [("big.bin", "oversize", "3 bytes")]})
    assert skip_list.read(tmp_path) == {
        "papers": rows,
        "code": [("big.bin", "oversize", "3 bytes")],
    }
    table = skip_list.table(rows)
    assert "unreadable" in table[0] and "could not be read (x)" in table[0]


def test_the_command_lists_prints_json_and_refuses_what_it_does_not_know(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert skip_list.run([], tmp_path) == 0
    assert "no skipped files recorded" in capsys.readouterr().out
    skip_list.write(tmp_path, {"papers": [("a.pdf", "pdf_encrypted", "needs a password")]})
    assert skip_list.run(["scope=papers", "output=json"], tmp_path) == 0
    assert json.loads(capsys.readouterr().out)["papers"][0]["reason"] == "pdf_encrypted"
    for bad in (["scope"], ["colour=red"], ["output=xml"]):
        with pytest.raises(ConfigError, match="usage: arr skipped"):
            skip_list.run(bad, tmp_path)
    (tmp_path / skip_list.FILE).write_text("{not json")
    with pytest.raises(ArrError, match="cannot read"):
        skip_list.run([], tmp_path)
