from __future__ import annotations

import pytest
from pydantic import ValidationError

from arr.errors import ScopeError
from arr.models import SCOPE_FIELDS, QueryPlan, ScopeKey, ToolCall, resolve_scope

GOOD = dict(team_id="t", project_id="p", repository="r", branch="main", experiment_environment="e")


@pytest.mark.parametrize("field", SCOPE_FIELDS)
@pytest.mark.parametrize(
    "value",
    [
        pytest.param("", id="empty"),
        pytest.param(" main", id="leading-space"),
        pytest.param("main\t", id="trailing-tab"),
        pytest.param("ma\x00in", id="nul"),
        pytest.param("ma\nin", id="newline"),
        pytest.param("ma\u200bin", id="zero-width-format-char"),
        pytest.param("x" * 129, id="too-long"),
    ],
)
def test_scope_field_rejects(field: str, value: str) -> None:
    with pytest.raises(ValidationError):
        ScopeKey(**{**GOOD, field: value})


def test_scope_is_strict_and_not_normalised() -> None:
    with pytest.raises(ValidationError):
        ScopeKey(**{**GOOD, "branch": 1})  # type: ignore[arg-type]
    nfc, nfd = "caf\u00e9", "cafe\u0301"
    assert ScopeKey(**{**GOOD, "branch": nfc}) != ScopeKey(**{**GOOD, "branch": nfd})
    assert ScopeKey(**{**GOOD, "branch": "Main"}) != ScopeKey(**GOOD)
    assert ScopeKey(**GOOD) == ScopeKey(**GOOD)


def test_scope_is_frozen_and_closed() -> None:
    key = ScopeKey(**GOOD)
    with pytest.raises(ValidationError):
        key.branch = "dev"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        ScopeKey(**GOOD, extra="x")  # type: ignore[call-arg]


def test_fingerprint_differs_per_field() -> None:
    prints = {ScopeKey(**{**GOOD, f: GOOD[f] + "x"}).fingerprint() for f in SCOPE_FIELDS}
    assert len(prints | {ScopeKey(**GOOD).fingerprint()}) == 6
    # A separator cannot be used to forge a collision between fields.
    a = ScopeKey(**{**GOOD, "team_id": "a/b", "project_id": "c"})
    b = ScopeKey(**{**GOOD, "team_id": "a", "project_id": "b/c"})
    assert a.fingerprint() != b.fingerprint()


def test_resolve_scope_errors_are_specific() -> None:
    named = {"demo": ScopeKey(**GOOD)}
    assert resolve_scope("demo", named) == named["demo"]
    with pytest.raises(ScopeError, match="unknown scope 'nope'.*demo"):
        resolve_scope("nope", named)
    with pytest.raises(ScopeError, match="branch"):
        resolve_scope({**GOOD, "branch": " "}, named)


def test_plan_rejects_unknown_fields_and_versions() -> None:
    with pytest.raises(ValidationError):
        QueryPlan.model_validate(
            {
                "version": "arr-router-v9",
                "tool_rounds": [{"calls": [{"tool": "bm25", "query": "q"}]}],
            }
        )
    with pytest.raises(ValidationError):
        QueryPlan.model_validate(
            {
                "version": "arr-router-v2",
                "tool_rounds": [
                    {"calls": [{"tool": "bm25", "query": "q", "scope": {"team_id": "x"}}]}
                ],
            }
        )
    with pytest.raises(ValidationError):
        ToolCall(tool="bm25", query="q", top_k=10_000)
