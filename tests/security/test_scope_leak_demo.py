"""Scope leaks = 0 on the real demo workspace, for every gold query against every scope."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arr.compose.indexing import index_workspace
from arr.compose.library import compose, load_router
from arr.compose.runner import build_tools, build_workspace, config_container
from arr.errors import ScopeError
from arr.models import SCOPE_FIELDS, ScopeKey


@pytest.fixture
def demo_router(demo_overrides: list[str]):
    container = config_container(compose("index", demo_overrides))
    workspace = build_workspace(container)
    index_workspace(
        workspace, build_tools(container, workspace), workspace.named_scopes(), progress=False
    )
    router = load_router(demo_overrides)
    yield router
    router.close()


def test_no_result_ever_leaves_its_scope(demo_router, demo_copy: Path) -> None:
    gold = [json.loads(x) for x in (demo_copy / "gold.jsonl").read_text().splitlines()]
    checked = 0
    for case in gold:
        for scope_name, scope in demo_router.scopes.items():
            result = demo_router.search(case["query"], scope_name)
            assert all(e.scope == scope for e in result.evidence), (case["id"], scope_name)
            assert result.scope_dropped == 0 and result.scope_leak_count == 0
            checked += len(result.evidence)
    assert checked > 100  # the check really looked at evidence


def test_shared_text_is_answered_from_the_own_branch_only(demo_router) -> None:
    query = "Why did the warmup schedule fix the loss spikes?"
    main = demo_router.search(query, "vision-main")
    dev = demo_router.search(query, "vision-dev")
    assert "mem:vis-warmup-001" in [e.id for e in main.evidence]
    assert "mem:visdev-warmup-001" not in [e.id for e in main.evidence]
    assert {e.scope.branch for e in main.evidence} == {"main"}
    assert {e.scope.branch for e in dev.evidence} == {"dev"}


@pytest.mark.parametrize("field", SCOPE_FIELDS)
def test_a_scope_differing_in_one_field_sees_nothing(demo_router, field: str) -> None:
    base = demo_router.scopes["vision-main"]
    near = ScopeKey(**{**base.model_dump(), field: getattr(base, field) + "x"})
    # a key of no configured scope is refused before any channel runs (a scope error naming
    # the known scopes, not an empty answer that reads like a missing index)
    with pytest.raises(ScopeError, match="not configured"):
        demo_router.search("warmup loss spikes", near)
    with pytest.raises(ScopeError, match="not configured"):
        demo_router.search("warmup loss spikes", near.model_dump())


def test_drafts_and_retracted_memories_are_never_returned(demo_router) -> None:
    for query in (
        "shorter warmup may suffice unverified",
        "AdamW needs no warmup retracted",
        "faithfulness reranker idea",
    ):
        for scope_name in demo_router.scopes:
            ids = [e.id for e in demo_router.search(query, scope_name).evidence]
            assert not {"mem:vis-draft-004", "mem:vis-retracted-005", "mem:nlp-draft-003"} & set(
                ids
            )
