"""Every ``arr`` command the README and ``docs/`` show is run as written, in page order, where
the page says it runs: the checkout's pages (configuration, evaluation, LLM) in a copy of the
checkout (so the demo's index, outputs and state are the copy's), the workspace pages (README,
workspaces) in a new folder holding the trees they name. A placeholder (``<timestamp>``, ``<kept
hash>``) is filled with what the earlier commands made. Each command exits 0 without a
traceback, except those that need an LLM endpoint this machine does not have: they end in one
clean line (or answer degraded). Commands not run are listed with the reason (a benchmark, the
test suite itself, a shell built-in); test_docs_commands composes those against the config.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.test_docs_commands import COMMANDS, REPO

pytestmark = [pytest.mark.slow, pytest.mark.model]

NOT_RUN = {
    "make ": "the suite or a benchmark: CI runs make test, the benchmarks are run by hand",
    "pip ": "installing: tests/e2e/test_installed_wheel installs the wheel in a new virtualenv",
    "source ": "a shell built-in",
    "export ": "a shell built-in (and a key this machine does not have)",
    "python -m benchmarks": "a benchmark against a live endpoint",
    "arr eval eval=scifact": "SciFact: minutes and ../shared/data; make bench runs it",
    "arr eval -m eval=scifact": "a SciFact sweep: minutes and ../shared/data",
}
CHECKOUT_PAGES = ("docs/configuration.md", "docs/evaluation.md", "docs/llm.md")
WORKSPACE_PAGES = ("README.md", "docs/workspaces.md")
NEEDS_AN_ENDPOINT = ("llm=local", "reranker=llm", "arr llm check")


def page_commands(page: str) -> list[tuple[str, str]]:
    return [(where, command) for where, command in COMMANDS if where.split(":")[0] == page]


def why_not_run(command: str, more: dict[str, str] | None = None) -> str | None:
    reasons = {**NOT_RUN, **(more or {})}
    return next((why for prefix, why in reasons.items() if command.startswith(prefix)), None)


def test_every_command_shown_is_run_here_or_said_why_not() -> None:
    pages = {where.split(":")[0] for where, _ in COMMANDS}
    assert pages <= {*CHECKOUT_PAGES, *WORKSPACE_PAGES}, pages - {*CHECKOUT_PAGES, *WORKSPACE_PAGES}
    for where, command in COMMANDS:
        assert command.startswith("arr ") or why_not_run(command), f"{where}: {command}"


def checkout_copy(base: Path) -> Path:
    """The checkout's files arr reads (its package, config, pipelines and demo), elsewhere: arr
    run from there takes it for its checkout, so the demo's state is the copy's."""
    copy = base / "checkout"
    ignore = shutil.ignore_patterns("__pycache__", ".index", "*.sqlite3*", ".state")
    for name in ("arr", "conf", "pipelines", "data"):
        shutil.copytree(REPO / name, copy / name, ignore=ignore)
    shutil.copy2(REPO / "pyproject.toml", copy / "pyproject.toml")
    return copy


def launcher(package: Path | None) -> list[str]:
    """How ``arr`` is started: the ``arr`` of a virtualenv that installed the wheel
    (tests/e2e/test_wheel_docs), else this interpreter importing the checkout (copy)."""
    if package is not None and (package / "bin" / "arr").is_file():
        return [str(package / "bin" / "arr")]
    return [sys.executable, "-m", "arr.cli"]


def environment(home: Path, package: Path | None) -> dict[str, str]:
    """A user's environment in ``home``, offline, with no workspace or API key of the test's;
    ``package``: the checkout copy arr is imported from, or a virtualenv holding the wheel."""
    found = {
        **os.environ,
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    found.pop("ARR_WORKSPACE", None)
    found.pop("SILICONFLOW_API_KEY", None)
    if package is not None and launcher(package)[0] != sys.executable:
        found.pop("PYTHONPATH", None)  # the wheel's arr, not the checkout's
    elif package is not None:
        found["PYTHONPATH"] = str(package)
    return found


def run(command: str, cwd: Path, home: Path, package: Path | None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*launcher(package), *shlex.split(command)[1:]],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
        env=environment(home, package),
        stdin=subprocess.DEVNULL,
    )


def filled(command: str, cwd: Path, heads: dict[str, str]) -> str:
    """Placeholders filled with what the earlier commands made."""
    if "<timestamp>" in command:
        sweeps = sorted((cwd / "outputs" / "eval" / "multiruns").iterdir())
        command = command.replace("<timestamp>", sweeps[-1].name)
    if "<run A>" in command:
        runs = sorted(p for p in (cwd / "outputs" / "eval" / "runs").iterdir() if p.is_dir())
        runs = [run for run in runs if (run / "report.json").is_file()]
        assert len(runs) >= 2, runs
        command = command.replace("<run A>", runs[0].name).replace("<run B>", runs[-1].name)
    command = command.replace("memory:<hash>", f"memory:{heads.get('memory', '')}")
    command = command.replace("ledger:<hash>", f"ledger:{heads.get('ledger', '')}")
    command = command.replace("<kept hash>", heads.get("memory") or heads.get("ledger", ""))
    assert "<" not in command, f"a placeholder this test cannot fill: {command}"
    return command


def judged(where: str, command: str, done: subprocess.CompletedProcess) -> None:
    said = f"{where}: {command}\n{done.stdout[-1500:]}\n{done.stderr[-1500:]}"
    assert "Traceback" not in done.stderr + done.stdout, said
    if any(need in command for need in NEEDS_AN_ENDPOINT):
        # no endpoint here: one clean line and a non-zero exit, or an answer marked degraded
        assert done.returncode == 0 or done.stderr.strip().count("\n") <= 2, said
        return
    assert done.returncode == 0, said
    if "--json" in command:
        json.loads(done.stdout)


def run_page(
    page: str, cwd: Path, home: Path, package: Path | None, more: dict[str, str] | None = None
) -> list[str]:
    """The page's commands run in order (``more``: commands not run here, with why)."""
    ran, heads = [], {}
    for where, command in page_commands(page):
        if why_not_run(command, more):
            continue
        command = command.split("  #", 1)[0].strip()
        if command.startswith("arr serve"):
            serve(where, command, cwd, home, package)
            ran.append(command)
            continue
        if "<run A>" in command:  # two runs to compare: the page's arr eval, and another
            second = "arr eval pipeline=bm25_only"
            judged(where, second, run(second, cwd, home, package))
        command = filled(command, cwd, heads)
        done = run(command, cwd, home, package)
        judged(where, command, done)
        if command == "arr audit head":
            for line in done.stdout.splitlines():
                found = re.search(r"\b(memory|ledger)\b.*?\b([0-9a-f]{64})\b", line)
                if found:
                    heads[found.group(1)] = found.group(2)
        ran.append(command)
    return ran


def serve(where: str, command: str, cwd: Path, home: Path, package: Path | None) -> None:
    """A stdio server ends when its client closes stdin; an HTTP one answers on its port and
    ends on Ctrl-C with one line."""
    if "--http" not in command:
        done = run(command, cwd, home, package)
        judged(where, command, done)
        return
    words = shlex.split(command)
    port = int(words[words.index("--port") + 1])
    process = subprocess.Popen(
        [*launcher(package), *words[1:]],
        cwd=cwd,
        env=environment(home, package),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.3)
        assert process.poll() is None, f"{where}: {command} ended: {process.communicate()}"
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130 and "Traceback" not in err, f"{where}: {command}\n{err}"


def test_the_checkout_pages_run_as_written(tmp_path: Path) -> None:
    copy = checkout_copy(tmp_path)
    ran = [c for page in CHECKOUT_PAGES for c in run_page(page, copy, tmp_path / "home", copy)]
    assert len(ran) >= 25, ran


def test_the_workspace_pages_run_as_written(tmp_path: Path) -> None:
    import bm25s

    for page in WORKSPACE_PAGES:
        folder = tmp_path / page.replace("/", "-")
        shutil.copytree(
            Path(bm25s.__file__).parent,
            folder / "src",
            ignore=shutil.ignore_patterns("__pycache__"),
        )
        for named in ("notes", "docs"):  # the trees docs/workspaces.md adds as scopes
            (folder / named).mkdir()
            (folder / named / "warmup.md").write_text(
                "# Warmup\nwhy did the loss spike: the learning rate had no warmup\n"
            )
        ran = run_page(page, folder, tmp_path / "home", None)
        assert any(c.startswith("arr search") for c in ran), (page, ran)
