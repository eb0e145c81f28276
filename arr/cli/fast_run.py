"""A single ``arr search`` without Hydra's app machinery (cold start): the config comes from the
compose cache (or one compose) and the run folder and its log are made here, with the same
layout and files as a Hydra run."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from arr import atomic_write
from arr.cli.failures import guarded
from arr.cli.hydra_runs import command_runner
from arr.errors import ArrError, whole_number


def run_fast(
    command: str,
    action: str | None,
    texts: dict[str, str],
    given: list[str],
    workspace: str | None,
) -> int:
    """A single search without Hydra's app machinery: the config comes from the compose cache
    (or one compose), the run folder and its log are made here. Same folder layout and files
    (config.resolved.json, <task>.log, result.json) as a Hydra run; sweeps use Hydra."""
    container = composed(command, given, workspace)
    keep = None
    if command == "search":
        from arr.cli.run_folders import MAX_KEEP

        keep = whole_number("keep_runs", container.get("keep_runs", 20), 0, MAX_KEEP)
    run_dir = new_run_dir(container, command)
    handler = logging.FileHandler(run_dir / f"{container.get('task_name', command)}.log")
    handler.setFormatter(logging.Formatter("[%(asctime)s][%(name)s][%(levelname)s] %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        atomic_write.write_text(
            run_dir / "config.resolved.json", json.dumps(container, indent=2, default=str)
        )
        return guarded(lambda c: _served_or_here(command, c, texts, action, run_dir), container)
    finally:
        root.removeHandler(handler)
        handler.close()
        if keep is not None:
            from arr.cli.run_folders import prune

            prune(run_dir, keep)


def _served_or_here(
    command: str,
    container: dict[str, Any],
    texts: dict[str, str],
    action: str | None,
    run_dir: Path,
) -> int:
    """A search that a running ``arr serve`` over this workspace answers (arr.cli.door): its
    result kept and printed as a search here would; else the command runs here."""
    if command == "search":
        from arr.cli import door

        served = door.ask(container, texts)
        if served is not None:
            atomic_write.write_text(run_dir / "result.json", json.dumps(served["result"], indent=2))
            logging.getLogger("arr.cli").info("answered by arr serve (pid %s)", served.get("pid"))
            print(served["shown"])
            return 0
    return command_runner(command)(container, texts, action, run_dir)


def composed(command: str, given: list[str], workspace: str | None) -> dict[str, Any]:
    """The resolved config of ``command`` with ``given`` overrides, from the compose cache."""
    from arr.cli import compose_cache
    from arr.workspace.locations import resolve_workspace, workspace_overrides

    found = resolve_workspace(workspace)
    overrides = [*given, *workspace_overrides(found, given)]
    key = compose_cache.cache_key(command, overrides, found)
    directory = compose_cache.cache_dir(found)
    container = compose_cache.load(directory, key) if key else None
    if container is None:
        from arr.compose.library import compose
        from arr.compose.runner import config_container

        container = config_container(compose(command, overrides, resolved=True))
        if key:
            compose_cache.store(directory, key, container)
    return container


def new_run_dir(container: dict[str, Any], command: str) -> Path:
    from datetime import datetime

    output = Path(str((container.get("paths") or {}).get("output_dir") or "outputs"))
    stamp = datetime.now().strftime("%Y-%m-%d_%H-%M-%S-%f")
    run_dir = output / str(container.get("task_name", command)) / "runs" / stamp
    try:
        run_dir.mkdir(parents=True, exist_ok=False)
    except OSError as exc:
        raise ArrError(f"cannot create the run folder {str(run_dir)!r}: {exc.strerror}") from None
    return run_dir
