"""``arr eval``: run a gold set through the same router ``arr search`` builds, write a report.

Config: ``conf/eval.yaml`` with ``eval=<name>`` (``conf/eval/``). Indexes that are missing or
stale are built first and reused while fresh. Every case runs through the router; metrics are
computed on the full returned sequence against the gold grades. The run folder receives
``report.json`` (always: a failed run says ``status: failed`` and why), and on success also
``report.md``, ``report.html`` and ``run.trec``.
"""

from __future__ import annotations

import importlib.metadata
import platform
import re
import subprocess
import time
import traceback
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from arr import codes
from arr.audit.approval import process_file
from arr.compose.counted import counted
from arr.compose.runner import build_router, build_workspace
from arr.errors import ArrError
from arr.eval.gold import EvalError, GoldCase, load_arr_gold, load_beir_gold
from arr.eval.metrics import mean_metrics, query_metrics
from arr.eval.report import write_json, write_reports
from arr.memory.seed import seed_memories
from arr.memory.store import ResearchMemoryStore
from arr.models import EvidenceChunk, resolve_scope
from arr.router.router import RetrievalRouter
from arr.tools.contract import Indexed, has
from arr.version import __version__
from arr.workspace.workspace import Workspace

KEY_PACKAGES = (
    "bm25s",
    "chromadb",
    "sentence-transformers",
    "torch",
    "hydra-core",
    "pydantic",
    "ripgrep",
    "numpy",
)


def versions() -> dict[str, str]:
    found = {"arr": __version__, "python": platform.python_version()}
    for name in KEY_PACKAGES:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def git_commit(root: Path) -> str:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return done.stdout.strip() if done.returncode == 0 else "unknown"


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"p50": 0.0, "p95": 0.0, "mean": 0.0}
    ordered = sorted(values)
    pick = lambda q: ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]  # noqa: E731
    return {
        "p50": round(pick(0.5), 3),
        "p95": round(pick(0.95), 3),
        "mean": round(sum(values) / len(values), 3),
    }


def load_cases(settings: dict[str, Any], router: RetrievalRouter) -> list[GoldCase]:
    kind = settings.get("format", "arr")
    if kind == "arr":
        scope = settings.get("scope")
        default = resolve_scope(scope, router.scopes) if scope else None
        return load_arr_gold(Path(settings["gold"]), router.scopes, default)
    if kind == "beir":
        scope = resolve_scope(settings["scope"], router.scopes)
        return load_beir_gold(Path(settings["collection"]), settings.get("split", "test"), scope)
    raise EvalError(f"eval.format must be 'arr' or 'beir', got {kind!r}")


def check_known_ids(cases: list[GoldCase], workspace: Workspace, path: str) -> None:
    """Relevant ``doc:``/``mem:`` ids of an ARR gold set must exist in their scope."""
    store = ResearchMemoryStore(workspace.memory_db)
    known: dict[str, set[str]] = {}
    for number, case in enumerate(cases, 1):
        key = case.scope.fingerprint()
        if key not in known:
            ids = {d.id for d in workspace.documents(case.scope)}
            if workspace.memory_db.is_file():
                ids |= {f"mem:{m.id}" for m in store.list(case.scope)}
            known[key] = ids
        unknown = [
            i for i in case.relevant if i.startswith(("doc:", "mem:")) and i not in known[key]
        ]
        if unknown:
            raise EvalError(
                f"{path}: case {number} ({case.id}): unknown relevant ids "
                f"{unknown[:3]} in scope {case.scope.label()}"
            )


def ensure_indexes(router: RetrievalRouter, workspace: Workspace, progress: bool) -> list[str]:
    """Build what is missing or stale for the scopes the gold set uses; returns what was built."""
    store = ResearchMemoryStore(workspace.memory_db)
    store.initialise()
    built = []
    if (
        workspace.memory_seed is not None
        and seed_memories(store, workspace.memory_seed, workspace.named_scopes())[0]
    ):
        built.append("memory:seed")
    for name, tool in sorted(router.tools.items()):
        if not has(tool, Indexed):
            continue
        for scope_name, scope in sorted(router.scopes.items()):
            if not tool.freshness(scope).fresh:
                tool.build(scope)  # type: ignore[attr-defined]
                built.append(f"{name}:{scope_name}")
    return built


def judged_ids(evidence: Sequence[EvidenceChunk], chunk_lines: int | None) -> list[str]:
    """The ids a gold set judges, in rank order, each document once.

    Line evidence from grep (``grep:PATH#L<n>``) is judged as the indexed chunk that holds the
    line (``doc:PATH#L<first line of that chunk>``, chunks of ``chunk_lines`` lines from line
    1), so a correct line is not scored irrelevant by construction; when the chunk is already
    ranked higher, the line adds nothing (a document counts once)."""
    ranking: list[str] = []
    seen: set[str] = set()
    for chunk in evidence:
        judged = chunk.place() or chunk.id  # a line of a reader's view: its unit
        where = chunk.location
        if judged != chunk.id:
            pass
        elif chunk.channel == "grep" and chunk_lines and where.path and where.start_line:
            first = (where.start_line - 1) // chunk_lines * chunk_lines + 1
            judged = f"doc:{where.path}#L{first}"
        if judged not in seen:
            seen.add(judged)
            ranking.append(judged)
    return ranking


_RANGE = re.compile(r"^(?P<path>.+)#L(?P<start>\d+)(?:-(?P<end>\d+))?$")


def judged_places(evidence: Sequence[EvidenceChunk], relevant: Mapping[str, int]) -> list[str]:
    """File-level judging: each item mapped to its place - its unit when the gold names it
    (``x.pdf#page=8``, ``nb.ipynb#cell=3``, ``refs.bib#goyal2017``), the relevant line range it
    overlaps (``path#L10-20``), else its file (``path``); a memory is ``mem:<id>``, an item
    without a path its id - and each place kept at the rank of its first item."""
    ranges: dict[str, list[tuple[int, int, str]]] = {}
    for judged in relevant:
        match = _RANGE.match(judged)
        if match:
            start = int(match["start"])
            ranges.setdefault(match["path"], []).append((start, int(match["end"] or start), judged))
    ranking: list[str] = []
    seen: set[str] = set()
    for chunk in evidence:
        where = chunk.location
        if where.memory_id:
            place = f"mem:{where.memory_id}"
        elif where.path and where.anchor and f"{where.path}#{where.anchor}" in relevant:
            place = f"{where.path}#{where.anchor}"  # a page, a cell, a BibTeX entry
        elif where.path:
            place = where.path
            first, last = where.start_line or 0, where.end_line or where.start_line or 0
            for start, end, judged in ranges.get(where.path, ()):
                if first <= end and start <= last:
                    place = judged
                    break
        else:
            place = chunk.id
        if place not in seen:
            seen.add(place)
            ranking.append(place)
    return ranking


def evaluate(
    router: RetrievalRouter,
    cases: list[GoldCase],
    k_values: list[int],
    progress: bool,
    chunk_lines: int | None = None,
    level: str = "chunk",
) -> dict[str, Any]:
    per_case, admission, degradations, routes = [], Counter(), Counter(), Counter()
    latency: dict[str, list[float]] = {"search": []}
    runs: list[tuple[str, list[str]]] = []
    for case in counted(cases, "evaluating", "query", "queries", progress):
        try:
            result = router.search(case.query, case.scope)
        except ArrError as exc:  # e.g. a judged query longer than the router's limit
            per_case.append(_failed_case(case, k_values, exc))
            continue
        if level == "file":
            ranking = judged_places(result.evidence, case.relevant)
        else:
            ranking = judged_ids(result.evidence, chunk_lines)
        leaks = sum(e.scope != case.scope for e in result.evidence)
        admission.update(r.code for r in result.rejections)
        degradations.update(d.code for d in result.degradations)
        rounds = result.plan.tool_rounds if result.plan else ()
        channels = "+".join(sorted({c.tool for r in rounds for c in r.calls})) or "none"
        routes[channels] += 1
        latency["search"].append(result.elapsed_ms)
        for trace in result.traces:
            if trace.status != "rejected":
                latency.setdefault(trace.tool, []).append(trace.elapsed_ms)
        per_case.append(_scored_case(case, ranking, k_values, leaks, channels, result))
        runs.append((case.id, ranking))
    aggregate = mean_metrics([c["metrics"] for c in per_case])
    aggregate["scope_leak_count"] = sum(c["scope_leak_count"] for c in per_case)
    aggregate["partial_results"] = sum(1 for c in per_case if c["partial"])
    aggregate["failed_queries"] = sum(1 for c in per_case if c.get("error"))
    return {
        "aggregate": aggregate,
        "per_case": per_case,
        "admission": dict(sorted(admission.items())),
        "degradations": dict(sorted(degradations.items())),
        # queries the Router refused before any channel ran (scored 0 in every metric)
        "failed": dict(
            sorted(Counter(c["error_code"] for c in per_case if c.get("error")).items())
        ),
        # queries per planned channel set: how often the planner routed lexical-only
        "routes": dict(sorted(routes.items())),
        "latency_ms": {k: percentiles(v) for k, v in latency.items()},
        "_runs": runs,
    }


def _run_cases(
    container: dict[str, Any], settings: dict[str, Any], report: dict[str, Any]
) -> list[tuple[str, list[str]]]:
    """Build the router and its indexes, run every gold case (and the approval replays), add
    the outcome to ``report``; the ranked ids per case, for run.trec."""
    k_values = sorted({int(k) for k in settings.get("k_values", [10])})
    if not k_values or k_values[0] < 1:
        raise EvalError(f"eval.k_values must be positive integers, got {k_values}")
    router = build_router(container)
    router.warm_up()
    router.watch_changes()  # many searches over trees nothing changes meanwhile
    workspace = build_workspace(container)
    if settings.get("build_indexes", True):
        report["indexes_built"] = ensure_indexes(router, workspace, bool(container.get("progress")))
    cases = load_cases(settings, router)
    level = settings.get("level", "chunk")
    if level not in ("chunk", "file"):
        raise EvalError(f"eval.level must be 'chunk' or 'file', got {level!r}")
    if settings.get("format", "arr") == "arr" and level == "chunk":
        check_known_ids(cases, workspace, str(settings["gold"]))
    progress = bool(container.get("progress", True))
    outcome = evaluate(router, cases, k_values, progress, workspace.chunk_lines, level)
    approvals = settings.get("approvals")
    if approvals:
        outcome["approvals"] = process_file(
            Path(approvals["proposals"]),
            approvals.get("decision", "deny"),
            Path(approvals["ledger"]),
        )
    runs = outcome.pop("_runs")
    router.close()
    report.update(outcome, cases=len(cases), k_values=k_values, status="ok")
    return runs  # type: ignore[no-any-return]


def _scored_case(
    case: GoldCase,
    ranking: list[str],
    k_values: list[int],
    leaks: int,
    channels: str,
    result: Any,
) -> dict[str, Any]:
    """One answered case: its metrics, what it returned and what it missed."""
    deepest = ranking[: max(k_values)]
    return {
        "id": case.id,
        "query": case.query,
        "scope": case.scope.label(),
        "metrics": query_metrics(ranking, case.relevant, k_values),
        "scope_leak_count": leaks,
        "partial": result.partial,
        "channels": channels,
        "elapsed_ms": result.elapsed_ms,
        "returned": len(ranking),
        "ranking": deepest,
        # judged relevant, not returned within the largest k
        "missed": sorted(d for d, g in case.relevant.items() if g > 0 and d not in deepest)[:20],
    }


def _failed_case(case: GoldCase, k_values: list[int], exc: Exception) -> dict[str, Any]:
    """A query the router refused: scored 0 on every metric and listed with its reason."""
    return {
        "id": case.id,
        "query": case.query[:300],
        "scope": case.scope.label(),
        "metrics": query_metrics([], case.relevant, k_values),
        "scope_leak_count": 0,
        "partial": False,
        "elapsed_ms": 0.0,
        "returned": 0,
        "ranking": [],
        "error": f"{type(exc).__name__}: {str(exc)[:300]}",
        "error_code": _failure_code(exc),
    }


def _failure_code(exc: Exception) -> str:
    from arr.errors import QueryError, ScopeError

    if isinstance(exc, QueryError):
        return codes.QUERY_INVALID  # e.g. longer than router.max_query_chars
    return codes.SCOPE_INVALID if isinstance(exc, ScopeError) else codes.QUERY_FAILED


def fusion_summary(config: object) -> dict[str, Any]:
    """The fusion stage of a run: its class name, its options, and where fitted values came
    from (``fitted_on``), for the report."""
    if not isinstance(config, dict):
        return {}
    target = str(config.get("_target_", ""))
    options = {k: v for k, v in config.items() if not k.startswith("_") and k != "fitted_on"}
    return {
        "method": target.rsplit(".", 1)[-1],
        "options": options,
        "fitted_on": config.get("fitted_on"),
    }


def run_eval(container: dict[str, Any], run_dir: Path, overrides: list[str]) -> dict[str, Any]:
    """The whole evaluation; report.json is written whatever happens."""
    started = time.time()
    settings = dict(container.get("eval") or {})
    report: dict[str, Any] = {
        "status": "running",
        "task": "eval",
        "eval": settings,
        "overrides": overrides,
        "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "versions": versions(),
        "git_commit": git_commit(Path(__file__).resolve().parents[2]),
        "tools": sorted((container.get("tools") or {}).keys()),
        # the fusion as configured, fitted values and what they were fitted on included
        "fusion": fusion_summary(container.get("fusion")),
    }
    try:
        runs = _run_cases(container, settings, report)
    except Exception as exc:  # the report must say what failed, whatever it was
        report.update(
            status="failed",
            error=f"{type(exc).__name__}: {exc}",
            traceback=traceback.format_exc(limit=8),
        )
        runs = []
    report["finished_at"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    report["duration_s"] = round(time.time() - started, 3)
    if report["status"] == "ok":
        write_reports(run_dir, report, runs)
    else:
        write_json(run_dir / "report.json", report)
    return report
