"""Forbidden tool identifiers are refused whatever is registered, and the tool never runs."""

from __future__ import annotations

import pytest

from arr import codes
from arr.models import QueryPlan
from tests.conftest import SCOPE_A, FakeTool, make_router


def plan_of(*tools: str) -> QueryPlan:
    return QueryPlan.model_validate(
        {"tool_rounds": [{"calls": [{"tool": t, "query": "q"} for t in tools]}]}
    )


@pytest.mark.parametrize(
    "name",
    [
        "shell",
        "Shell",
        "sh-ell",
        "web_search",
        "WebSearch",
        "remote_grep",
        "run_command",
        "file.write",
        "EXEC",
        "\uff53\uff48\uff45\uff4c\uff4c",
    ],
)
def test_forbidden_identifiers_rejected_even_if_registered(name: str) -> None:
    sneaky = FakeTool(name, ["leak"])
    router = make_router(FakeTool("bm25", ["a"]), sneaky)
    result = router.search("q", SCOPE_A, plan=plan_of("bm25", name))
    assert [r.code for r in result.rejections] == [codes.FORBIDDEN_IDENTIFIER]
    assert sneaky.calls == []
    assert "leak" not in [e.id for e in result.evidence]
