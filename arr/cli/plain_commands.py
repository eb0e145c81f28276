"""The ``arr`` commands that are not Hydra apps: ``init``, ``scope``, ``report``, ``audit`` and
``replay``. Each reads its own few ``key=value`` options; nothing heavy is imported before it is
needed, so ``arr scope list`` starts at once."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from arr.errors import ConfigError


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


def _with_json(args: list[str]) -> tuple[bool, list[str]]:
    """Whether ``--json`` was given (anywhere), and the other arguments."""
    return "--json" in args, [a for a in args if a != "--json"]


def _said(as_json: bool, payload: dict[str, Any], *lines: str) -> int:
    """One JSON object on stdout (``--json``; paths as strings), else the lines."""
    print(json.dumps(payload, indent=2, default=str) if as_json else "\n".join(lines))
    return 0


def run_init(args: list[str], workspace: str | None) -> int:
    from arr.workspace.file import init_workspace

    as_json, args = _with_json(args)
    positional, options = _loose_key_values(args)
    if positional:
        raise ConfigError(f"arr init takes key=value options only, got {positional[0]!r}")
    folder = Path(workspace) if workspace else Path.cwd()
    path = init_workspace(folder, options)
    upcoming = "arr scope add NAME PATH [PATH ...]   then: arr index   then: arr search ..."
    return _said(
        as_json, {"created": str(path), "next": upcoming}, f"created {path}", f"next: {upcoming}"
    )


def _loose_key_values(args: list[str]) -> tuple[list[str], dict[str, str]]:
    positional, options = [], {}
    for arg in args:
        key, sep, value = arg.partition("=")
        if sep and key and not key.startswith(("/", ".", "~")):
            options[key] = value
        else:
            positional.append(arg)
    return positional, options


def scope_rows(folder: Path) -> list[dict[str, Any]]:
    from arr.workspace.file import read_file

    parsed = read_file(folder)
    return [
        {"name": name, "roots": entry.roots, "key": entry.key.model_dump()}
        for name, entry in sorted(parsed.scopes.items())
    ]


def run_scope(args: list[str], workspace: str | None) -> int:
    from arr.workspace.file import add_scope, remove_scope, require_workspace
    from arr.workspace.locations import resolve_workspace

    actions = ("add", "list", "remove")
    if not args or args[0] not in actions:
        raise ConfigError(f"scope needs an action: {', '.join(actions)}")
    action, (as_json, rest) = args[0], _with_json(args[1:])
    folder = require_workspace(resolve_workspace(workspace))
    if action == "list":
        unknown = rest
        if unknown:
            raise ConfigError(f"arr scope list takes only --json, got {unknown[0][:80]!r}")
        rows = scope_rows(folder)
        if as_json:
            print(json.dumps({"workspace": str(folder), "scopes": rows}, indent=2))
            return 0
        print(f"workspace {folder}")
        for row in rows:
            key = "/".join(row["key"].values())
            print(f"  {row['name']:<16} {key}\n  {'':<16} roots: {', '.join(row['roots'])}")
        print(f"{len(rows)} scopes")
        return 0
    positional, fields = _loose_key_values(rest)
    if action == "remove":
        if len(positional) != 1 or fields:
            raise ConfigError("usage: arr scope remove NAME")
        remove_scope(folder, positional[0])
        return _said(
            as_json,
            {"removed": positional[0]},
            f"removed scope {positional[0]!r} (its derived indexes stay until arr index)",
        )
    if len(positional) < 2:
        raise ConfigError("usage: arr scope add NAME PATH [PATH ...] [field=value ...]")
    entry = add_scope(folder, positional[0], positional[1:], fields)
    return _said(
        as_json,
        {"added": positional[0], "key": entry.key.model_dump(), "roots": entry.roots},
        f"added scope {positional[0]!r}: {entry.key.label()}  roots: {', '.join(entry.roots)}",
    )


def run_plain(command: str, args: list[str], workspace: str | None = None) -> int:
    """Commands that are not Hydra apps: ``init``, ``scope``, ``report``, ``audit``, ``llm``,
    ``skipped``."""
    if command == "init":
        return run_init(args, workspace)
    if command == "scope":
        return run_scope(args, workspace)
    if command == "llm":
        from arr.cli.llm_check import run as check

        status, output = check(args, workspace)
        print(output, file=sys.stderr if status and not output.startswith("{") else sys.stdout)
        return status
    if command == "skipped":
        from arr.cli import skip_list
        from arr.workspace.locations import default_state_dir, resolve_workspace

        if "workspace=demo" in args:  # the bundled demo's list, in its own folder
            from arr.workspace.demo_home import demo_paths

            kept = [a for a in args if not a.startswith(("workspace=", "paths."))]
            return skip_list.run(kept, demo_paths()["paths.state_dir"], None)
        folder = resolve_workspace(workspace)
        return skip_list.run(args, default_state_dir(folder), _scope_names(folder))
    if command == "report":
        from arr.eval.compare import compare

        as_json, args = _with_json(args)
        positional, options = _key_values(args, ("baseline",))
        if not positional:
            raise ConfigError(
                "usage: arr report RUN [RUN ...] [baseline=<job>]  (run or multirun folders)"
            )
        result = compare([Path(p) for p in positional], options.get("baseline"))
        if as_json:
            return _said(True, result)
        print((Path(result["folder"]) / "comparison.md").read_text())
        return 0
    from arr.audit import report as audit_report
    from arr.workspace.locations import default_state_dir, resolve_workspace

    as_json, args = _with_json(args)
    # head= may be given once per store: each is matched to the chain that holds it
    kept = [a.partition("=")[2] for a in args if a.startswith("head=")]
    positional, options = _key_values([a for a in args if not a.startswith("head=")], ("db",))
    if positional not in (["verify"], ["head"]):
        raise ConfigError(
            "usage: arr audit verify [db=<database>] [head=[memory:|ledger:]<kept hash> ...]"
            " | arr audit head"
        )
    paths = audit_report.stores(default_state_dir(resolve_workspace(workspace)), options.get("db"))
    if positional == ["head"]:
        found = audit_report.heads(paths)
        return _said(as_json, {"heads": found}, *found)
    lines, ok = audit_report.verify(paths, kept)
    _said(as_json, {"ok": ok, "report": lines}, *lines)
    if not ok:  # a finding, not a bad request: exit 1, what was found printed above
        print("arr: audit verification failed (see above)", file=sys.stderr)
        return 1
    return 0


def _scope_names(folder: Path | None) -> list[str] | None:
    """The scopes of the workspace at ``folder`` (None when it has no workspace file: the
    demo, whose scopes are the config's)."""
    if folder is None:
        return None
    try:
        from arr.workspace.file import read_file

        return list(read_file(folder).scopes)
    except Exception:  # no or an unreadable workspace file: nothing to check names against
        return None
