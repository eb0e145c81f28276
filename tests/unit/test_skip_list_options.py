"""``arr skipped`` takes ``--json`` and ``--scope NAME`` as every other command does, and refuses
a scope the workspace does not have instead of answering with nothing (issue 54)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arr.cli import skip_list
from arr.errors import ConfigError


def test_json_and_scope_flags_and_a_misspelled_scope(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert skip_list.run(["--json"], tmp_path, ["papers"]) == 0
    assert json.loads(capsys.readouterr().out) == {}
    assert skip_list.run(["--scope", "papers", "--json"], tmp_path, ["papers"]) == 0
    assert json.loads(capsys.readouterr().out) == {}
    with pytest.raises(ConfigError, match="unknown scope 'paper'; known scopes: \\['papers'\\]"):
        skip_list.run(["scope=paper"], tmp_path, ["papers"])
    with pytest.raises(ConfigError, match="usage"):
        skip_list.run(["--verbose"], tmp_path, ["papers"])
