"""Hostile library inputs, from many threads at once: only ARR's documented error classes
reach the caller, every message is bounded, and the router answers the next request."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from arr.errors import ArrError
from arr.models import QueryPlan, ToolCall, ToolRound
from tests.conftest import SCOPE_A, FakeTool, make_router

GOOD_SCOPE = SCOPE_A.model_dump()
SURROGATE = "warmup \ud800 loss"
HOSTILE: list[tuple[Any, Any, Any]] = [
    (SURROGATE, "a", None),
    (b"warmup", "a", None),
    (None, "a", None),
    (12, "a", None),
    ("", "a", None),
    ("x" * 100_000, "a", None),
    ("warmup\x00", "a", None),
    ("warmup", "n" * 10_000_000, None),
    ("warmup", {**GOOD_SCOPE, "branch": "ma\ud800in"}, None),
    ("warmup", {**GOOD_SCOPE, "branch": 7}, None),
    ("warmup", {"team_id": "t1"}, None),
    ("warmup", {**GOOD_SCOPE, "extra": "x"}, None),
    ("warmup", 42, None),
    ("warmup", b"a", None),
    ("warmup", ["a"], None),
    ("warmup", None, None),
    ("warmup", "a", "not a plan"),
    ("warmup", "a", {"tool_rounds": []}),
    ("warmup", "a", 3.5),
    # plans built without validation (model_construct): re-validated, never a TypeError
    ("warmup", "a", QueryPlan.model_construct(tool_rounds=None)),
    (
        "warmup",
        "a",
        QueryPlan.model_construct(tool_rounds=(ToolRound.model_construct(calls=None),)),
    ),
    (
        "warmup",
        "a",
        QueryPlan.model_construct(
            tool_rounds=(ToolRound(calls=(ToolCall.model_construct(tool=7, query="warmup"),)),)
        ),
    ),
    # a well-formed ScopeKey of no configured scope: a scope error, not "index_missing"
    ("warmup", SCOPE_A.model_copy(update={"branch": "elsewhere"}), None),
    ("warmup", {**GOOD_SCOPE, "branch": "elsewhere"}, None),
]


@pytest.mark.parametrize("query, scope, plan", HOSTILE)
def test_only_arr_errors_with_bounded_messages(query: Any, scope: Any, plan: Any) -> None:
    router = make_router(FakeTool("bm25", ids=["d1"]), scopes={"a": SCOPE_A})
    with pytest.raises(ArrError) as raised:
        router.search(query, scope, plan=plan)
    assert len(str(raised.value)) < 2000
    assert router.search("warmup", "a").evidence  # still answering


def test_hostile_inputs_from_many_threads_at_once() -> None:
    router = make_router(FakeTool("bm25", ids=["d1", "d2"]), scopes={"a": SCOPE_A})

    def attempt(index: int) -> str:
        query, scope, plan = HOSTILE[index % len(HOSTILE)]
        try:
            router.search(query, scope, plan=plan)
        except ArrError:
            return "refused"
        except Exception as exc:  # noqa: BLE001 - the assertion below names it
            return f"LEAKED {type(exc).__name__}"
        return "answered"

    with ThreadPoolExecutor(max_workers=16) as pool:
        outcomes = list(pool.map(attempt, range(len(HOSTILE) * 20)))
    assert set(outcomes) == {"refused"}
    good = router.search(
        "warmup",
        "a",
        plan=QueryPlan.model_validate(
            {"tool_rounds": [{"calls": [{"tool": "bm25", "query": "warmup"}]}]}
        ),
    )
    assert [e.id for e in good.evidence] == ["d1", "d2"]


@pytest.mark.parametrize(
    "overrides", [[5], "tools=[bm25]", b"x", [None], {"tools": "bm25"}, ["ok=1", 3.5]]
)
def test_load_router_refuses_overrides_that_are_not_strings(overrides: Any) -> None:
    import arr
    from arr.errors import ConfigError

    with pytest.raises(ConfigError, match="overrides"):
        arr.load_router(overrides=overrides, warm=False)


def test_an_unconfigured_scope_key_is_a_scope_error() -> None:
    from arr.errors import ScopeError

    router = make_router(FakeTool("bm25", ids=["d1"]), scopes={"a": SCOPE_A})
    with pytest.raises(ScopeError, match="not configured"):
        router.search("warmup", SCOPE_A.model_copy(update={"branch": "elsewhere"}))
