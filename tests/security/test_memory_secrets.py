"""Whatever a channel returns passes one credential filter before it leaves the Router: a
published memory holding a token never returns it, whole or in part, even when the token sits
at the snippet's edge or is split by an invisible character."""

from __future__ import annotations

from pathlib import Path

import pytest

from arr.fusion.rrf import RRFFusion
from arr.memory.store import ResearchMemoryStore
from arr.planner.rule import RuleQueryPlanner
from arr.reranker.rule import RuleReranker
from arr.router.router import RetrievalRouter
from arr.safety.rules import redact_credentials
from arr.tools.memory import MemoryTool
from arr.workspace.workspace import Workspace
from tests.conftest import SCOPE_A

TOKENS = {
    "github": "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "aws": "AKIA" + "Q7XZ3B9KJ2LMN4PR",
    "assignment": "api_key = 'Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1'",
}


def router_with_memory(tmp_path: Path, body: str) -> RetrievalRouter:
    store = ResearchMemoryStore(tmp_path / "m.sqlite3")
    store.add_draft("m1", SCOPE_A, "Cluster access notes", body)
    store.transition("m1", "publish")
    ws = Workspace(
        name="t",
        root=tmp_path,
        index_dir=tmp_path / "i",
        memory_db=tmp_path / "m.sqlite3",
        scopes={"a": {"key": SCOPE_A, "roots": []}},
    )
    return RetrievalRouter(
        tools={"memory": MemoryTool("memory", ws, snippet_chars=120)},
        planner=RuleQueryPlanner(),
        fusion=RRFFusion(),
        reranker=RuleReranker(),
    )


def slices(secret: str, width: int = 12) -> list[str]:
    return [secret[i : i + width] for i in range(0, len(secret) - width + 1)]


@pytest.mark.parametrize("kind", sorted(TOKENS))
@pytest.mark.parametrize("position", ["start", "glued", "edge", "invisible"])
def test_memory_snippets_never_carry_a_credential(tmp_path: Path, kind: str, position: str) -> None:
    secret = TOKENS[kind]
    value = secret.split("'")[1] if kind == "assignment" else secret
    planted = {
        "start": f"{secret} cluster access notes",
        "glued": f"cluster access notes token:{secret}",
        "edge": "cluster access notes " + "x" * 80 + " " + secret,
        "invisible": f"cluster access notes {secret[:8]}\u200b{secret[8:]}",
    }[position]
    router = router_with_memory(tmp_path, planted)
    result = router.search("What are the cluster access notes?", SCOPE_A)
    assert result.evidence, "the memory itself is still found"
    dumped = result.model_dump_json()
    assert not any(part in dumped for part in slices(value)), dumped
    assert "cluster access notes" in dumped.lower()


def test_redaction_keeps_ordinary_code() -> None:
    code = "query, key = apply_rotary_pos_emb_2d(q, k)\ngathered_key = self.gather(x)"
    assert redact_credentials(code) == (code, 0)
