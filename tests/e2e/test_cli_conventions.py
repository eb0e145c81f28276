"""CLI conventions through the installed entry point: --version, per-command --help, JSON
errors with --json, and a closed stdout pipe ending quietly with status 141."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
ARR = shutil.which("arr", path=str(Path(sys.executable).parent)) or "arr"
ENV = {**os.environ, "HF_HUB_OFFLINE": "1"}


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ARR, *args], capture_output=True, text=True, timeout=300, env=ENV, cwd=cwd
    )


def test_version_names_arr_and_its_key_dependencies() -> None:
    done = run("--version")
    assert done.returncode == 0
    assert done.stdout.startswith("arr ") and "bm25s" in done.stdout and "pydantic" in done.stdout


@pytest.mark.parametrize("command", ["search", "index", "eval", "memory", "demo"])
def test_command_help_lists_usage_and_config_groups(command: str) -> None:
    done = run(command, "--help")
    assert done.returncode == 0, done.stderr
    assert f"usage: arr {command}" in done.stdout
    assert "fusion: dbsf, rrf, wsum" in done.stdout and "planner: llm, rule" in done.stdout


def test_json_errors_are_json_on_stdout(demo_overrides: list[str]) -> None:
    done = run("search", "query=warmup", "scope=no-such-scope", "--json", *demo_overrides)
    assert done.returncode == 2
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "scope_error" and "no-such-scope" in error["message"]
    done = run("search", "scope=vision-main", "--json", *demo_overrides)
    assert done.returncode == 2 and json.loads(done.stdout)["error"]["code"] == "config_error"


def test_json_output_of_index_memory_and_eval(demo_overrides: list[str]) -> None:
    """--json on index, memory list/show/add/publish and eval: one JSON object on stdout."""
    index = run("index", "tools=[bm25,memory]", "--json", *demo_overrides)
    assert index.returncode == 0, index.stderr
    built = json.loads(index.stdout)
    assert built["seeded"] > 0 and {p["tool"] for p in built["partitions"]} == {"bm25"}
    listed = json.loads(run("memory", "list", "--json", *demo_overrides).stdout)["memories"]
    assert listed and {"id", "status", "scope", "title"} <= set(listed[0])
    shown = json.loads(
        run("memory", "show", f"id={listed[0]['id']}", "--json", *demo_overrides).stdout
    )
    assert shown["id"] == listed[0]["id"]
    positional = run("memory", "show", listed[0]["id"], "--json", *demo_overrides)  # show ID
    assert json.loads(positional.stdout) == shown
    added = run(
        "memory", "add", "id=json-1", "scope=vision-main", "title=T", "body=B", "--json",
        *demo_overrides,
    )  # fmt: skip
    assert added.returncode == 0 and json.loads(added.stdout)["status"] == "draft"
    published = run("memory", "publish", "id=json-1", "--json", *demo_overrides)
    assert json.loads(published.stdout)["status"] == "published"
    missing = run("memory", "show", "id=no-such", "--json", *demo_overrides)
    assert missing.returncode != 0 and "no-such" in json.loads(missing.stdout)["error"]["message"]
    evaluated = run("eval", "tools=[bm25,memory]", "--json", *demo_overrides)
    assert evaluated.returncode == 0, evaluated.stderr
    report = json.loads(evaluated.stdout)
    assert report["cases"] > 0 and "ndcg@10" in report["aggregate"]


def test_closed_pipe_ends_quietly(demo_overrides: list[str]) -> None:
    built = run("index", "tools=[bm25,memory]", *demo_overrides)
    assert built.returncode == 0, built.stderr
    command = (
        f"{ARR} search 'query=warmup loss spikes' scope=vision-main tools=[bm25] "
        + " ".join(f"'{o}'" for o in demo_overrides)
        + " | head -1; echo status=${PIPESTATUS[0]}"
    )
    done = subprocess.run(
        ["bash", "-c", command], capture_output=True, text=True, timeout=300, env=ENV
    )
    assert "status=141" in done.stdout or "status=0" in done.stdout, done.stdout + done.stderr
    assert "Error" not in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "flags, expected",
    [
        (["--cfg", "job"], "tools:"),
        (["--cfg", "job", "--resolve"], "norm: min-max"),
        (["--info"], "Hydra"),
        (["--info", "defaults"], "Defaults List"),
        (["--hydra-help"], "Hydra"),
    ],
)
def test_hydra_flags_work(flags: list[str], expected: str, demo_overrides: list[str]) -> None:
    done = run("search", *flags, "query=warmup", "scope=vision-main", *demo_overrides)
    assert done.returncode == 0, done.stdout + done.stderr
    assert expected in done.stdout
    assert "Traceback" not in done.stderr


def test_errors_keep_hydras_helpful_line(demo_overrides: list[str]) -> None:
    done = run("search", "query=x", "scope=vision-main", "pipeline=bm25", *demo_overrides)
    assert done.returncode == 2 and "bm25_only" in done.stderr
    done = run("search", "query=x", "scope=vision-main", "foo.bar=1", *demo_overrides)
    # Hydra's "+foo.bar=1" hint is not passed on: arr refuses keys nothing reads
    assert done.returncode == 2 and "'foo.bar'" in done.stderr and "no such option" in done.stderr
    assert "+foo.bar" not in done.stderr


def test_audit_verify_says_what_to_run_and_counts_rows(tmp_path: Path) -> None:
    missing = run("audit", "verify", f"db={tmp_path / 'none.sqlite3'}")
    assert missing.returncode == 2
    assert "no database" in missing.stderr and "arr eval" in missing.stderr
    from arr.audit.approval import process_file

    demo = Path(__file__).resolve().parents[2] / "data" / "demo" / "proposals.jsonl"
    proposals = tmp_path / "proposals.jsonl"
    proposals.write_text(demo.read_text().splitlines()[0] + "\n")
    ledger = tmp_path / "ledger.sqlite3"
    process_file(proposals, "approve", ledger)
    done = run("audit", "verify", f"db={ledger}")
    assert done.returncode == 0, done.stderr
    assert "approvals ledger" in done.stdout and "ok, 4 rows" in done.stdout


def test_mistyped_keys_get_a_did_you_mean(demo_overrides: list[str]) -> None:
    for typo, meant in (
        ("fusion.nrom=zmuv", "fusion.norm"),
        ("routr.max_calls=3", "router.max_calls"),
        ("fuson=rrf", "fusion"),
    ):
        done = run("search", "query=x", "scope=vision-main", typo, *demo_overrides)
        assert done.returncode == 2 and f"Did you mean '{meant}'?" in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1


def test_shell_completion_installs_and_answers(demo_overrides: list[str]) -> None:
    bare = run("search", "--shell-completion", *demo_overrides)
    assert bare.returncode == 2 and "install=bash" in bare.stderr and "Traceback" not in bare.stderr
    script = run("search", "--shell-completion", "install=bash", *demo_overrides)
    assert script.returncode == 0 and "complete -o nospace -o default" in script.stdout
    assert script.stdout.rstrip().endswith(" arr")  # completes the `arr` command itself
    env = {**ENV, "COMP_LINE": "arr search fusion.n", "COMP_POINT": "19"}
    done = subprocess.run(
        [sys.executable, "-m", "arr.cli", "-sc", "query=bash"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0 and "fusion.norm=" in done.stdout, done.stdout + done.stderr
