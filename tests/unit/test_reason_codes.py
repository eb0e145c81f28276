"""Reason codes are named, not spelled: a multi-word code's value appears only in arr/codes.py
(and in the vocabulary that gives each skip reason its words), so a renamed code cannot leave
a stale spelling behind in a trace, a report or an error."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ARR = Path(__file__).resolve().parents[2] / "arr"
# the skip reasons' words are keyed by the reasons themselves (tests/unit/test_skip_reasons.py)
VOCABULARY = {"codes.py", "skip_reasons.py"}


def test_no_code_is_spelled_outside_the_codes_module() -> None:
    source = (ARR / "codes.py").read_text()
    values = {v for v in re.findall(r'^[A-Z_]+ = "([a-z]+_[a-z_]+)"', source, re.M)}
    assert {"eval_failed", "query_failed", "views_not_ready"} <= values
    spelled = [
        f"{path.relative_to(ARR)}:{node.lineno} {node.value}"
        for path in sorted(ARR.rglob("*.py"))
        if path.name not in VOCABULARY
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and node.value in values
    ]
    assert spelled == []
