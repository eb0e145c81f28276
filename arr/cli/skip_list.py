"""Which files an index left out and why: the list ``arr index`` prints the head of and
``arr skipped`` prints whole.

Each build records its skips by file (:class:`arr.workspace.sources.SkipLog`: path, reason, detail);
``arr index`` merges them per scope (one row per file and reason, whatever channels met it)
into ``skipped.json`` in the workspace's state folder (beside the memory store, never under
an index folder a rebuild replaces), where ``arr skipped`` reads it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from arr import atomic_write
from arr.workspace.skip_reasons import REASON_WORDS

FILE = "skipped.json"
SHOWN = 10  # rows of the table ``arr index`` prints; the rest are counted and pointed to


def merged(records: Iterable[Iterable[str]]) -> list[tuple[str, str, str]]:
    """One row per (path, reason), sorted by path; the first detail seen is kept."""
    rows: dict[tuple[str, str], str] = {}
    for record in records:
        path, reason, detail = (str(part) for part in record)
        rows.setdefault((path, reason), detail)
    return sorted((path, reason, detail) for (path, reason), detail in rows.items())


def write(state_dir: Path, by_scope: dict[str, list[tuple[str, str, str]]]) -> Path:
    """Store the scopes' lists (other scopes' lists in the file are kept)."""
    path = state_dir / FILE
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
        scopes = found.get("scopes", {}) if isinstance(found, dict) else {}
    except (OSError, ValueError):
        scopes = {}
    scopes.update({scope: [list(r) for r in rows] for scope, rows in by_scope.items()})
    state_dir.mkdir(parents=True, exist_ok=True)
    atomic_write.write_text(path, json.dumps({"scopes": scopes}, indent=1, ensure_ascii=False))
    return path


def read(state_dir: Path) -> dict[str, list[tuple[str, str, str]]]:
    try:
        found = json.loads((state_dir / FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        from arr.errors import ArrError

        raise ArrError(f"cannot read {state_dir / FILE}: {exc}") from None
    scopes = found.get("scopes", {}) if isinstance(found, dict) else {}
    return {str(s): merged(rows) for s, rows in scopes.items() if isinstance(rows, list)}


def words(reason: str) -> str:
    return REASON_WORDS.get(reason, reason)


def table(rows: list[tuple[str, str, str]], limit: int | None = SHOWN) -> list[str]:
    """Text rows: path, reason (with its plain words), detail; at most ``limit``."""
    shown = rows if limit is None else rows[:limit]
    width = min(60, max((len(p) for p, _, _ in shown), default=0))
    out = []
    for path, reason, detail in shown:
        plain = words(reason)
        said = plain + (f" ({detail})" if detail and detail not in plain else "")
        out.append(f"    {_cut(path, 60):<{width}}  {reason:<18} {said}")
    return out


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else "..." + text[-(limit - 3) :]


def run(args: list[str], state_dir: Path, known: list[str] | None = None) -> int:
    """``arr skipped [scope=<name>] [output=json]``: every skipped file of the last index
    (``--json`` and ``--scope NAME`` too); a scope the workspace does not have (``known``) is
    refused with the names it has, never answered with an empty list."""
    from arr.cli.arguments import flag_options
    from arr.errors import ConfigError

    args = flag_options(args)
    options = dict(a.split("=", 1) for a in args if "=" in a)
    unknown = [a for a in args if "=" not in a] + sorted(set(options) - {"scope", "output"})
    if unknown or options.get("output", "text") not in ("text", "json"):
        raise ConfigError(
            "usage: arr skipped [scope=<name> | --scope <name>] [output=text|json | --json]"
        )
    if known is not None and "scope" in options and options["scope"] not in known:
        raise ConfigError(f"unknown scope {options['scope'][:80]!r}; known scopes: {sorted(known)}")
    lists = read(state_dir)
    if "scope" in options:
        lists = {s: r for s, r in lists.items() if s == options["scope"]}
    if options.get("output") == "json":
        payload: dict[str, Any] = {
            s: [{"path": p, "reason": r, "detail": d} for p, r, d in rows]
            for s, rows in lists.items()
        }
        print(json.dumps(payload, indent=2, ensure_ascii=False))
        return 0
    if not lists:
        print("no skipped files recorded (arr index records them)")
        return 0
    for scope, rows in sorted(lists.items()):
        print(f"{scope}: {len(rows)} skipped file(s)")
        print("\n".join(table(rows, None)))
    return 0
