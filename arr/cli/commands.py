"""What each ``arr`` command does once its config is composed (called by arr.cli).

Each takes the resolved config as a plain dict, the free-text arguments, the memory action and
the run folder; it prints results for the user and writes what it produced into the run folder.
"""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arr import atomic_write, codes
from arr.cli import skip_list
from arr.cli.default_scope import default_scope
from arr.cli.output import as_json as _as_json
from arr.cli.output import emit as _emit
from arr.cli.render import file_locator, render_result
from arr.compose.runner import build_router, build_tools, build_workspace
from arr.errors import ConfigError, whole_number
from arr.models import RouterResult, resolve_scope
from arr.tools.contract import workspace_of
from arr.workspace.opening import add_openings, scope_roots

if TYPE_CHECKING:
    from arr.router.router import RetrievalRouter


def _scopes_to_index(container: dict[str, Any], named: dict[str, Any]) -> dict[str, Any]:
    scope = container.get("scope")
    if scope is None:
        return named
    return {scope: resolve_scope(scope, named)}


def run_index(
    container: dict[str, Any], texts: dict[str, str], action: str | None, run_dir: Path
) -> int:
    as_json = _as_json(container)
    summary, reports, skips, memory_db = _indexed(container, run_dir, as_json)
    if as_json:
        _emit({**summary, "memory_db": str(memory_db), "run_dir": str(run_dir)})
    else:
        seeded = f"{summary['seeded']} seeded, {summary['kept']} already present"
        print(f"memory store {memory_db}: {seeded}")
        _print_reports(reports, skips, run_dir)
    return _status(reports)


def _status(reports: list[Any]) -> int:
    """1 when a partition failed (the others were built), else 0."""
    return 1 if any(r.error for r in reports) else 0


def _indexed(
    container: dict[str, Any], run_dir: Path, quiet: bool
) -> tuple[dict[str, Any], list[Any], dict[str, Any], Path]:
    """``arr index``'s work: every partition built, the skip list kept, ``index.json`` written;
    (its summary, the partitions' reports, the skipped files by scope, the memory store).
    ``quiet``: the "lexical channels ready" line not said (JSON output)."""
    workspace = build_workspace(container)
    tools = build_tools(container, workspace)
    scopes = _scopes_to_index(container, workspace.named_scopes())
    lexical_only = container.get("lexical", False)
    if not isinstance(lexical_only, bool):
        raise ConfigError(f"lexical must be true or false, got {lexical_only!r:.40}")
    ready: dict[str, Any] = {}

    def lexical_ready(seconds: float, channels: list[str]) -> None:
        ready.update(lexical_ready_s=round(seconds, 2), lexical_channels=channels)
        if not quiet:  # said as it happens: searches can start while vectors are embedded
            print(
                f"lexical channels ready in {seconds:.1f} s ({', '.join(channels) or 'none'}): "
                "arr search answers now; the vector index follows (a search meanwhile uses "
                "what is embedded so far, says how far the build is, and is marked partial)",
                flush=True,
            )

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    # the indexing stack imported here, not with the module: a search never pays for it
    from arr.compose.indexing import index_workspace
    from arr.tools.index_run import one_index_run

    with one_index_run(workspace.index_dir, say):  # a second arr index says it waits
        (added, kept), reports = index_workspace(
            workspace,
            tools,
            scopes,
            progress=bool(container.get("progress", True)),
            rebuild=bool(container.get("rebuild", False)),
            lexical_only=lexical_only,
            on_lexical_ready=lexical_ready,
        )
    _refuse_full_disk(reports, workspace.index_dir)
    skips = {
        scope: skip_list.merged(f for r in reports if r.scope == scope for f in r.skipped_files)
        for scope in sorted({r.scope for r in reports if r.scope != "*"})
    }
    with contextlib.suppress(OSError):  # a read-only state folder: the run folder has it all
        skip_list.write(workspace.memory_db.parent, skips)
    summary = {
        "seeded": added,
        "kept": kept,
        **ready,
        "partitions": [vars(r) for r in reports],
        "skipped_files": {
            scope: [{"path": p, "reason": r, "detail": d} for p, r, d in rows]
            for scope, rows in skips.items()
        },
    }
    atomic_write.write_text(run_dir / "index.json", json.dumps(summary, indent=2, default=str))
    return summary, reports, skips, workspace.memory_db


def _refuse_full_disk(reports: list[Any], index_dir: Path) -> None:
    """One disk_full line (text and JSON), not a FAILED line per partition."""
    full = [r for r in reports if r.code == codes.DISK_FULL]
    if full:
        from arr.errors import DiskFull

        where = ", ".join(f"{r.tool}:{r.scope}" for r in full)
        raise DiskFull(
            f"disk full while indexing {where} ({full[0].error[:160]}); the indexes keep what "
            f"they had - free space in {index_dir} and run arr index again"
        )


def _print_reports(
    reports: list[Any], skips: dict[str, list[tuple[str, str, str]]], run_dir: Path
) -> None:
    """Each partition's line, then the skipped files (ten, then where the rest are)."""
    for report in reports:
        status = f"FAILED: {report.error}" if report.error else covered(report)
        skipped = ", ".join(f"{k} {v}" for k, v in report.skipped.items())
        status += f"; skipped: {skipped}" if skipped else ""
        if report.repaired:  # an index that could not be read, rebuilt by this run
            status += f"; repaired: unreadable ({report.repaired[:120]}), rebuilt from sources"
        print(f"  {report.tool:<8} {report.scope:<14} {status}  ({report.elapsed_ms:.0f} ms)")
    if not any(skips.values()):
        return
    total = sum(len(rows) for rows in skips.values())
    print(f"skipped files ({total}; each file once, whatever channels met it):")
    shown = 0
    for scope, rows in sorted(skips.items()):
        for line in skip_list.table(rows, max(0, skip_list.SHOWN - shown)):
            print(f"  {scope}:{line.lstrip()}" if len(skips) > 1 else line)
        shown += min(len(rows), max(0, skip_list.SHOWN - shown))
    if total > shown:
        print(f"  ... and {total - shown} more: arr skipped (or {run_dir / 'index.json'})")


def covered(report: Any) -> str:
    """What a partition covers, in a researcher's words."""
    if report.tool == "grep":
        readers = report.reader_files or 0
        papers = f" and {readers} papers/notebooks/manuscripts in their text" if readers else ""
        return f"searches {report.documents} text files{papers}"
    if report.tool == "memory":
        return f"{report.documents} memories"
    return f"{report.documents} passages"


def for_disk(result: RouterResult) -> dict[str, Any]:
    """The result as written into a run folder: a credential-shaped span of the query (or of
    a planned call's query) is ``[REDACTED]`` there (snippets already are, by the Router); a
    pasted token must not outlive the command in a file. The answer printed keeps it."""
    from arr.safety.rules import redact_credentials

    def scrub(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: redact_credentials(v)[0] if k == "query" and isinstance(v, str) else scrub(v)
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [scrub(v) for v in value]
        return value

    return scrub(json.loads(result.model_dump_json()))


def _search_one(router: RetrievalRouter, query: str, scope_name: str) -> RouterResult:
    return router.search(query, router.resolve_scope(scope_name))


def run_search(
    container: dict[str, Any], texts: dict[str, str], action: str | None, run_dir: Path
) -> int:
    if "query" not in texts:
        raise ConfigError('query is required: arr search query="..." scope=<name>')
    router = build_router(container)
    router.warm_up()
    disk, shown = search_answer(router, container, texts)
    atomic_write.write_text(run_dir / "result.json", json.dumps(disk, indent=2))
    print(shown)
    return 0


def chosen_scope(router: RetrievalRouter, container: dict[str, Any]) -> str:
    """The scope a search runs on: the one named, else the workspace's default."""
    named = container.get("scope")
    return named or default_scope(workspace_of(router.tools), sorted(router.scopes))


def search_answer(
    router: RetrievalRouter, container: dict[str, Any], texts: dict[str, str]
) -> tuple[dict[str, Any], str]:
    """One search on a ready router: the result as a run folder keeps it, and the text printed
    (JSON or the rendered answer, before the terminal's escaping). ``arr search`` and a running
    ``arr serve`` answering the CLI (arr.cli.door) print the same answer."""
    scope = chosen_scope(router, container)
    top_k = container.get("top_k")
    if top_k is not None:
        top_k = whole_number("top_k", top_k, 1, MAX_TOP_K)
    result = _search_one(router, texts["query"], scope)
    if top_k is not None:
        result = result.model_copy(update={"evidence": result.evidence[:top_k]})
    roots = scope_roots(workspace_of(router.tools), result.scope)
    if _as_json(container):  # the caller may see its own query; each place as it opens
        answer = json.loads(result.model_dump_json())
        add_openings(answer, list(result.evidence), roots, texts["query"])
        return for_disk(result), json.dumps(answer, indent=2, ensure_ascii=False)
    locate = file_locator(roots, query=texts["query"]) if roots else None
    verbose = bool(container.get("verbose"))
    return for_disk(result), render_result(result, scope, top_k or 10, 96, locate, verbose)


MAX_TOP_K = 1000


def run_demo(
    container: dict[str, Any], texts: dict[str, str], action: str | None, run_dir: Path
) -> int:
    as_json = _as_json(container)
    if as_json:  # one object: the index's summary goes into it, not out on its own
        index, reports, _, _ = _indexed(container, run_dir, quiet=True)
        code = _status(reports)
    else:
        code = run_index(container, texts, action, run_dir)
    router = build_router(container)
    router.warm_up()
    results = []
    for item in container.get("queries") or []:
        result = _search_one(router, item["query"], item["scope"])
        results.append(for_disk(result))
        if not as_json:
            print("\n" + "=" * 100)
            print(render_result(result, item["scope"], max_evidence=5))
    atomic_write.write_text(run_dir / "results.json", json.dumps(results, indent=2))
    if as_json:
        _emit({"index": index, "results": results, "run_dir": str(run_dir)})
    else:
        print(f"\nrun folder: {run_dir}")
    return code


def run_eval(
    container: dict[str, Any], texts: dict[str, str], action: str | None, run_dir: Path
) -> int:
    from hydra.core.hydra_config import HydraConfig

    from arr.eval.runner import run_eval as evaluate

    overrides = list(HydraConfig.get().overrides.task)
    as_json = _as_json(container)
    report = evaluate(container, run_dir, overrides)
    if report["status"] != "ok":
        message = f"eval failed: {report.get('error')} (report: {run_dir / 'report.json'})"
        if as_json:
            _emit({"error": {"code": codes.EVAL_FAILED, "message": message}})
        else:
            print(f"arr: {message}")
        return 1
    agg = report["aggregate"]
    if as_json:
        _emit(
            {
                "eval": report["eval"].get("name"),
                "cases": report["cases"],
                "failed": report.get("failed", {}),
                "aggregate": agg,
                "latency_ms": report["latency_ms"],
                "report": str(run_dir / "report.json"),
            }
        )
        return 0
    shown = ", ".join(
        f"{k} {agg[k]:.4f}"
        for k in ("ndcg@10", "recall@10", "mrr@10", "map", "recall@100")
        if k in agg
    )
    from arr.eval.report import failed_text

    print(
        f"{report['eval'].get('name')}: {report['cases']} queries ({failed_text(report)}), "
        f"{shown}, scope leaks "
        f"{agg['scope_leak_count']}, p50 {report['latency_ms']['search']['p50']:.1f} ms"
    )
    print(f"report: {run_dir / 'report.md'}")
    return 0


def run_memory(
    container: dict[str, Any], texts: dict[str, str], action: str | None, run_dir: Path
) -> int:
    """arr memory (arr.cli.memory_command), imported when asked: a search never needs it."""
    from arr.cli.memory_command import run_memory as run

    return run(container, texts, action, run_dir)


# The Hydra apps, by what they do: build (index), answer (search, demo), keep (memory),
# measure (eval). One table: a command that is not here has no runner.
RUNNERS = {
    "index": run_index,
    "search": run_search,
    "demo": run_demo,
    "memory": run_memory,
    "eval": run_eval,
}
