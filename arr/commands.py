"""What each ``arr`` command does once its config is composed (called by arr.cli).

Each takes the resolved config as a plain dict, the free-text arguments, the memory action and
the run folder; it prints results for the user and writes what it produced into the run folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arr.errors import ConfigError, MemoryStoreError
from arr.indexing import index_workspace
from arr.memory.store import ResearchMemoryStore
from arr.models import RouterResult, resolve_scope
from arr.render import render_result
from arr.runner import build_router, build_tools, build_workspace


def _scopes_to_index(container: dict[str, Any], named: dict[str, Any]) -> dict[str, Any]:
    scope = container.get("scope")
    if scope is None:
        return named
    return {scope: resolve_scope(scope, named)}


def run_index(
    container: dict[str, Any], texts: dict[str, str], action: str | None, run_dir: Path
) -> int:
    workspace = build_workspace(container)
    tools = build_tools(container, workspace)
    scopes = _scopes_to_index(container, workspace.named_scopes())
    (added, kept), reports = index_workspace(
        workspace, tools, scopes, progress=bool(container.get("progress", True))
    )
    print(f"memory store {workspace.memory_db}: {added} seeded, {kept} already present")
    for report in reports:
        status = f"FAILED: {report.error}" if report.error else f"{report.documents} documents"
        print(f"  {report.tool:<8} {report.scope:<14} {status}  ({report.elapsed_ms:.0f} ms)")
    summary = {"seeded": added, "kept": kept, "partitions": [vars(r) for r in reports]}
    (run_dir / "index.json").write_text(json.dumps(summary, indent=2))
    return 1 if any(r.error for r in reports) else 0


def _search_one(router: Any, query: str, scope_name: str) -> RouterResult:
    return router.search(query, router.resolve_scope(scope_name))


def run_search(
    container: dict[str, Any], texts: dict[str, str], action: str | None, run_dir: Path
) -> int:
    if "query" not in texts:
        raise ConfigError('query is required: arr search query="..." scope=<name>')
    router = build_router(container)
    if not container.get("scope"):
        raise ConfigError(
            f"scope is required: add scope=<name>; known scopes: {sorted(router.scopes)}"
        )
    router.warm_up()
    result = _search_one(router, texts["query"], container["scope"])
    payload = result.model_dump_json(indent=2)
    (run_dir / "result.json").write_text(payload)
    output = container.get("output", "text")
    if output not in ("text", "json"):
        raise ConfigError(f"output must be 'text' or 'json', got {output!r}")
    print(payload if output == "json" else render_result(result, container["scope"]))
    return 0


def run_demo(
    container: dict[str, Any], texts: dict[str, str], action: str | None, run_dir: Path
) -> int:
    code = run_index(container, texts, action, run_dir)
    router = build_router(container)
    router.warm_up()
    results = []
    for item in container.get("queries") or []:
        result = _search_one(router, item["query"], item["scope"])
        results.append(json.loads(result.model_dump_json()))
        print("\n" + "=" * 100)
        print(render_result(result, item["scope"], max_evidence=5))
    (run_dir / "results.json").write_text(json.dumps(results, indent=2))
    print(f"\nrun folder: {run_dir}")
    return code


def run_memory(
    container: dict[str, Any], texts: dict[str, str], action: str | None, run_dir: Path
) -> int:
    workspace = build_workspace(container)
    store = ResearchMemoryStore(workspace.memory_db)
    named = workspace.named_scopes()
    actor = str(container.get("actor") or "cli")
    if action == "list":
        scope = container.get("scope")
        if not workspace.memory_db.is_file():
            raise MemoryStoreError(
                f"memory database {str(workspace.memory_db)!r} does not exist;"
                " run arr index or arr memory add first"
            )
        status = container.get("status")
        if status not in (None, "draft", "published", "retracted"):
            raise ConfigError(f"status must be draft, published or retracted, got {status!r}")
        memories = store.list(resolve_scope(scope, named) if scope else None, status)
        for memory in memories:
            print(
                f"{memory.id:<20} {memory.status:<10} v{memory.version}  "
                f"{memory.scope.label():<60} {memory.title}"
            )
        print(f"{len(memories)} memories")
        return 0
    if "id" not in texts:
        raise ConfigError(f"memory {action} needs id=<memory id>")
    if action == "add":
        missing = [k for k in ("title", "body") if not texts.get(k)]
        if missing or not container.get("scope"):
            raise ConfigError(
                "memory add needs id=, scope=, title= and body= "
                f"(missing: {', '.join(missing + ([] if container.get('scope') else ['scope']))})"
            )
        tags = tuple(t.strip() for t in texts.get("tags", "").split(",") if t.strip())
        try:
            memory = store.add_draft(
                texts["id"],
                resolve_scope(container["scope"], named),
                texts["title"],
                texts["body"],
                tags,
                "cli",
                actor=actor,
            )
        except ValueError as exc:  # pydantic validation of id/title/body
            raise MemoryStoreError(f"invalid memory: {str(exc).splitlines()[0]}") from None
    else:
        memory = store.transition(texts["id"], str(action), actor=actor)
    assert memory is not None
    print(f"{memory.id}: {memory.status} (version {memory.version})")
    return 0


def run_eval(
    container: dict[str, Any], texts: dict[str, str], action: str | None, run_dir: Path
) -> int:
    from hydra.core.hydra_config import HydraConfig

    from arr.eval.runner import run_eval as evaluate

    overrides = list(HydraConfig.get().overrides.task)
    report = evaluate(container, run_dir, overrides)
    if report["status"] != "ok":
        print(f"arr: eval failed: {report.get('error')} (report: {run_dir / 'report.json'})")
        return 1
    agg = report["aggregate"]
    shown = ", ".join(
        f"{k} {agg[k]:.4f}"
        for k in ("ndcg@10", "recall@10", "mrr@10", "map", "recall@100")
        if k in agg
    )
    print(
        f"{report['eval'].get('name')}: {report['cases']} queries, {shown}, scope leaks "
        f"{agg['scope_leak_count']}, p50 {report['latency_ms']['search']['p50']:.1f} ms"
    )
    print(f"report: {run_dir / 'report.md'}")
    return 0


def _key_values(args: list[str], allowed: tuple[str, ...]) -> tuple[list[str], dict[str, str]]:
    positional, options = [], {}
    for arg in args:
        key, sep, value = arg.partition("=")
        if sep and key in allowed:
            options[key] = value
        elif sep:
            raise ConfigError(f"unknown option {key!r}; valid: {', '.join(allowed)}")
        else:
            positional.append(arg)
    return positional, options


def run_plain(command: str, args: list[str]) -> int:
    """Commands that are not Hydra apps: ``report``, ``audit`` and ``replay``."""
    if command == "replay":
        from arr.llm.scenarios import run

        return run(args)
    if command == "report":
        from arr.eval.compare import compare

        positional, options = _key_values(args, ("baseline",))
        if len(positional) != 1:
            raise ConfigError("usage: arr report <multirun folder> [baseline=<job>]")
        compare(Path(positional[0]), options.get("baseline"))
        print((Path(positional[0]) / "comparison.md").read_text())
        return 0
    from arr.approval import verify_chain

    positional, options = _key_values(args, ("db",))
    if positional != ["verify"]:
        raise ConfigError("usage: arr audit verify [db=<approvals database>]")
    from arr.api import PROJECT_ROOT

    db = Path(options.get("db", PROJECT_ROOT / "outputs" / "approvals.sqlite3"))
    count = verify_chain(db)
    print(f"audit chain ok: {count} receipts in {db}")
    return 0
