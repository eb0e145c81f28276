"""The first hour on a new tree: lexical channels ready first (and said so), a search during
the vector build answers from them with the build's progress, ``--lexical`` skips embedding,
and the exported model lives once per user, never in a workspace."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import arr
from arr import codes
from arr.tools.build_progress import BuildProgress, lock_held, running_build
from arr.tools.partition import exclusive_lock

pytestmark = pytest.mark.slow
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
ENV.pop("ARR_WORKSPACE", None)


def arr_cli(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "arr.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env=env or ENV,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    (folder / "notes").mkdir(parents=True)
    (folder / "notes" / "warmup.md").write_text("Linear warmup removed the loss spikes.\n")
    (folder / "notes" / "parser.py").write_text("def parse_form_data(stream):\n    return {}\n")
    assert arr_cli("init", cwd=folder).returncode == 0
    assert arr_cli("scope", "add", "notes", "notes", cwd=folder).returncode == 0
    return folder


def test_lexical_channels_are_ready_first_and_said_so(project: Path) -> None:
    done = arr_cli("index", "embedder=hashing", "progress=false", cwd=project)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    ready = next(i for i, line in enumerate(lines) if line.startswith("lexical channels ready"))
    assert "bm25, grep, memory" in lines[ready] and "vector index follows" in lines[ready]
    order = [line.split()[0] for line in lines if line.startswith("  ")]
    assert order == ["bm25", "grep", "vector"]  # every lexical partition before any vector one
    as_json = arr_cli("index", "embedder=hashing", "progress=false", "--json", cwd=project)
    summary = json.loads(as_json.stdout)
    assert summary["lexical_channels"] == ["bm25", "grep", "memory"]
    assert summary["lexical_ready_s"] < 60


def test_index_lexical_skips_the_vector_channel(project: Path) -> None:
    done = arr_cli("index", "--lexical", "progress=false", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "vector" not in {
        line.split()[0] for line in done.stdout.splitlines() if line[:2] == "  "
    }
    assert not (project / ".arr" / "index" / "vector").exists()
    found = arr_cli("search", "parse_form_data", "scope=notes", "--json", cwd=project)
    assert json.loads(found.stdout)["evidence"]  # lexical answers, no model ever loaded
    config = arr_cli("index", "lexical=true", "--cfg", "job", cwd=project)
    assert "lexical: true" in config.stdout


def test_a_search_during_the_vector_build_answers_with_its_progress(project: Path) -> None:
    assert arr_cli("index", "--lexical", "progress=false", cwd=project).returncode == 0
    router = arr.load_router(["embedder=hashing"], workspace=project)
    try:
        vector = router.tools["vector"]
        scope = router.scopes["notes"]
        lock = vector._build_lock(scope)
        assert running_build(lock, "vector") is None
        with exclusive_lock(lock):  # another process's build, as far as the reader can tell
            progress = BuildProgress(lock, total=1000, bar=False)
            progress.advance(400)
            assert lock_held(lock)
            result = router.search("why did warmup remove the loss spikes", scope)
            progress.close()
        degraded = {d.stage: d for d in result.degradations}
        assert result.partial and degraded["vector"].code == codes.INDEX_BUILDING
        assert "400 of 1,000 items embedded (40%)" in degraded["vector"].detail
        assert (
            "left" in degraded["vector"].detail and "run arr index" not in degraded["vector"].detail
        )
        assert {e.channel for e in result.evidence} & {"bm25", "memory"}  # the ready channels
        after = router.search("why did warmup remove the loss spikes", scope)
        assert "vector" in {d.stage for d in after.degradations}  # no build now: index missing
        assert after.degradations[0].code != codes.INDEX_BUILDING
    finally:
        router.close()


@pytest.mark.model
def test_the_model_export_lives_once_per_user(project: Path, tmp_path: Path) -> None:
    """With embedder=onnx the export is written to $ARR_MODEL_CACHE (the platform cache by
    default), atomically, and reused by every workspace: none holds a copy of its own."""
    cache = tmp_path / "model-cache"
    env = {**ENV, "ARR_MODEL_CACHE": str(cache)}
    shared = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "arr" / "onnx"
    if shared.is_dir():  # reuse this machine's export: seconds instead of a minute of torch
        cache.mkdir()
        for model in shared.glob("*.onnx"):
            shutil.copy2(model, cache / model.name)
    done = arr_cli("index", "progress=false", "tools=[vector]", cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    assert not list((project / ".arr").rglob("*.onnx"))
    models = sorted(p.name for p in cache.glob("*.onnx"))
    assert any(name.endswith("-int8pc.onnx") for name in models), models
    assert not [p for p in cache.iterdir() if ".tmp-" in p.name]  # written whole
    found = arr_cli(
        "search",
        "why did warmup remove the loss spikes",
        "scope=notes",
        "--json",
        cwd=project,
        env=env,
    )
    assert "vector" in {c for e in json.loads(found.stdout)["evidence"] for c in e["ranks"]}
