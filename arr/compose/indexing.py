"""``arr index``: seed the memory store and (re)build every indexed channel, scope by scope.

A tool takes part when it has a ``build(scope)`` method. Lexical first: every scope's memory,
grep and bm25 partitions are built before any semantic one (a tool with ``semantic = True``:
vector), and ``on_lexical_ready`` is told when they are, so a new user can search in seconds
while the embedding runs (a search meanwhile answers from the ready channels, with the build's
progress as its degradation). ``lexical_only`` skips the semantic channels. Progress goes to
stderr as one bar for the whole run with its time left (arr.compose.run_bar, run_clock): every
semantic partition says what it would embed before the first is built. A failure in one
partition is reported and the others still build; the previous index of the failed partition
stays in place (builds swap in atomically, see arr.tools.partition).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from arr import codes
from arr.compose.built_channels import MEMORY, note_built
from arr.compose.run_bar import RunBar
from arr.compose.run_clock import Plan, RunClock, machine_rates
from arr.errors import ArrError, is_disk_full
from arr.memory.seed import seed_memories
from arr.memory.store import ResearchMemoryStore
from arr.models import ScopeKey
from arr.tools.build_progress import told_to
from arr.tools.contract import Indexed, Plans, has
from arr.tools.heap import give_back_freed_memory
from arr.workspace.workspace import Workspace


@dataclass(frozen=True)
class BuildReport:
    tool: str
    scope: str
    documents: int
    elapsed_ms: float
    error: str = ""
    skipped: dict[str, int] = field(default_factory=dict)
    code: str = ""  # a failure's fixed cause: "disk_full" (else "")
    # each skipped file: [path, reason, detail] (what the counts in ``skipped`` are made of)
    skipped_files: list[list[str]] = field(default_factory=list)
    reader_files: int | None = None  # grep: files searched in their extracted text
    repaired: str = ""  # an unreadable index the build found and rebuilt: what was wrong


def index_workspace(
    workspace: Workspace,
    tools: Mapping[str, object],
    scopes: Mapping[str, ScopeKey],
    progress: bool = True,
    rebuild: bool = False,
    lexical_only: bool = False,
    on_lexical_ready: Callable[[float, list[str]], None] | None = None,
) -> tuple[tuple[int, int], list[BuildReport]]:
    """Seed the memory store, then build every (tool, scope) partition. Nothing here raises
    for one bad partition or a bad store: each failure is a report line with its cause."""
    clock = RunClock(machine_rates())  # the run's clock starts with the run
    reports = []
    seeded = (0, 0)
    started = time.perf_counter()
    try:
        store = ResearchMemoryStore(workspace.memory_db)
        store.initialise()
        if workspace.memory_seed is not None:
            seeded = seed_memories(store, workspace.memory_seed, workspace.named_scopes())
    except (ArrError, OSError) as exc:
        full = codes.DISK_FULL if is_disk_full(exc) else ""
        reports.append(BuildReport("memory", "*", 0, _ms(started), f"{exc}"[:500], {}, full))
    builders = sorted(
        (tool.semantic, name, tool)
        for name, tool in tools.items()
        if has(tool, Indexed) and not (lexical_only and tool.semantic)
    )
    jobs = [
        (semantic, tool_name, tool, scope_name, key)
        for semantic, tool_name, tool in builders
        for scope_name, key in sorted(scopes.items())
    ]
    lexical = sorted({n for s, n, _ in builders if not s} | ({"memory"} & set(tools)))

    def ready(channels: list[str]) -> None:
        if on_lexical_ready is not None:
            on_lexical_ready(time.perf_counter() - started, channels)

    bar = RunBar(clock, len(jobs), progress)
    try:
        with told_to(clock):
            reports += _build_all(jobs, clock, bar, rebuild, lambda: ready(lexical))
    finally:
        bar.close()
        clock.remember()  # an interrupted run's rates too: the run that resumes it needs them
    failed = {r.tool for r in reports if r.error}
    # what the demo's first use need not build again (arr.compose.demo_index)
    note_built(workspace.index_dir, ({n for _, n, _, _, _ in jobs} | {MEMORY}) - failed)
    return seeded, reports


SAMPLE_PER_KIND = 8  # items of a kind embedded to time it when this machine knows no rate
Job = tuple[bool, str, Any, str, ScopeKey]  # (semantic, tool name, tool, scope name, scope)


def _build_all(
    jobs: list[Job], clock: RunClock, bar: RunBar, rebuild: bool, lexical_ready: Callable[[], None]
) -> list[BuildReport]:
    """Every partition built in order; before the first semantic one, the lexical channels are
    said ready (on lines of their own) and every semantic partition is planned."""
    reports = []
    planned = False
    for number, (semantic, tool_name, tool, scope_name, key) in enumerate(jobs, 1):
        if semantic and not planned:
            planned = True
            bar.aside(lexical_ready)
            if bar.shown:  # nobody sees a time left without progress: no plan, no sample
                bar.planning()
                plan_semantic(clock, jobs[number - 1 :], rebuild)
        job = f"{tool_name} {scope_name}"
        clock.starts(job)
        bar.starts(number, job)
        reports.append(_build_one(tool, tool_name, scope_name, key, rebuild))
        give_back_freed_memory()  # the vector build then starts from what is still held
    return reports


def plan_semantic(clock: RunClock, jobs: list[Job], rebuild: bool) -> None:
    """Every semantic partition asked what it would embed, by kind (timed), before the first is
    built: the run's time left counts them all. A kind this machine remembers no rate for is
    timed on a small sample of its items, once a run, so the time left is said from the first
    batch's start. A partition that cannot say is left out of the estimate (its build reports
    its failure)."""
    plans: dict[str, Plan] = {}
    for _semantic, tool_name, tool, scope_name, key in jobs:
        if not has(tool, Plans):
            continue
        began = time.perf_counter()
        try:
            known = clock.remembered(tool.rate_key())
            pending = tool.pending(key, rebuild, SAMPLE_PER_KIND, known)
        except Exception:  # an estimate never fails a run: the build says what is wrong
            continue
        spent = time.perf_counter() - began - pending.sample_s
        plans[f"{tool_name} {scope_name}"] = (dict(pending.kinds or {}) or pending.items, spent)
        clock.timed(pending.kind_rates)  # later partitions need not time these kinds
    clock.planned(plans)


def _build_one(
    tool: object, tool_name: str, scope_name: str, key: ScopeKey, rebuild: bool
) -> BuildReport:
    """One partition built (or rebuilt), reported; a failure is the report's error, never an
    exception: the other partitions still build."""
    started = time.perf_counter()
    skipped: dict[str, int] = {}
    files: list[list[str]] = []
    readers: int | None = None
    repaired = ""
    try:
        # a rebuild is built beside the live index and swapped when complete: a failed
        # rebuild (full disk, a kill) never leaves the scope with less than it had
        manifest = tool.rebuild(key) if rebuild else tool.build(key)  # type: ignore[attr-defined]
        error, count, code = "", int(manifest.get("documents", 0)), ""
        skipped = _skipped(manifest.get("skipped"))
        files = [
            [str(part) for part in record]
            for record in manifest.get("skipped_files") or []
            if isinstance(record, (list, tuple)) and len(record) == 3
        ]
        found = manifest.get("reader_files")
        readers = int(found) if isinstance(found, int) else None
        repaired = str(manifest.get("repaired") or "")
    except Exception as exc:  # one failed partition never stops the others
        detail = (
            str(exc) if isinstance(exc, (ArrError, OSError)) else f"{type(exc).__name__}: {exc}"
        )
        error, count = detail[:500] or type(exc).__name__, 0
        code = codes.DISK_FULL if is_disk_full(exc) else ""
    return BuildReport(
        tool_name, scope_name, count, _ms(started), error, skipped, code, files, readers, repaired
    )


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
