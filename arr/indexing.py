"""``arr index``: seed the memory store and (re)build every indexed channel, scope by scope.

A tool takes part when it has a ``build(scope)`` method. Progress goes to stderr through tqdm.
A failure in one partition is reported and the others still build; the previous index of the
failed partition stays in place (builds swap in atomically, see arr.tools.partition).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

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
    skipped: dict[str, int] = field(default_factory=dict)


def index_workspace(
    workspace: Workspace,
    tools: Mapping[str, object],
    scopes: Mapping[str, ScopeKey],
    progress: bool = True,
    rebuild: bool = False,
) -> tuple[tuple[int, int], list[BuildReport]]:
    """Seed the memory store, then build every (tool, scope) partition. Nothing here raises
    for one bad partition or a bad store: each failure is a report line with its cause."""
    from tqdm import tqdm

    reports = []
    seeded = (0, 0)
    started = time.perf_counter()
    try:
        store = ResearchMemoryStore(workspace.memory_db)
        store.initialise()
        if workspace.memory_seed is not None:
            seeded = seed_memories(store, workspace.memory_seed, workspace.named_scopes())
    except (ArrError, OSError) as exc:
        reports.append(BuildReport("memory", "*", 0, _ms(started), f"{exc}"[:500]))
    jobs = [
        (tool_name, tool, scope_name, key)
        for tool_name, tool in sorted(tools.items())
        if hasattr(tool, "build")
        for scope_name, key in sorted(scopes.items())
    ]
    bar = tqdm(
        jobs, desc="indexing", unit="partition", file=sys.stderr, disable=not progress or not jobs
    )
    for tool_name, tool, scope_name, key in bar:
        bar.set_postfix_str(f"{tool_name}:{scope_name}")
        started = time.perf_counter()
        skipped: dict[str, int] = {}
        try:
            if rebuild and hasattr(tool, "rebuild"):
                # built beside the live index and swapped when complete: a failed rebuild
                # (full disk, a kill) never leaves the scope with less than it had
                manifest = tool.rebuild(key)  # type: ignore[attr-defined]
            else:
                if rebuild and hasattr(tool, "reset"):
                    tool.reset(key)  # type: ignore[attr-defined]
                manifest = tool.build(key)  # type: ignore[attr-defined]
            error, count = "", int(manifest.get("documents", 0))
            skipped = _skipped(manifest.get("skipped"))
        except Exception as exc:  # one failed partition never stops the others
            detail = (
                str(exc) if isinstance(exc, (ArrError, OSError)) else f"{type(exc).__name__}: {exc}"
            )
            error, count = detail[:500] or type(exc).__name__, 0
        reports.append(BuildReport(tool_name, scope_name, count, _ms(started), error, skipped))
    return seeded, reports


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)


def _skipped(value: object) -> dict[str, int]:
    if isinstance(value, str):  # stored as JSON where the store keeps only scalars (Chroma)
        import json

        try:
            value = json.loads(value)
        except ValueError:
            return {}
    return {str(k): int(v) for k, v in value.items()} if isinstance(value, dict) else {}
