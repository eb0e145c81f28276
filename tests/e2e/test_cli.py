"""The ``arr`` command end to end, in subprocesses, on a private copy of the demo workspace."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def arr(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "arr.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=cwd,
    )


@pytest.fixture
def indexed(demo_overrides: list[str]) -> list[str]:
    done = arr("index", *demo_overrides)
    assert done.returncode == 0, done.stderr
    return demo_overrides


def test_demo_runs_end_to_end(demo_overrides: list[str], tmp_path: Path) -> None:
    done = arr("demo", *demo_overrides)
    assert done.returncode == 0, done.stderr
    assert "notes/warmup_schedule.md:1-12" in done.stdout and "trace:" in done.stdout
    runs = list((tmp_path / "outputs" / "demo" / "runs").iterdir())
    assert len(runs) == 1
    assert {"config.resolved.json", "results.json", "index.json", ".hydra"} <= {
        p.name for p in runs[0].iterdir()
    }
    results = json.loads((runs[0] / "results.json").read_text())
    assert all(e["scope"] == r["scope"] for r in results for e in r["evidence"])
    ids = [[e["id"] for e in r["evidence"]] for r in results]
    assert "mem:vis-warmup-001" in ids[0] and "mem:visdev-warmup-001" in ids[2]
    assert "mem:visdev-warmup-001" not in ids[0] and "mem:vis-warmup-001" not in ids[2]
    # --json: one object (the index summary, every result), nothing else on stdout
    as_json = arr("demo", "--json", *demo_overrides)
    assert as_json.returncode == 0, as_json.stderr
    said = json.loads(as_json.stdout)
    assert [[e["id"] for e in r["evidence"]] for r in said["results"]] == ids
    assert {p["tool"] for p in said["index"]["partitions"]} >= {"bm25", "grep", "vector"}


def test_search_json_is_the_full_router_result(indexed: list[str]) -> None:
    done = arr(
        "search",
        "query=Why did the warmup schedule fix the loss spikes?",
        "scope=vision-dev",
        "--json",
        *indexed,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert {"evidence", "traces", "rejections", "degradations", "partial", "planner"} <= set(result)
    assert result["evidence"][0]["scope"]["branch"] == "dev"
    ids = [e["id"] for e in result["evidence"]]
    assert "mem:visdev-warmup-001" in ids and "mem:vis-warmup-001" not in ids


def test_a_bare_first_argument_is_the_query(indexed: list[str]) -> None:
    """`arr search "question" scope=...` as a grep user types it; key=value stays an override."""
    question = "Why did the warmup schedule fix the loss spikes?"
    bare = arr("search", question, "scope=vision-dev", "--json", *indexed)
    named = arr("search", f"query={question}", "scope=vision-dev", "--json", *indexed)
    assert bare.returncode == 0, bare.stderr
    ids = [e["id"] for e in json.loads(bare.stdout)["evidence"]]
    assert ids == [e["id"] for e in json.loads(named.stdout)["evidence"]] and ids
    # a query holding "=" whose key no config has is the query (issue 63), not an override
    shaped = arr("search", "lr=3e-4 warmup", "scope=vision-dev", "--json", *indexed)
    assert shaped.returncode == 0, shaped.stderr
    assert json.loads(shaped.stdout)["query"] == "lr=3e-4 warmup"


def test_overrides_reach_the_router(indexed: list[str]) -> None:
    done = arr(
        "search",
        "query=Why did the warmup schedule fix the loss spikes?",
        "scope=vision-main",
        "output=json",
        "tools=[bm25]",
        "fusion.norm=zmuv",
        *indexed,
    )
    result = json.loads(done.stdout)
    assert {t["tool"] for t in result["traces"]} == {"bm25"}


def test_query_text_is_never_parsed_as_config(indexed: list[str]) -> None:
    query = "ValueError: a,b [x] ${oc.env:HOME} 'quoted' \"double\""
    done = arr("search", f"query={query}", "scope=vision-main", "--json", *indexed)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["query"] == query


def test_memory_lifecycle_is_audited_and_drafts_stay_hidden(indexed: list[str]) -> None:
    base = ["scope=nlp-main", *indexed]
    add = arr(
        "memory",
        "add",
        "id=nlp-new-9",
        "title=Quokka finding",
        "body=The quokka ablation shows nothing",
        "tags=zoo,test",
        *base,
    )
    assert add.returncode == 0, add.stderr

    def found() -> list[str]:
        out = arr("search", "query=quokka ablation", "--json", "tools=[memory]", *base)
        return [e["id"] for e in json.loads(out.stdout)["evidence"]]

    assert found() == []
    assert arr("memory", "publish", "id=nlp-new-9", *indexed).returncode == 0
    assert found() == ["mem:nlp-new-9"]
    assert arr("memory", "retract", "id=nlp-new-9", *indexed).returncode == 0
    assert found() == []
    listing = arr("memory", "list", "status=retracted", *base)
    assert "nlp-new-9" in listing.stdout and "retracted" in listing.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        pytest.param(
            ["search", "query=x", "scope=nowhere"], "unknown scope 'nowhere'", id="unknown-scope"
        ),
        pytest.param(["search", "query=", "scope=vision-main"], "query is empty", id="empty-query"),
        pytest.param(
            ["search", "query=" + "x" * 1001, "scope=vision-main"],
            "limit is 1000",
            id="query-too-long",
        ),
        pytest.param(["search", "scope=vision-main"], "query is required", id="no-query"),
        pytest.param(
            ["search", "query=x", "workspace.default_scope=null"],
            "scope is required",
            id="no-scope",
        ),
        pytest.param(
            ["search", "query=x", "scope=vision-main", "planner=oracle"],
            "planner",
            id="unknown-option",
        ),
        pytest.param(
            ["search", "query=x", "scope=vision-main", "router.max_rounds=9"],
            "max_rounds",
            id="budget-raised",
        ),
        pytest.param(
            ["search", "query=x", "scope=vision-main", "paths.data_dir=/nonexistent"],
            "not a readable directory",
            id="unreadable-workspace",
        ),
        pytest.param(["frobnicate"], "unknown command", id="unknown-command"),
        pytest.param(
            ["memory", "list", "status=deleted"], "status must be", id="bad-memory-status"
        ),
        pytest.param(
            ["memory", "publish", "id=does-not-exist"], "no memory with id", id="unknown-memory"
        ),
        pytest.param(
            ["memory", "add", "id=x y", "scope=nlp-main", "title=t", "body=b"],
            "invalid memory",
            id="bad-memory-id",
        ),
    ],
)
def test_bad_input_is_one_line_without_traceback(
    args: list[str], message: str, indexed: list[str]
) -> None:
    extra = [] if args[0] == "frobnicate" else indexed
    # paths.data_dir given twice: the later override wins, as in Hydra.
    head = 2 if args[0] == "memory" else 1
    done = arr(*args[:head], *extra, *args[head:])
    assert done.returncode == 2
    assert "Traceback" not in done.stderr + done.stdout
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("arr: error:") and message in lines[0], lines


def test_corrupt_memory_db_degrades_but_answers(indexed: list[str], demo_copy: Path) -> None:
    db = demo_copy.parent.parent / "state" / "memory.sqlite3"  # paths.state_dir of the copy
    for suffix in ("-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    db.write_bytes(b"garbage" * 1000)
    done = arr(
        "search",
        "query=Why did the warmup schedule fix the loss spikes?",
        "scope=vision-main",
        "--json",
        *indexed,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert [d["code"] for d in result["degradations"]] == ["memory_db_corrupt"]
    assert result["evidence"] and db.read_bytes() == b"garbage" * 1000
