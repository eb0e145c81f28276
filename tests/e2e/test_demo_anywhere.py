"""The bundled demo from any folder (issue 63): ``workspace=demo`` names the demo in the
user's data folder, built on first use, and nothing is created where the user stands; outside
the checkout an editable install (this test's ``arr``, imported from the checkout) behaves as
the wheel does: outside a workspace, the ``arr init`` hint, not the checkout's demo answering.
(tests/e2e/test_installed_wheel runs the same from a built wheel.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.test_workspace_cli import arr

LEXICAL = ["tools=[memory,bm25]"]


@pytest.fixture()
def user(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """An empty folder outside the checkout and a data folder of the user's own."""
    here = tmp_path / "elsewhere"
    here.mkdir()
    return here, {"XDG_DATA_HOME": str(tmp_path / "data-home"), "HOME": str(tmp_path)}


def test_workspace_demo_answers_from_any_folder_and_builds_once(
    user: tuple[Path, dict[str, str]],
) -> None:
    here, env = user
    first = arr("search", "warmup loss spikes", "workspace=demo", "--json", *LEXICAL, cwd=here,
                env=env)  # fmt: skip
    assert first.returncode == 0, first.stderr
    assert "the demo's first use: indexing bm25, memory once" in first.stderr
    found = json.loads(first.stdout)
    assert found["scope"]["branch"] == "main" and found["evidence"]  # the demo's default scope
    assert {"bm25", "memory"} == {c for e in found["evidence"] for c in e["ranks"]}
    again = arr("search", "warmup", "workspace=demo", *LEXICAL, cwd=here, env=env)
    assert again.returncode == 0 and "first use" not in again.stderr
    skipped = arr("skipped", "workspace=demo", cwd=here, env=env)
    assert skipped.returncode == 0 and "Traceback" not in skipped.stderr
    assert list(here.iterdir()) == []  # no .arr/outputs where the user stands
    (home,) = (Path(env["XDG_DATA_HOME"]) / "arr").iterdir()
    assert (home / "outputs" / "search" / "runs").is_dir()


def test_outside_the_checkout_an_editable_install_says_arr_init(
    user: tuple[Path, dict[str, str]],
) -> None:
    here, env = user
    for command in (["search", "warmup"], ["index"], ["memory", "list"]):
        done = arr(*command, cwd=here, env=env)
        assert done.returncode == 2 and "no ARR workspace" in done.stderr, done.stderr
        assert "arr init" in done.stderr and "workspace=demo" in done.stderr
    assert list(here.iterdir()) == []


def test_the_readme_library_snippet_answers_on_a_fresh_install(
    user: tuple[Path, dict[str, str]],
) -> None:
    """The README's library-mode block as written, in a new process, before any arr demo."""
    here, env = user
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    snippet = readme.split("## Library mode", 1)[1].split("```python\n", 1)[1].split("```")[0]
    import os

    done = subprocess.run(
        [sys.executable, "-c", snippet], capture_output=True, text=True, timeout=300, cwd=here,
        env={**os.environ, **env, "HF_HUB_OFFLINE": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any("warmup" in line for line in lines[:3]), done.stdout
    assert lines[-1] == "False () ()"  # not partial, nothing refused or degraded
    assert list(here.iterdir()) == [] and done.stderr == ""
