"""Every command of the README and docs/ that a wheel user can run, run as written from the
built wheel (tests/e2e/test_installed_wheel's fresh virtualenv, outside the checkout), each
from a new folder: an empty one for the demo's pages, one holding the trees a workspace page
names (``src``, ``notes``, ``docs``) for the workspace pages. Each exits 0 without a
traceback (a command needing an LLM endpoint: one clean line), as tests/e2e/test_docs_run
judges the checkout's run; the Python blocks (library mode) run with the wheel's interpreter.
Commands a wheel user cannot run are listed with the reason; nothing is created where the
user stands but what a command names (``file=memories.jsonl``)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e.test_docs_run import NOT_RUN, environment, run_page
from tests.e2e.test_installed_wheel import installed  # noqa: F401 (fixture)

pytestmark = [pytest.mark.slow, pytest.mark.model]

REPO = Path(__file__).resolve().parents[2]
DEMO_PAGES = ("docs/configuration.md", "docs/evaluation.md", "docs/llm.md")
WORKSPACE_PAGES = ("README.md", "docs/workspaces.md")
# Not for a wheel user, beside test_docs_run's NOT_RUN (make, pip, benchmarks, SciFact):
NOT_FROM_THE_WHEEL = {
    "arr report outputs/": "names a checkout's run folders by their relative path (from a "
    "wheel the demo's runs are under ~/.local/share/arr/demo-<version>/outputs)",
}


def python_blocks(page: str) -> list[str]:
    text = (REPO / page).read_text()
    return [block.split("```", 1)[0] for block in text.split("```python\n")[1:]]


def workspace_folder(base: Path) -> Path:
    """A new folder holding the trees the workspace pages add as scopes."""
    import bm25s

    shutil.copytree(
        Path(bm25s.__file__).parent, base / "src", ignore=shutil.ignore_patterns("__pycache__")
    )
    for named in ("notes", "docs"):
        (base / named).mkdir()
        (base / named / "warmup.md").write_text(
            "# Warmup\nwhy did the loss spike: the learning rate had no warmup\n"
        )
    return base


def test_every_docs_command_a_wheel_user_can_run_runs_from_the_wheel(
    installed: tuple[Path, dict[str, str]],  # noqa: F811
    tmp_path: Path,
) -> None:
    venv, _ = installed
    home = tmp_path / "home"
    ran: dict[str, list[str]] = {}
    for page in DEMO_PAGES:
        here = tmp_path / page.replace("/", "-")
        here.mkdir()
        ran[page] = run_page(page, here, home, venv, NOT_FROM_THE_WHEEL)
        left = sorted(p.name for p in here.iterdir())
        assert set(left) <= {"memories.jsonl"}, (page, left)  # nothing but what was named
    for page in WORKSPACE_PAGES:
        here = workspace_folder(tmp_path / page.replace("/", "-"))
        ran[page] = run_page(page, here, home, venv, NOT_FROM_THE_WHEEL)
    assert all(
        any(c.startswith("arr search") for c in ran[p]) for p in ran if p != "docs/evaluation.md"
    ), ran
    assert len(ran["docs/configuration.md"]) >= 11 and len(ran["docs/evaluation.md"]) >= 5
    for page in ("README.md", "docs/configuration.md"):  # library mode, before any arr demo
        for number, block in enumerate(python_blocks(page)):
            here = tmp_path / f"python-{page.replace('/', '-')}-{number}"
            here.mkdir()
            done = subprocess.run(
                [str(venv / "bin" / "python"), "-c", block], capture_output=True, text=True,
                timeout=600, cwd=here, env=environment(tmp_path / f"fresh-{number}", venv),
            )  # fmt: skip
            assert done.returncode == 0 and "Traceback" not in done.stderr, (page, done.stderr)
            assert "warmup" in done.stdout.lower(), (page, done.stdout)  # it answered
            assert list(here.iterdir()) == []


def test_what_the_wheel_test_leaves_out_is_said_why() -> None:
    from tests.e2e.test_docs_run import page_commands, why_not_run

    for page in (*DEMO_PAGES, *WORKSPACE_PAGES):
        for where, command in page_commands(page):
            assert command.startswith("arr ") or why_not_run(command, NOT_FROM_THE_WHEEL), where
    assert "make " in NOT_RUN and os.sep == "/"
