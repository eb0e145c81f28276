"""Shared fixtures: scopes, a private copy of the demo workspace, fake tools for fast tests."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from arr.fusion.rrf import RRFFusion
from arr.models import EvidenceChunk, Freshness, Location, ScopeKey, ToolCall
from arr.planner.rule import RuleQueryPlanner
from arr.reranker.rule import RuleReranker
from arr.router.router import RetrievalRouter
from arr.workspace.workspace import Workspace

# The audit key of every test, and of every process a test starts (test modules copy
# os.environ when imported, so this is set when conftest is imported, before them): in a
# temporary folder of this session, never the user's ~/.config.
_AUDIT_FOLDER = tempfile.mkdtemp(prefix="arr-audit-key-")
os.environ["ARR_AUDIT_KEY"] = str(Path(_AUDIT_FOLDER) / "audit.key")
# removed when the session ends (628 such folders had gathered in /tmp)
atexit.register(shutil.rmtree, _AUDIT_FOLDER, ignore_errors=True)


pytest_plugins = ["tests.llm_fixtures"]  # llm_server, connections

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "data" / "demo"
SCOPE_A = ScopeKey(
    team_id="t1", project_id="p1", repository="r1", branch="main", experiment_environment="e1"
)


def chunk(
    cid: str,
    channel: str = "fake",
    score: float = 1.0,
    rank: int = 1,
    scope: ScopeKey = SCOPE_A,
    snippet: str = "",
) -> EvidenceChunk:
    return EvidenceChunk(
        id=cid,
        scope=scope,
        channel=channel,
        location=Location(document_id=cid),
        snippet=snippet or cid,
        score=score,
        ranks={channel: rank},
    )


class FakeTool:
    """A fast in-memory channel whose answers, freshness and failures a test sets."""

    summary = "fake channel"

    def __init__(
        self,
        name: str,
        ids: Sequence[str] = (),
        read_only: bool = True,
        provider: str = "local",
        fresh: Freshness | None = None,
        error: Exception | None = None,
        scope: ScopeKey | None = None,
        answer: Callable[[ToolCall], Sequence[str]] | None = None,
    ) -> None:
        self.name, self.ids, self.read_only, self.provider = name, list(ids), read_only, provider
        self.fresh = fresh or Freshness(fresh=True)
        self.error, self.scope, self.answer = error, scope, answer
        self.calls: list[ToolCall] = []

    def warm_up(self) -> None:
        pass

    def freshness(self, scope: ScopeKey) -> Freshness:
        return self.fresh

    def retrieve(self, call: ToolCall, scope: ScopeKey) -> list[EvidenceChunk]:
        self.calls.append(call)
        if self.error is not None:
            raise self.error
        ids = list(self.answer(call)) if self.answer else self.ids
        return [
            chunk(i, self.name, score=10.0 - r, rank=r, scope=self.scope or scope)
            for r, i in enumerate(ids, 1)
        ]


def make_router(*tools: FakeTool, **kwargs: object) -> RetrievalRouter:
    return RetrievalRouter(
        tools={t.name: t for t in tools},
        planner=RuleQueryPlanner(),
        fusion=RRFFusion(),
        reranker=RuleReranker(),
        **kwargs,
    )  # type: ignore[arg-type]


def file_workspace(
    tmp_path: Path, scopes: dict[str, ScopeKey], files: dict[str, str], chunk_lines: int = 40
) -> Workspace:
    """One root per scope under tmp_path/ws, each holding the same ``files`` (path -> text)."""
    for name in scopes:
        for rel, text in files.items():
            path = tmp_path / "ws" / name / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    return Workspace(
        name="t",
        root=tmp_path / "ws",
        index_dir=tmp_path / "idx",
        memory_db=tmp_path / "m.sqlite3",
        chunk_lines=chunk_lines,
        scopes={n: {"key": k, "roots": [n]} for n, k in scopes.items()},
    )


@pytest.fixture
def scope_a() -> ScopeKey:
    return SCOPE_A


@pytest.fixture
def demo_copy(tmp_path: Path) -> Path:
    """A private copy of data/demo (without derived state) under tmp_path/data/demo."""
    target = tmp_path / "data" / "demo"
    shutil.copytree(DEMO, target, ignore=shutil.ignore_patterns(".index", "*.sqlite3*"))
    return target


@pytest.fixture
def demo_overrides(demo_copy: Path, tmp_path: Path) -> list[str]:
    """Hydra overrides that point every path of the demo config into tmp_path."""
    return [
        f"paths.data_dir={demo_copy.parent}",
        f"paths.output_dir={tmp_path / 'outputs'}",
        # the approvals ledger and memory state too: never the checkout's state/ (a ledger
        # written under another session's audit key would not verify)
        f"paths.state_dir={tmp_path / 'state'}",
        "progress=false",
        # Fast model-free vectors; tests marked `model` use the real embedder.
        "embedder=hashing",
    ]


@pytest.fixture
def demo_indexed(demo_overrides: list[str]) -> list[str]:
    """demo_overrides, with the demo copy's indexes built (hashing vectors: fast)."""
    from arr.compose.indexing import index_workspace
    from arr.compose.library import compose
    from arr.compose.runner import build_tools, build_workspace, config_container

    container = config_container(compose("index", demo_overrides))
    workspace = build_workspace(container)
    index_workspace(
        workspace, build_tools(container, workspace), workspace.named_scopes(), progress=False
    )
    return demo_overrides


def lexical_router(ws: Workspace, bm25: object = None, **options: object) -> RetrievalRouter:
    """A Router over a workspace's real bm25 (built here unless given) and grep, fused by
    weighted sum and reranked by rules: how the readers' and paths' tests ask a question."""
    from arr.fusion.wsum import WSumFusion
    from arr.tools.bm25 import BM25Tool
    from arr.tools.grep import GrepTool

    if bm25 is None:
        bm25 = BM25Tool("bm25", ws)
        bm25.build(SCOPE_A)  # type: ignore[attr-defined]
    return RetrievalRouter(
        tools={"bm25": bm25, "grep": GrepTool("grep", ws)},  # type: ignore[dict-item]
        planner=RuleQueryPlanner(lexical_tools=["bm25", "grep"], semantic_tools=["bm25", "grep"]),
        fusion=WSumFusion(norm="min-max-floor"),
        reranker=RuleReranker(),
        **options,  # type: ignore[arg-type]
    )


def run_sql(path: Path, *statements: str) -> None:
    """Statements run on a database as its owner could, behind ARR's back."""
    import sqlite3

    conn = sqlite3.connect(path, isolation_level=None)
    try:
        for statement in statements:
            conn.execute(statement)
    finally:
        conn.close()
