"""Every command the README and ``docs/`` show in a ``bash`` block is one arr understands:
its command and action exist, its overrides compose against the packaged config (a removed
option, a renamed group or a mistyped key fails here), its flags are known, its ``make``
target exists and the extras a ``pip install`` names are declared. tests/e2e/test_docs_run.py
then runs every ``arr`` command of the pages as written (this test is the fast check)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import tomllib

from arr.cli import arguments as cli
from arr.compose.library import compose, refuse_added_keys
from arr.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
HYDRA_COMMANDS = ("search", "index", "eval", "demo", "memory")
HYDRA_FLAGS = ("--json", "-m", "--multirun", "--cfg", "--resolve", "--info", "--hydra-help")
SERVE_FLAGS = {"--scope": 1, "--http": 0, "--host": 1, "--port": 1, "--warm": 0}
PLACEHOLDER = re.compile(r"<[^>]*>|\.\.\.|\$\(|\$\{")


def shown_commands() -> list[tuple[str, str]]:
    """(page:line, command line) of every line in a ```bash block (continuations joined)."""
    found = []
    for page in PAGES:
        inside, pending, start = False, "", 0
        for number, line in enumerate(page.read_text().splitlines(), 1):
            if line.startswith("```"):
                inside = line.strip() in ("```bash", "```sh", "```shell") and not inside
                continue
            if not inside or not line.strip() or line.lstrip().startswith("#"):
                continue
            if not pending:
                start = number
            pending += line.rstrip("\\") + " "
            if not line.rstrip().endswith("\\"):
                found.append((f"{page.relative_to(REPO)}:{start}", pending.strip()))
                pending = ""
    return found


COMMANDS = shown_commands()


def test_the_pages_show_commands() -> None:
    assert len([c for _, c in COMMANDS if c.startswith("arr ")]) >= 20
    assert any(c.startswith("make ") for _, c in COMMANDS)


def _first_sweep_value(override: str) -> str:
    """``fusion=wsum,rrf`` -> ``fusion=wsum`` (a sweep composes like its first job)."""
    key, _, value = override.partition("=")
    if "," in value and not value.startswith(("[", "{", "'", '"')):
        value = value.split(",", 1)[0]
    return f"{key}={value}"


def check_arr(words: list[str]) -> None:
    args = words[1:]
    if args[:1] == ["--workspace"]:
        args = args[2:]
    if args[:1] in (["--version"], ["--help"]):
        return
    command, rest = args[0], args[1:]
    assert command in cli.COMMANDS, f"unknown command {command!r}"
    if command == "serve":
        iterator = iter(rest)
        for arg in iterator:
            if arg.startswith("-"):
                assert arg in SERVE_FLAGS, f"arr serve has no {arg}"
                for _ in range(SERVE_FLAGS[arg]):
                    next(iterator)
        return
    if command == "scope":
        assert rest[:1] and rest[0] in ("add", "list", "remove"), rest
        return
    if command == "audit":
        assert rest[:1] and rest[0] in ("verify", "head"), rest
        return
    if command not in HYDRA_COMMANDS:
        return
    if command == "memory":
        assert rest and rest[0] in cli.MEMORY_ACTIONS, rest
        rest = rest[1:]
        if rest and cli.is_bare(rest[0]):
            rest = rest[1:]
    if command == "search":  # options in any position, as the CLI reads them
        from arr.cli.arguments import search_options

        rest = [a for a in search_options(rest) if not a.startswith("query=")]
    flags = [a for a in rest if a.startswith("-")]
    assert all(f in HYDRA_FLAGS or f.startswith("--shell") for f in flags), flags
    _, overrides = cli.split_arguments([a for a in rest if not a.startswith("-")])
    overrides = [_first_sweep_value(o) for o in overrides if not PLACEHOLDER.search(o)]
    overrides = [o for o in overrides if not o.startswith(("scope=", "status="))]
    refuse_added_keys(overrides)
    compose(command, overrides)


@pytest.mark.parametrize("where, line", COMMANDS, ids=[w for w, _ in COMMANDS])
def test_a_shown_command_is_one_arr_understands(where: str, line: str) -> None:
    words = shlex.split(line, comments=True)
    if not words:
        return
    if words[0] == "arr":
        try:
            check_arr(words)
        except ConfigError as exc:
            pytest.fail(f"{where}: {line}\n{exc}")
    elif words[0] == "make":
        targets = re.findall(r"^([a-z][\w-]*):", (REPO / "Makefile").read_text(), re.M)
        assert all(w in targets for w in words[1:] if "=" not in w), f"{where}: {line}"
    elif words[0] == "pip" and "install" in words:
        extras = set(
            tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
        )
        for word in words:
            named = re.search(r"\[([\w,]+)\]$", word)
            if named:
                assert set(named.group(1).split(",")) <= extras, f"{where}: {line}"
