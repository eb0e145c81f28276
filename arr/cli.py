"""The ``arr`` command: demo, index, search and memory, each a Hydra app over ``conf/``.

Free-text values (``query=``, ``title=``, ``body=``, ``tags=``, ``id=``) are taken out of the
argument list before Hydra sees it, so a query may contain ``:``, ``,``, quotes or ``${...}``
without being parsed as override syntax or resolved as an interpolation. Everything else is a
Hydra override (``fusion.norm=zmuv tools=[bm25]``; ``-m`` for sweeps). Errors are one
line on stderr (``arr: error: ...``) with exit code 2; no traceback reaches the user.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arr import atomic_write
from arr.errors import ArrError, ConfigError, is_disk_full, whole_number
from arr.terminal import TerminalSafeStream, terminal_safe

COMMANDS = (
    "serve",
    "init",
    "scope",
    "demo",
    "index",
    "search",
    "memory",
    "eval",
    "report",
    "audit",
    "replay",
)
# Single runs of these skip Hydra's app machinery (cold start); sweeps and flags use Hydra.
FAST_COMMANDS = ("search",)
PLAIN_COMMANDS = ("init", "scope", "report", "audit", "replay")
MEMORY_ACTIONS = ("add", "publish", "retract", "list", "show", "export", "import")
FREE_TEXT_KEYS = ("query", "title", "body", "tags", "id", "file")
USAGE = """usage: arr [--workspace PATH] <command> [key=value ...] [hydra overrides ...]

Every command uses the workspace found from the current directory upward (a folder holding
.arr/workspace.yaml), or --workspace PATH / $ARR_WORKSPACE; with none, the bundled demo.

your own workspace:
  init [name=N] [team_id=T] [project_id=P] [experiment_environment=E]
                             make this folder a workspace (.arr/workspace.yaml)
  scope add NAME PATH [PATH ...] [team_id=..] [project_id=..] [repository=..] [branch=..]
            [experiment_environment=..]
                             add a scope with its trusted roots (ScopeKey defaults: README)
  scope list [--json] | scope remove NAME

agents:
  serve [--scope NAME ...] [--http [--host 127.0.0.1] [--port 8765]] [--warm] [overrides]
                             MCP server (stdio by default) over one warm router; --scope pins
                             the scopes it answers for; --warm loads the vector model at start

commands:
  demo                       index the demo workspace and answer its demo queries
  index [scope=NAME] [rebuild=true] [--lexical]
                             bring indexes up to date (incremental; rebuild=true: from scratch);
                             lexical channels first, then vectors; --lexical: no vectors
  search query=TEXT scope=NAME [top_k=N] [--json]
                             answer one query (--json: the full RouterResult)
  memory add id=ID scope=NAME title=TEXT body=TEXT [tags=a,b]
  memory publish id=ID | memory retract id=ID | memory list [scope=NAME] [status=S]
  memory show id=ID | memory export file=OUT.jsonl | memory import file=IN.jsonl
  eval [eval=demo|scifact] [-m sweep overrides]
                             run a gold set, write report.json/.md/.html and run.trec
  --json (index, search, memory, eval, scope list): one JSON object on stdout, errors too
  report FOLDER [baseline=JOB]
                             compare the jobs of a sweep (multirun folder)
  audit verify [db=PATH] [head=HASH]
                             check the memory audit and approvals chains (read-only)
  audit head [db=PATH]       print each chain's head hash (keep it to detect truncation)
  replay [file=JSONL] [versions=v1,v2] [overrides]
                             replay controlled LLM scenarios against a local fake endpoint

Any Hydra override works: tools=[bm25] fusion.norm=zmuv pipeline=bm25_only ...
"""
log = logging.getLogger("arr.cli")
JOB_STATUS = "job_status.json"


_OVERRIDE_SHAPE = re.compile(r"^[+~]{0,2}[A-Za-z_][\w.@/-]*(\[[^\]]*\])?=")


def _is_bare(arg: str) -> bool:
    """An argument that is neither a flag nor ``key=value``: ``arr search QUERY`` takes it as
    the query, ``arr memory show ID`` as the id (``query=...`` still works, and is needed for
    a query that starts like ``lr=3e-4``)."""
    return not arg.startswith("-") and _OVERRIDE_SHAPE.match(arg) is None


def split_arguments(args: list[str]) -> tuple[dict[str, str], list[str]]:
    texts: dict[str, str] = {}
    overrides = []
    for arg in args:
        key, sep, value = arg.partition("=")
        if sep and key in FREE_TEXT_KEYS:
            texts[key] = value
        elif arg == "--json":
            overrides.append("output=json")
        else:
            overrides.append(arg)
    return texts, overrides


# Hydra's own flags, and those of them that take a value.
_HYDRA_VALUE_FLAGS = (
    "--cfg",
    "-c",
    "--package",
    "-p",
    "--info",
    "-i",
    "--config-dir",
    "-cd",
    "--config-name",
    "-cn",
    "--shell-completion",
    "-sc",
)
_HYDRA_BARE_FLAGS = ("--resolve", "--hydra-help", "-m", "--multirun", "--run", "-r")
_OPTIONAL_VALUE = ("--info", "-i", "--shell-completion", "-sc")


def hydra_flags(args: list[str]) -> tuple[list[str], list[str]]:
    """Split Hydra's command-line flags (kept for Hydra) from overrides (checked first)."""
    flags: list[str] = []
    plain: list[str] = []
    iterator = iter(range(len(args)))
    for index in iterator:
        arg = args[index]
        if arg in _HYDRA_BARE_FLAGS:
            flags.append(arg)
        elif arg in _HYDRA_VALUE_FLAGS:
            flags.append(arg)
            following = args[index + 1] if index + 1 < len(args) else None
            takes = following is not None and (
                arg not in _OPTIONAL_VALUE
                or ("=" not in following and not following.startswith("-"))
                or (
                    arg in ("--shell-completion", "-sc")
                    and following.startswith(("install=", "uninstall=", "query="))
                )
            )
            if takes:
                flags.append(str(following))
                next(iterator, None)
        else:
            plain.append(arg)
    return flags, plain


def take_workspace_flag(args: list[str]) -> tuple[str | None, list[str]]:
    """``--workspace PATH`` / ``--workspace=PATH`` anywhere before a free-text value."""
    rest: list[str] = []
    workspace = None
    iterator = iter(args)
    for arg in iterator:
        if arg == "--workspace":
            workspace = next(iterator, None)
            if workspace is None:
                raise ArrError("--workspace needs a path")
        elif arg.startswith("--workspace="):
            workspace = arg.partition("=")[2]
        else:
            rest.append(arg)
    return workspace, rest


JSON_ERRORS = {"on": False}  # set when --json is given: errors become JSON on stdout


def error_kind(exc: BaseException) -> str:
    """``ScopeError`` -> ``scope_error``: the code of a JSON error."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(exc).__name__).lower()


def fail(message: str, code: int = 2, kind: str | None = None) -> int:
    if JSON_ERRORS["on"]:
        kind = kind or ("internal_error" if code == 1 else "error")
        print(json.dumps({"error": {"code": kind, "message": message}}))
    else:
        print(f"arr: error: {terminal_safe(message)}", file=sys.stderr)
    return code


def main(argv: list[str] | None = None) -> int:
    """The entry point: a closed stdout pipe (``arr search ... | head -1``) ends the command
    quietly with the conventional status 141 (128 + SIGPIPE)."""
    args = list(sys.argv[1:] if argv is None else argv)
    stdout = sys.stdout
    # A log file on a full disk must not print logging's own tracebacks on the terminal: the
    # failure that matters reaches the user as one line (fail), the log is best effort.
    logging.raiseExceptions = False
    # Text output escapes terminal controls (an ESC in a memory title or an indexed file must
    # not retitle or clear the user's terminal); JSON output and the MCP protocol stay exact.
    if not {"--json", "output=json"} & set(args) and "serve" not in args[:3]:
        sys.stdout = TerminalSafeStream(stdout)  # type: ignore[assignment]
    try:
        code = _main(args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # Python would complain again when it flushes stdout at exit: point it at devnull.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stdout.fileno())
        return 141
    finally:
        sys.stdout = stdout


def version_text() -> str:
    import importlib.metadata as metadata

    from arr import __version__

    lines = [f"arr {__version__}"]
    for name in (
        "bm25s",
        "chromadb",
        "onnxruntime",
        "sentence-transformers",
        "torch",
        "hydra-core",
        "pydantic",
        "ripgrep",
        "mcp",
    ):
        try:
            lines.append(f"  {name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            lines.append(f"  {name} (not installed)")
    return "\n".join(lines)


def command_help(command: str) -> str:
    """``arr <command> --help``: the usage lines of that command and the config groups."""
    from arr.locations import CONF_DIR

    lines = [line for line in USAGE.splitlines() if line.strip().startswith(command + " ")]
    groups = sorted(p.name for p in CONF_DIR.iterdir() if p.is_dir() and p.name not in ("hydra",))
    options = {g: sorted(f.stem for f in (CONF_DIR / g).glob("*.yaml")) for g in groups}
    text = [f"usage: arr {command} ...", *lines, "", "config groups (override with group=option):"]
    text += [f"  {g}: {', '.join(o)}" for g, o in options.items() if o]
    text += ["", "any key can be overridden: fusion.norm=zmuv router.max_calls=6 ..."]
    return "\n".join(text)


def _main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    # The console is for results: no model-loading progress bars or library chatter.
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    args = list(sys.argv[1:] if argv is None else argv)
    JSON_ERRORS["on"] = "--json" in args
    try:
        workspace, args = take_workspace_flag(args)
    except ArrError as exc:
        return fail(str(exc), kind=error_kind(exc))
    if not args or args[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0 if args else 2
    if args[0] in ("--version", "-V", "version"):
        print(version_text())
        return 0
    if args[0] in ("--shell-completion", "-sc") and args[1:2] == ["query=bash"]:
        return _complete_query()
    command, rest = args[0], args[1:]
    if command not in COMMANDS:
        return fail(f"unknown command {command[:80]!r}; valid commands: {', '.join(COMMANDS)}")
    if "--help" in rest or "-h" in rest:
        print(command_help(command))
        return 0
    if command in PLAIN_COMMANDS:
        try:
            from arr.commands import run_plain

            return run_plain(command, rest, workspace)
        except ArrError as exc:
            return fail(str(exc), kind=error_kind(exc))
    if command == "serve":
        try:
            return _run_serve(rest, workspace)
        except ArrError as exc:
            return fail(str(exc), kind=error_kind(exc))
    action = None
    if command == "memory":
        if not rest or rest[0] not in MEMORY_ACTIONS:
            return fail(f"memory needs an action: {', '.join(MEMORY_ACTIONS)}")
        action, rest = rest[0], rest[1:]
        # `arr memory show ID` (also publish/retract): a first bare word is the id
        if action in ("show", "publish", "retract") and rest and _is_bare(rest[0]):
            rest = [f"id={rest[0]}", *rest[1:]]
    if command == "index" and "--lexical" in rest:  # the quick start: no embedding at all
        rest = [("lexical=true" if a == "--lexical" else a) for a in rest]
    if command == "search" and rest and _is_bare(rest[0]):
        rest = [f"query={rest[0]}", *rest[1:]]  # `arr search "why did the loss spike"`
    texts, overrides = split_arguments(rest)
    multirun = any(o in ("-m", "--multirun") for o in overrides)
    try:
        from arr.api import refuse_added_keys

        refuse_added_keys(overrides)  # also before the compose cache could answer
        if (
            command in FAST_COMMANDS
            and not multirun
            and not any(o.startswith("-") for o in overrides)
        ):
            return _run_fast(command, action, texts, overrides, workspace)
        from arr.api import compose, full_overrides

        flags, plain = hydra_flags(overrides)
        if "--hydra-help" in flags:  # Hydra's own help composes none of arr's config
            return _run_hydra(command, lambda cfg: 0, ["--hydra-help"], quiet_exit=True)
        overrides = full_overrides(plain, workspace)
        if not multirun:
            # one-line error for a bad override, before any run
            compose(command, overrides, resolved=True)
        completion = next(
            (i for i, f in enumerate(flags) if f in ("--shell-completion", "-sc")), None
        )
        if completion is not None and not any(
            f.startswith(("install=", "uninstall=", "query=")) for f in flags[completion + 1 :]
        ):
            raise ConfigError(
                f"--shell-completion needs what to do: arr {command} --shell-completion "
                "install=bash (or zsh, fish) prints the completion script; eval it in your shell"
            )
        if completion is not None:  # Hydra reads the subcommand among the overrides
            return _run_hydra(
                command, lambda cfg: 0, ["--shell-completion", *flags[completion + 1 :]], True
            )
        if any(f in ("--cfg", "-c", "--info", "-i") for f in flags):
            # Hydra prints (config, info, completion script) and runs no job
            return _run_hydra(command, lambda cfg: 0, [*overrides, *flags], quiet_exit=True)
        return _run_hydra(
            command,
            lambda cfg: _dispatch(command, action, texts, cfg),
            [*overrides, *flags],
        )
    except ArrError as exc:
        message = str(exc)
        if command == "search" and "query" not in texts and " " in (rest[:1] or [""])[0]:
            message += ' (a query that starts like key=value is written query="...")'
        return fail(message, kind=error_kind(exc))
    except OSError as exc:
        if exc.errno not in STORAGE_ERRNOS:
            raise
        return fail(storage_message(exc), kind=STORAGE_ERRNOS[exc.errno])


# Failures of the disk a run writes to (its output folder, an index): one line naming the
# cause and the file, never a traceback (Hydra saving its config, a log handler, a report).
STORAGE_ERRNOS = {
    errno.ENOSPC: "disk_full",
    errno.EDQUOT: "disk_full",
    errno.EROFS: "read_only_file_system",
    errno.EACCES: "permission_denied",
    errno.EIO: "io_error",
}


def storage_message(exc: OSError) -> str:
    where = f" writing {exc.filename!s}"[:300] if exc.filename else ""
    hint = (
        "; free space, or write elsewhere with paths.output_dir=... (indexes: the workspace's "
        "index folder)"
        if exc.errno in (errno.ENOSPC, errno.EDQUOT)
        else ""
    )
    return f"{exc.strerror or exc}{where}{hint}"


def _run_fast(
    command: str,
    action: str | None,
    texts: dict[str, str],
    given: list[str],
    workspace: str | None,
) -> int:
    """A single search without Hydra's app machinery: the config comes from the compose cache
    (or one compose), the run folder and its log are made here. Same folder layout and files
    (config.resolved.json, <task>.log, result.json) as a Hydra run; sweeps use Hydra."""
    container = _composed(command, given, workspace)
    keep = None
    if command == "search":
        from arr.run_folders import MAX_KEEP

        keep = whole_number("keep_runs", container.get("keep_runs", 20), 0, MAX_KEEP)
    run_dir = _new_run_dir(container, command)
    handler = logging.FileHandler(run_dir / f"{container.get('task_name', command)}.log")
    handler.setFormatter(logging.Formatter("[%(asctime)s][%(name)s][%(levelname)s] %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        atomic_write.write_text(
            run_dir / "config.resolved.json", json.dumps(container, indent=2, default=str)
        )
        return _guarded(lambda c: _handler(command)(c, texts, action, run_dir), container)
    finally:
        root.removeHandler(handler)
        handler.close()
        if keep is not None:
            from arr.run_folders import prune

            prune(run_dir, keep)


def _composed(command: str, given: list[str], workspace: str | None) -> dict[str, Any]:
    """The resolved config of ``command`` with ``given`` overrides, from the compose cache."""
    from arr import compose_cache
    from arr.locations import resolve_workspace, workspace_overrides

    found = resolve_workspace(workspace)
    overrides = [*given, *workspace_overrides(found, given)]
    key = compose_cache.cache_key(command, overrides, found)
    directory = compose_cache.cache_dir(found)
    container = compose_cache.load(directory, key) if key else None
    if container is None:
        from arr.api import compose
        from arr.runner import config_container

        container = config_container(compose(command, overrides, resolved=True))
        if key:
            compose_cache.store(directory, key, container)
    return container


def _run_serve(args: list[str], workspace: str | None) -> int:
    from arr.runner import build_router
    from arr.serve import check_listen, serve

    pinned: list[str] = []
    transport, host, port, warm = "stdio", "127.0.0.1", 8765, False
    overrides: list[str] = []
    iterator = iter(args)
    for arg in iterator:
        if arg in ("--scope", "--host", "--port"):
            value = next(iterator, None)
            if value is None:
                raise ArrError(f"{arg} needs a value")
            if arg == "--scope":
                pinned.append(value)
            elif arg == "--host":
                host = value
            else:
                if not value.isdigit() or not 0 < int(value) < 65536:
                    raise ArrError(f"--port must be a port number, got {value[:20]!r}")
                port = int(value)
        elif arg == "--http":
            transport = "http"
        elif arg == "--warm":
            warm = True
        elif arg.startswith("-"):
            raise ArrError(f"unknown option {arg[:40]!r} for arr serve")
        else:
            overrides.append(arg)
    check_listen(transport, host, port)  # a busy port is said now, not after warm-up
    container = _composed("search", overrides, workspace)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)  # stdout is the protocol
    router = build_router(container)
    if warm:  # heavy channels load now, not on the first request
        for tool in router.tools.values():
            if hasattr(tool, "eager_warm_up"):
                tool.eager_warm_up = True
    router.warm_up()
    router.watch_changes()  # a server lives: trees are watched, not walked before each search
    serve(router, pinned or None, transport, host, port)
    return 0


def _new_run_dir(container: dict[str, Any], command: str) -> Path:
    from datetime import datetime

    output = Path(str((container.get("paths") or {}).get("output_dir") or "outputs"))
    stamp = datetime.now().strftime("%Y-%m-%d_%H-%M-%S-%f")
    run_dir = output / str(container.get("task_name", command)) / "runs" / stamp
    try:
        run_dir.mkdir(parents=True, exist_ok=False)
    except OSError as exc:
        raise ArrError(f"cannot create the run folder {str(run_dir)!r}: {exc.strerror}") from None
    return run_dir


def _handler(command: str) -> Callable[..., int]:
    from arr import commands

    return getattr(commands, f"run_{command}")  # type: ignore[no-any-return]


def _complete_query() -> int:
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
        return _run_hydra(command, lambda cfg: 0, ["--shell-completion", "query=bash"], True)
    except ArrError:
        return 0  # no candidates, never an error inside the user's shell


def _run_hydra(
    command: str, task: Callable[[Any], int], overrides: list[str], quiet_exit: bool = False
) -> int:
    import hydra

    from arr.api import CONF_DIR, register_resolvers, searchpath_override

    register_resolvers()
    outcome: dict[str, int] = {}

    def job(cfg: Any) -> None:
        try:
            code = _guarded(task, cfg)
        except BrokenPipeError:  # the reader went away: quiet, conventional status
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            code = 141
        outcome["code"] = max(outcome.get("code", 0), code)

    app = hydra.main(config_path=str(CONF_DIR), config_name=command, version_base="1.3")(job)
    saved = sys.argv
    # Flags last (an optional-value flag such as --info must not swallow an override).
    sys.argv = [f"arr-{command}", searchpath_override(), *overrides]
    if overrides[:1] == ["--shell-completion"]:  # its subcommand must follow it directly;
        # the script completes `arr`, and asks `arr -sc query=bash` (see _complete_query)
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


def _guarded(task: Callable[[Any], int], cfg: Any) -> int:
    try:
        return task(cfg)
    except ArrError as exc:
        log.error("%s", exc)
        return fail(str(exc), kind=error_kind(exc))
    except BrokenPipeError:
        raise  # the reader went away: main() ends quietly
    except Exception as exc:  # a bug: keep the traceback in the run log, one line for the user
        if isinstance(exc, OSError) and exc.errno in STORAGE_ERRNOS:  # the disk, not a bug
            return fail(storage_message(exc), kind=STORAGE_ERRNOS[exc.errno])
        if is_disk_full(exc):  # a library's own words for ENOSPC (SQLite, Chroma)
            return fail(f"disk full: {str(exc)[:300]}; free space and run again", kind="disk_full")
        log.exception("internal error")
        return fail(f"internal error ({type(exc).__name__}: {exc}); details in the run log", 1)


def _run_dir() -> Path:
    from hydra.core.hydra_config import HydraConfig

    return Path(HydraConfig.get().runtime.output_dir)


def _dispatch(command: str, action: str | None, texts: dict[str, str], cfg: Any) -> int:
    from arr.api import register_resolvers
    from arr.runner import config_container

    register_resolvers()  # a launcher's worker process resolves the config here

    container = config_container(cfg)
    run_dir = _run_dir()
    atomic_write.write_text(
        run_dir / "config.resolved.json", json.dumps(container, indent=2, default=str)
    )
    code = int(_handler(command)(container, texts, action, run_dir))
    # A sweep's parent process learns each job's outcome from this file, whatever the launcher
    # (joblib and SLURM jobs run in other processes).
    atomic_write.write_text(run_dir / JOB_STATUS, json.dumps({"code": code}))
    return code


if __name__ == "__main__":
    raise SystemExit(main())
