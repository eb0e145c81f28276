"""``arr index``: seed the memory store and (re)build every indexed channel, scope by scope.

A tool takes part when it has a ``build(scope)`` method. Progress goes to stderr through tqdm.
A failure in one partition is reported and the others still build; the previous index of the
failed partition stays in place (builds swap in atomically, see arr.tools.partition).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass

from arr.errors import ArrError
from arr.memory.seed import seed_memories
from arr.memory.store import ResearchMemoryStore
from arr.models import ScopeKey
from arr.workspace import Workspace


@dataclass(frozen=True)
class BuildReport:
    tool: str
    scope: str
    documents: int
    elapsed_ms: float
    error: str = ""


def index_workspace(
    workspace: Workspace,
    tools: Mapping[str, object],
    scopes: Mapping[str, ScopeKey],
    progress: bool = True,
) -> tuple[tuple[int, int], list[BuildReport]]:
    from tqdm import tqdm

    store = ResearchMemoryStore(workspace.memory_db)
    store.initialise()
    seeded = (0, 0)
    if workspace.memory_seed is not None:
        seeded = seed_memories(store, workspace.memory_seed, workspace.named_scopes())
    jobs = [
        (tool_name, tool, scope_name, key)
        for tool_name, tool in sorted(tools.items())
        if hasattr(tool, "build")
        for scope_name, key in sorted(scopes.items())
    ]
    reports = []
    bar = tqdm(
        jobs, desc="indexing", unit="partition", file=sys.stderr, disable=not progress or not jobs
    )
    for tool_name, tool, scope_name, key in bar:
        bar.set_postfix_str(f"{tool_name}:{scope_name}")
        started = time.perf_counter()
        try:
            manifest = tool.build(key)  # type: ignore[attr-defined]
            error, count = "", int(manifest.get("documents", 0))
        except (ArrError, OSError, ValueError) as exc:
            error, count = str(exc), 0
        reports.append(
            BuildReport(
                tool_name,
                scope_name,
                count,
                round((time.perf_counter() - started) * 1000, 1),
                error,
            )
        )
    return seeded, reports
