"""The ``arr`` command line read before any config is composed: the commands and their usage,
free-text values taken out of the overrides, Hydra's own flags, ``--workspace``.

Free-text values (``query=``, ``title=``, ``body=``, ``tags=``, ``id=``) are taken out of the
argument list before Hydra sees it, so a query may contain ``:``, ``,``, quotes or ``${...}``
without being parsed as override syntax or resolved as an interpolation.
"""

from __future__ import annotations

import functools
import re

from arr.errors import ArrError

COMMANDS = (
    "serve",
    "init",
    "scope",
    "demo",
    "index",
    "skipped",
    "search",
    "memory",
    "eval",
    "report",
    "audit",
    "llm",
)
# Single runs of these skip Hydra's app machinery (cold start); sweeps and flags use Hydra.
FAST_COMMANDS = ("search",)
PLAIN_COMMANDS = ("init", "scope", "report", "audit", "llm", "skipped")
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
  skipped [scope=NAME | --scope NAME] [output=json | --json]
                             every file the last index left out, with its reason and detail
  search TEXT [-n N | --limit N] [--scope NAME] [--json] [-v]  (or query=TEXT scope=NAME top_k=N)
                             answer one query, options in any position (--json: the full
                             RouterResult); TEXT may hold "=" ("x=1 loss") unless it starts
                             with a config key; -- TEXT: the words after -- are the query
  memory add id=ID scope=NAME title=TEXT body=TEXT [tags=a,b]
  memory publish id=ID | memory retract id=ID | memory list [scope=NAME] [status=S]
  memory show id=ID | memory export file=OUT.jsonl | memory import file=IN.jsonl
  eval [eval=demo|scifact] [-m sweep overrides]
                             run a gold set, write report.json/.md/.html and run.trec
  --json (every command but serve): one JSON object on stdout, errors too
  report FOLDER [baseline=JOB]
                             compare the jobs of a sweep (multirun folder)
  audit verify [db=PATH] [head=HASH]
                             check the memory audit and approvals chains (read-only)
  audit head [db=PATH]       print each chain's head hash (keep it to detect truncation)
  llm check [llm=local] [llm.base_url=URL] [--json]
                             one call to the configured LLM endpoint: model, latency,
                             structured output, budget and timeouts

Any Hydra override works: tools=[bm25] fusion.norm=zmuv pipeline=bm25_only ...
"""
_OVERRIDE_SHAPE = re.compile(r"^[+~]{0,2}([A-Za-z_][\w.@/-]*)(\[[^\]]*\])?=")
_DELETION = re.compile(r"^~([A-Za-z_][\w.@/-]*)$")  # Hydra's ``~key``: drop a key
_TOP_KEY = re.compile(r"^([A-Za-z_]\w*):", re.MULTILINE)
_KEY_HEAD = re.compile(r"[.@/]")


@functools.lru_cache(maxsize=1)
def config_keys() -> frozenset[str]:
    """The names an override starts with: the config groups (``fusion``, ``tools``), the
    primary configs' own keys (``top_k``, ``output``, ``rebuild``), ``hydra`` and the free-text
    values. Read from ``conf/`` (no compose): a search starts without Hydra."""
    from arr.workspace.locations import CONF_DIR, config_groups

    keys = set(config_groups()) | set(FREE_TEXT_KEYS) | {"hydra"}
    for primary in CONF_DIR.glob("*.yaml"):
        keys.update(_TOP_KEY.findall(primary.read_text(encoding="utf-8")))
    keys.discard("defaults")
    return frozenset(keys)


def is_override(arg: str) -> bool:
    """``key=value`` (or ``+key=``, ``~key``) whose key starts with a name the config knows:
    ``top_k=3``, ``fusion.norm=zmuv``, ``tools=[grep]``; ``x=1 loss`` is not (a query)."""
    shape = _OVERRIDE_SHAPE.match(arg) or _DELETION.match(arg)
    return shape is not None and _KEY_HEAD.split(shape.group(1), 1)[0] in config_keys()


def is_bare(arg: str) -> bool:
    """An argument that is neither a flag nor an override of a known key: ``arr search QUERY``
    takes it as the query (``x=1 loss`` too), ``arr memory show ID`` as the id (``query=...``
    still works, and is needed for a query that starts like ``top_k=3``)."""
    return not arg.startswith("-") and not is_override(arg)


# The options each Hydra command takes besides key=value overrides, for the error that names
# an unknown one.
COMMAND_OPTIONS = {
    "search": "TEXT, -n N (--limit N), --scope NAME, --json, -v",
    "index": "--lexical, --json",
    "demo": "--json",
    "memory": "--json",
    "eval": "--json, -m (a sweep)",
}


def unknown_option(command: str, arg: str) -> ArrError:
    """The one-line error for a flag ``command`` does not take, with the ones it does."""
    options = COMMAND_OPTIONS.get(command, "--json")
    hint = f"; a query that starts with - goes after --: arr search -- {arg[:40]}"
    return ArrError(
        f"unknown option {arg[:40]!r} for arr {command}; its options: {options}, key=value "
        f"overrides (arr {command} --help)" + (hint if command == "search" else "")
    )


# flags that stand for a key: ``--scope NAME`` / ``--scope=NAME`` is ``scope=NAME``
_KEY_FLAGS = {"--scope": "scope", "-n": "top_k", "--limit": "top_k", "--top-k": "top_k"}
_ATTACHED_NUMBER = re.compile(r"^(-n)(\d+)$")  # ``-n2``, as head and rg take it


def flag_options(args: list[str], flags: tuple[str, ...] = ("--scope",)) -> list[str]:
    """``--json`` and each of ``flags`` (``FLAG VALUE`` or ``FLAG=VALUE``) as the ``key=value``
    they stand for (``output=json``, ``scope=NAME``, ``top_k=N``), in any position."""
    out: list[str] = []
    iterator = iter(args)
    for arg in iterator:
        flag, equals, value = arg.partition("=")
        attached = _ATTACHED_NUMBER.match(arg)
        if attached is not None and attached.group(1) in flags:
            flag, equals, value = attached.group(1), "=", attached.group(2)
        if arg == "--json":
            out.append("output=json")
        elif flag in flags:
            if not equals:
                following = next(iterator, None)
                if following is None:
                    raise ArrError(f"{flag} needs a value")
                value = following
            key = _KEY_FLAGS[flag]
            if key == "top_k" and not value.isdigit():
                raise ArrError(f"{flag} needs a number of results (1-1000), got {value[:40]!r}")
            out.append(f"{key}={value}")
        else:
            out.append(arg)
    return out


def search_options(args: list[str]) -> list[str]:
    """``arr search`` as ``rg`` and ``git`` users type it, options in any position: ``-n 3`` /
    ``-n3`` / ``--limit 3`` / ``--limit=3`` (``top_k=3``), ``--scope NAME`` (``scope=NAME``),
    ``--json``; the first bare word anywhere is the query (``arr search --json paxos -n 3``),
    and so is an argument like ``x=1 loss`` whose key the config does not know; the words after
    ``--`` are the query whatever they look like. ``key=value`` overrides of known keys work as
    before; a value a Hydra flag takes (``--cfg job``) is never the query; ``-v``/``--verbose``
    shows scores, per-channel ranks and the trace (``verbose=true``). An unknown flag or a
    second query is an ArrError naming it."""
    after: list[str] | None = None
    if "--" in args:
        cut = args.index("--")
        args, after = args[:cut], args[cut + 1 :]
    out: list[str] = []
    query = next((arg for arg in args if arg.startswith("query=")), None)
    iterator = iter(flag_options(args, tuple(_KEY_FLAGS)))
    for arg in iterator:
        if arg in _HYDRA_VALUE_FLAGS:
            out.append(arg)
            following = next(iterator, None)
            if following is not None:
                out.append(following)
        elif arg in ("-v", "--verbose"):  # scores, ranks and the trace in text output
            out.append("verbose=true")
        elif arg.startswith("-") and arg not in _HYDRA_BARE_FLAGS:
            raise unknown_option("search", arg)
        elif is_bare(arg) and (query is None or _OVERRIDE_SHAPE.match(arg) is None):
            _one_query(query, arg)
            query = arg
            out.append(f"query={arg}")
        else:  # an override; with the query given, a mistyped one too (Hydra names its key)
            out.append(arg)
    if after is not None:
        if not after:
            raise ArrError("-- needs the query after it: arr search -- TEXT")
        _one_query(query, " ".join(after))
        out.append(f"query={' '.join(after)}")
    return out


def _one_query(query: str | None, another: str) -> None:
    if query is None:
        return
    first = query.removeprefix("query=")
    shape = _OVERRIDE_SHAPE.match(first) if " " not in first else None
    unknown = (
        f"; {first[:60]!r} is no override: no config key is named "
        f"{_KEY_HEAD.split(shape.group(1), 1)[0][:40]!r} (arr search --cfg job lists them)"
        if shape is not None
        else ""
    )
    raise ArrError(
        f"one query per search, got {first[:60]!r} and {another[:60]!r}: quote a query of "
        f'several words (arr search "{first[:30]} {another[:30]}"){unknown}'
    )


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


def command_help(command: str) -> str:
    """``arr <command> --help``: the usage lines of that command and the config groups."""
    from arr.workspace.locations import CONF_DIR

    lines = [line for line in USAGE.splitlines() if line.strip().startswith(command + " ")]
    groups = sorted(p.name for p in CONF_DIR.iterdir() if p.is_dir() and p.name not in ("hydra",))
    options = {g: sorted(f.stem for f in (CONF_DIR / g).glob("*.yaml")) for g in groups}
    text = [f"usage: arr {command} ...", *lines, "", "config groups (override with group=option):"]
    text += [f"  {g}: {', '.join(o)}" for g, o in options.items() if o]
    text += ["", "any key can be overridden: fusion.norm=zmuv router.max_calls=6 ..."]
    return "\n".join(text)
