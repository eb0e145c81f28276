"""The ``arr`` command: demo, index, search and memory, each a Hydra app over ``conf/``; the
workspace commands (init, scope, report, audit, llm, skipped) without Hydra; ``serve`` for agents.

Everything that is not a free-text value is a Hydra override (``fusion.norm=zmuv
tools=[bm25]``; ``-m`` for sweeps). Errors are one line on stderr (``arr: error: ...``) with
exit code 2; no traceback reaches the user (:mod:`arr.cli.failures`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys

from arr.cli.arguments import (
    COMMANDS,
    FAST_COMMANDS,
    MEMORY_ACTIONS,
    PLAIN_COMMANDS,
    USAGE,
    command_help,
    hydra_flags,
    is_bare,
    search_options,
    split_arguments,
    take_workspace_flag,
    unknown_option,
)
from arr.cli.failures import JSON_ERRORS, STORAGE_ERRNOS, error_kind, fail, storage_message
from arr.cli.fast_run import composed, run_fast
from arr.cli.hydra_runs import complete_query, dispatch, run_hydra
from arr.cli.terminal import TerminalSafeStream
from arr.errors import ArrError, ConfigError


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
    terminate = _on_sigterm()
    try:
        code = _main(args)
        sys.stdout.flush()
        return _leave(code)
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM: one line, the shell's 130, no traceback
        return interrupted()
    except BrokenPipeError:
        # Python would complain again when it flushes stdout at exit: point it at devnull.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stdout.fileno())
        return 141
    finally:
        sys.stdout = stdout
        if terminate is not None:
            signal.signal(signal.SIGTERM, terminate)


def _leave(code: int) -> int:
    """The exit status; a refresh still running beside the search (arr.router.refresh) is left
    as a kill would leave it (its writes are whole or resumable): waiting would outlast the
    search's deadline, and a thread stopped in native code at finalisation can crash it."""
    refresh = sys.modules.get("arr.router.refresh")
    if refresh is None or not refresh.refreshing():
        return code
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    logging.shutdown()
    os._exit(code)


def _on_sigterm() -> signal.Handlers | None:
    """SIGTERM ends a command as Ctrl-C does (stores closed by the same ``finally`` blocks);
    the handler it replaced, or None outside the main thread (a library caller's thread)."""

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        return signal.signal(signal.SIGTERM, stop)  # type: ignore[return-value]
    except ValueError:
        return None


def interrupted() -> int:
    from arr.errors import INTERRUPT_NOTES

    line = "; ".join(["arr: interrupted", *INTERRUPT_NOTES])
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
    with contextlib.suppress(OSError, ValueError):
        print(line, file=sys.stderr, flush=True)
    return 130


def version_text() -> str:
    import importlib.metadata as metadata

    from arr.version import __version__

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


def _main(argv: list[str] | None = None) -> int:
    _quiet_libraries()
    args = list(sys.argv[1:] if argv is None else argv)
    JSON_ERRORS["on"] = "--json" in args
    try:
        workspace, args = take_workspace_flag(args)
    except ArrError as exc:
        return fail(str(exc), kind=error_kind(exc))
    answered = _answered_without_a_command(args)
    if answered is not None:
        return answered
    command, rest = args[0], args[1:]
    if command not in COMMANDS:
        return fail(f"unknown command {command[:80]!r}; valid commands: {', '.join(COMMANDS)}")
    if "--help" in rest or "-h" in rest:
        print(command_help(command))
        return 0
    try:
        rest = _where_it_runs(command, rest, workspace)
        if command in PLAIN_COMMANDS:
            from arr.cli.plain_commands import run_plain

            return run_plain(command, rest, workspace)
        if command == "serve":
            return run_serve(rest, workspace)
        action, rest = _shaped(command, rest)
    except ArrError as exc:
        return fail(str(exc), kind=error_kind(exc))
    except OSError as exc:  # the disk (full, read-only): one line naming it
        if exc.errno not in STORAGE_ERRNOS:
            raise
        return fail(storage_message(exc), kind=STORAGE_ERRNOS[exc.errno])
    texts, overrides = split_arguments(rest)
    try:
        return _run_composed(command, action, texts, overrides, workspace)
    except ArrError as exc:
        message = str(exc)
        if command == "search" and "query" not in texts and " " in (rest[:1] or [""])[0]:
            message += ' (a query that starts like key=value is written query="...")'
        return fail(message, kind=error_kind(exc))
    except OSError as exc:
        if exc.errno not in STORAGE_ERRNOS:
            raise
        return fail(storage_message(exc), kind=STORAGE_ERRNOS[exc.errno])


def _quiet_libraries() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    # The console is for results: no model-loading progress bars or library chatter.
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")


def _answered_without_a_command(args: list[str]) -> int | None:
    """Usage, version and the shell's completion query: answered before any command runs."""
    if not args or args[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0 if args else 2
    if args[0] in ("--version", "-V", "version"):
        print(version_text())
        return 0
    if args[0] in ("--shell-completion", "-sc") and args[1:2] == ["query=bash"]:
        return complete_query()
    return None


def _where_it_runs(command: str, rest: list[str], workspace: str | None) -> list[str]:
    """The demo in its own folder (``arr demo``, ``arr eval`` of its gold set, or a workspace
    command naming ``workspace=demo``: from any folder, a wheel's too); a workspace command
    outside a workspace refused (an ArrError naming ``arr init``); else the arguments as
    given."""
    named_demo = command in WORKSPACE_COMMANDS and "workspace=demo" in rest
    if command == "demo" or (command == "eval" and _demo_gold(rest)) or named_demo:
        from arr.workspace.demo_home import with_demo_paths

        try:  # its own folder, never the researcher's workspace nor the current folder
            return with_demo_paths(rest)
        except OSError as exc:
            raise ArrError(f"the demo cannot be set up: {exc}") from None
    if command in WORKSPACE_COMMANDS:
        refusal = _no_workspace_here(rest, workspace)
        if refusal:
            raise ArrError(refusal)
    return rest


def _shaped(command: str, rest: list[str]) -> tuple[str | None, list[str]]:
    """(memory's action, the arguments as Hydra takes them): ``arr memory show ID``, ``arr
    index --lexical``, ``arr search "why did the loss spike" -n 3 --json``."""
    action = None
    if command == "memory":
        if not rest or rest[0] not in MEMORY_ACTIONS:
            raise ArrError(f"memory needs an action: {', '.join(MEMORY_ACTIONS)}")
        action, rest = rest[0], rest[1:]
        # `arr memory show ID` (also publish/retract): a first bare word is the id
        if action in ("show", "publish", "retract") and rest and is_bare(rest[0]):
            rest = [f"id={rest[0]}", *rest[1:]]
    if command == "index" and "--lexical" in rest:  # the quick start: no embedding at all
        rest = [("lexical=true" if a == "--lexical" else a) for a in rest]
    if command == "search":
        rest = search_options(rest)
    return action, rest


def _run_composed(
    command: str,
    action: str | None,
    texts: dict[str, str],
    overrides: list[str],
    workspace: str | None,
) -> int:
    """A Hydra command: the fast path for a single search, else Hydra's app (its flags,
    completion and sweeps), after a one-line check of the overrides."""
    from arr.compose.added_keys import refuse_added_keys

    multirun = any(o in ("-m", "--multirun") for o in overrides)
    refuse_added_keys(overrides)  # also before the compose cache could answer
    flags, plain = hydra_flags(overrides)
    stray = next((arg for arg in plain if arg.startswith("-")), None)
    if stray is not None:  # never handed to Hydra's parser (LexerNoViableAltException)
        raise unknown_option(command, stray)
    if command in FAST_COMMANDS and not flags:
        return run_fast(command, action, texts, overrides, workspace)
    from arr.compose.library import compose, full_overrides

    if "--hydra-help" in flags:  # Hydra's own help composes none of arr's config
        return run_hydra(command, lambda cfg: 0, ["--hydra-help"], quiet_exit=True)
    overrides = full_overrides(plain, workspace)
    if not multirun:
        compose(command, overrides, resolved=True)  # one-line error for a bad override
    completion = next((i for i, f in enumerate(flags) if f in ("--shell-completion", "-sc")), None)
    if completion is not None:
        asked = flags[completion + 1 :]
        if not any(f.startswith(("install=", "uninstall=", "query=")) for f in asked):
            raise ConfigError(
                f"--shell-completion needs what to do: arr {command} --shell-completion "
                "install=bash (or zsh, fish) prints the completion script; eval it in your shell"
            )
        # Hydra reads the subcommand among the overrides
        return run_hydra(command, lambda cfg: 0, ["--shell-completion", *asked], True)
    if any(f in ("--cfg", "-c", "--info", "-i") for f in flags):
        # Hydra prints (config, info, completion script) and runs no job
        return run_hydra(command, lambda cfg: 0, [*overrides, *flags], quiet_exit=True)
    return run_hydra(
        command, lambda cfg: dispatch(command, action, texts, cfg), [*overrides, *flags]
    )


# What runs on a workspace's scopes: outside one (and outside a source checkout, whose bundled
# demo stands in) these say so and create nothing.
WORKSPACE_COMMANDS = ("index", "skipped", "search", "memory", "serve")
_CONFIG_ONLY = ("--cfg", "-c", "--info", "-i", "--hydra-help", "--shell-completion", "-sc")


def _demo_gold(rest: list[str]) -> bool:
    presets = [a.split("=", 1)[1] for a in rest if a.startswith("eval=")]
    return not presets or presets[-1] == "demo"


def _no_workspace_here(rest: list[str], workspace: str | None) -> str | None:
    from arr.workspace.locations import checkout_here, resolve_workspace

    named = {a.split("=", 1)[0].lstrip("+~") for a in rest if "=" in a}
    if checkout_here() is not None or "workspace" in named or set(_CONFIG_ONLY) & set(rest):
        return None
    try:
        if resolve_workspace(workspace) is not None:
            return None
    except ArrError as exc:
        return str(exc)
    return (
        f"no ARR workspace in {os.getcwd()!r} or any folder above it: run `arr init` in your "
        "project folder, then `arr scope add NAME PATH`; or pass --workspace PATH "
        "(`arr demo` runs the bundled demo; workspace=demo searches it)"
    )


def run_serve(args: list[str], workspace: str | None) -> int:
    from arr.cli.commands import search_answer
    from arr.cli.door import Door
    from arr.compose.runner import build_router
    from arr.mcp.server import check_listen, serve
    from arr.tools.contract import WarmsEagerly

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
    container = composed("search", overrides, workspace)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)  # stdout is the protocol
    router = build_router(container)
    if warm:  # heavy channels load now, not on the first request
        for tool in router.tools.values():
            if isinstance(tool, WarmsEagerly):
                tool.eager_warm_up = True
    router.warm_up()
    router.watch_changes()  # a server lives: trees are watched, not walked before each search
    # the CLI's door: a cold `arr search` on this workspace asks this warm router (arr.cli.door)
    door = Door(container, lambda asked, texts: search_answer(router, asked, texts), pinned)
    door.open()
    try:
        serve(router, pinned or None, transport, host, port)
    except KeyboardInterrupt:
        if transport != "stdio":
            raise
        # The stdio transport's reader thread waits on stdin, which a host that sends SIGTERM
        # may hold open: the process would say "interrupted" and live on. A read-only server
        # has nothing left to write (the door goes first).
        door.close()
        os._exit(interrupted())
    finally:
        door.close()
    return 0
