"""The planner's and reranker's guarded regexes answer exactly like the plain patterns.

The guards only skip a pattern when the query lacks characters the pattern cannot match
without; these properties pin that on generated text built from the characters that matter.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arr.query.shape import _CODE, _NAME, code_shaped, query_shape
from arr.reranker.rule import _SYMBOL, _maybe_symbol, symbol_tokens

PIECES = st.sampled_from(
    [
        "a", "Z", "_", ".", "/", "~", "-", "--", "=", "(", ")", "()", " ", "\n", "é", "Ω",
        "Error", "Exception", "Warning", "Traceback", "errno", "segfault", "out of memory",
        "OOM", "py", "yaml", "json", "log", "sh", "lr", "batch", "Size", "camelCase", "Foo",
        "Bar", "x1", "7", "?", "why ", "nan", "failed", ".py", "a.b", "../", "~/",
    ]
)  # fmt: skip
# Characters no symbol can do without, as one regex: what the reranker's guard must answer.
MAYBE_SYMBOL = re.compile(r"[_(]|--|\w\.[A-Za-z_]|[a-z][A-Z]")
QUERIES = st.lists(PIECES, max_size=14).map("".join) | st.text(max_size=40)


@settings(max_examples=3000, deadline=None)
@given(QUERIES)
def test_code_shaped_matches_the_full_pattern(query: str) -> None:
    assert code_shaped(query) == bool(_CODE.search(query))


@settings(max_examples=3000, deadline=None)
@given(QUERIES)
def test_symbol_tokens_match_the_full_pattern(query: str) -> None:
    assert symbol_tokens(query) == sorted(set(_SYMBOL.findall(query)))


@settings(max_examples=3000, deadline=None)
@given(QUERIES)
def test_symbol_guard_answers_like_its_regex(query: str) -> None:
    assert _maybe_symbol(query) == bool(MAYBE_SYMBOL.search(query))


@settings(max_examples=2000, deadline=None)
@given(QUERIES)
def test_name_guard_never_hides_a_name(query: str) -> None:
    if _NAME.search(query):
        assert "_" in query or any(
            a.isupper() and b.islower() for a, b in zip(query, query[1:], strict=False)
        )
    query_shape(query)  # never raises


def test_guards_agree_on_the_scifact_claims() -> None:
    path = Path(__file__).resolve().parents[3] / "shared/data/scifact/queries.test.jsonl"
    if not path.is_file():
        pytest.skip(f"no SciFact claims at {path}")
    claims = [json.loads(line)["text"] for line in path.read_text().splitlines() if line]
    assert claims
    for claim in claims:
        assert code_shaped(claim) == bool(_CODE.search(claim)), claim
        assert symbol_tokens(claim) == sorted(set(_SYMBOL.findall(claim))), claim
