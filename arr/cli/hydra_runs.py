"""The ``arr`` command as a Hydra app: one job or a sweep (``-m``), each job's run folder with
its resolved config and status, the sweep's outcome, and shell completion through Hydra."""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arr import atomic_write
from arr.cli.arguments import COMMANDS, PLAIN_COMMANDS
from arr.cli.failures import guarded
from arr.errors import ArrError, ConfigError

JOB_STATUS = "job_status.json"


def command_runner(command: str) -> Callable[..., int]:
    from arr.cli.commands import RUNNERS

    return RUNNERS[command]


def complete_query() -> int:
    """Bash asks the installed completion (``arr <command> --shell-completion install=bash``)
    for candidates as ``arr -sc query=bash`` with the line typed so far in COMP_LINE: the
    command is taken off the line and Hydra completes that command's overrides."""
    line = os.environ.get("COMP_LINE", "")
    words = line.split()
    if len(words) < 2 or words[1] not in COMMANDS or words[1] in PLAIN_COMMANDS:
        print(" ".join(c for c in COMMANDS if not words[1:] or c.startswith(words[-1])))
        return 0
    command = words[1]
    start = line.find(command, len(words[0]))
    os.environ["COMP_LINE"] = words[0] + line[start + len(command) :]
    point = int(os.environ.get("COMP_POINT", len(line)) or len(line))
    os.environ["COMP_POINT"] = str(max(len(words[0]), point - len(command) - 1))
    try:
        return run_hydra(command, lambda cfg: 0, ["--shell-completion", "query=bash"], True)
    except ArrError:
        return 0  # no candidates, never an error inside the user's shell


def run_hydra(
    command: str, task: Callable[[Any], int], overrides: list[str], quiet_exit: bool = False
) -> int:
    import hydra

    from arr.compose.library import CONF_DIR, register_resolvers, searchpath_override

    register_resolvers()
    outcome: dict[str, int] = {}

    def job(cfg: Any) -> None:
        try:
            code = guarded(task, cfg)
        except BrokenPipeError:  # the reader went away: quiet, conventional status
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            code = 141
        outcome["code"] = max(outcome.get("code", 0), code)

    app = hydra.main(config_path=str(CONF_DIR), config_name=command, version_base="1.3")(job)
    saved = sys.argv
    # Flags last (an optional-value flag such as --info must not swallow an override).
    sys.argv = [f"arr-{command}", searchpath_override(), *overrides]
    if overrides[:1] == ["--shell-completion"]:  # its subcommand must follow it directly;
        # the script completes `arr`, and asks `arr -sc query=bash` (see complete_query)
        sys.argv = ["arr", *overrides, searchpath_override()]
    started = time.time()
    # Hydra's own failures (saving the run's config on a full disk) come back to us as
    # exceptions, named in one line by _main, instead of a traceback printed by Hydra; a log
    # handler that cannot write drops the record instead of printing "--- Logging error ---".
    previous_full_error = os.environ.get("HYDRA_FULL_ERROR")
    os.environ["HYDRA_FULL_ERROR"] = "1"
    logging.raiseExceptions = False
    try:
        app()
    except Exception as exc:  # an OSError (full disk) is re-raised for _main to name
        from hydra.errors import HydraException
        from omegaconf.errors import OmegaConfBaseException

        if isinstance(exc, HydraException | OmegaConfBaseException):
            raise ConfigError(" ".join(str(exc).split())[:1000]) from None
        raise
    finally:
        sys.argv = saved
        if previous_full_error is None:
            os.environ.pop("HYDRA_FULL_ERROR", None)
        else:
            os.environ["HYDRA_FULL_ERROR"] = previous_full_error
    if any(o in ("-m", "--multirun") for o in overrides):
        swept = _sweep_outcome(overrides, command, started)
        if swept is not None:
            return swept
    return outcome.get("code", 0 if quiet_exit else 1)


def _sweep_outcome(overrides: list[str], command: str, started: float) -> int | None:
    """0 when every job of the sweep this process launched succeeded; otherwise the worst
    code, naming the failed jobs. None when the sweep folder cannot be found."""
    output = next((o.split("=", 1)[1] for o in overrides if o.startswith("paths.output_dir=")), "")
    folder = Path(output.strip("'\"")) / command / "multiruns"
    sweeps = [p for p in folder.glob("*") if p.is_dir() and p.stat().st_mtime >= started - 1]
    if not sweeps:
        return None
    sweep = max(sweeps, key=lambda p: p.stat().st_mtime)
    jobs = sorted(
        (p for p in sweep.iterdir() if p.is_dir() and p.name.isdigit()), key=lambda p: int(p.name)
    )
    codes = {}
    for job in jobs:
        try:
            codes[job.name] = int(json.loads((job / JOB_STATUS).read_text())["code"])
        except (OSError, ValueError, KeyError, TypeError):
            codes[job.name] = 1  # no status: the job did not finish
    failed = [name for name, code in codes.items() if code != 0]
    if failed:
        print(f"arr: error: sweep {sweep}: jobs {', '.join(failed)} failed", file=sys.stderr)
        return max(codes.values())
    return 0


def _run_dir() -> Path:
    from hydra.core.hydra_config import HydraConfig

    return Path(HydraConfig.get().runtime.output_dir)


def dispatch(command: str, action: str | None, texts: dict[str, str], cfg: Any) -> int:
    from arr.compose.library import register_resolvers
    from arr.compose.runner import config_container

    register_resolvers()  # a launcher's worker process resolves the config here

    container = config_container(cfg)
    run_dir = _run_dir()
    atomic_write.write_text(
        run_dir / "config.resolved.json", json.dumps(container, indent=2, default=str)
    )
    code = int(command_runner(command)(container, texts, action, run_dir))
    # A sweep's parent process learns each job's outcome from this file, whatever the launcher
    # (joblib and SLURM jobs run in other processes).
    atomic_write.write_text(run_dir / JOB_STATUS, json.dumps({"code": code}))
    return code
