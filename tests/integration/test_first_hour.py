"""The first hour on a new tree: lexical channels ready first (and said so), a search during
the vector build answers from them with the build's progress, ``--lexical`` skips embedding,
and the exported model lives once per user, never in a workspace."""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

import arr
from arr import codes
from arr.embedder.onnx import QUANTIZE_RECIPE
from arr.tools.build_progress import build_state
from arr.tools.partition import exclusive_lock, lock_held
from tests.e2e.test_workspace_cli import arr as arr_cli

pytestmark = pytest.mark.slow


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
    """Before the first batch is stored: index_building with the build named (the other
    channels answer); after it: the vectors embedded so far answer too (index_partial), the
    result partial, the detail saying how far the build is."""
    for n in range(12):
        (project / "notes" / f"note{n}.md").write_text(f"Warmup note {n}: loss spikes fell.\n")
    assert arr_cli("index", "--lexical", "progress=false", cwd=project).returncode == 0
    router = arr.load_router(["embedder=hashing"], workspace=project)
    question = "why did warmup remove the loss spikes"
    try:
        vector = router.tools["vector"]
        scope = router.scopes["notes"]
        lock = vector._build_lock(scope)
        assert build_state(lock) is None
        with exclusive_lock(lock):  # a build that has not stored anything yet
            assert lock_held(lock)
            early = router.search(question, scope)
        degraded = {d.stage: d for d in early.degradations}
        assert early.partial and degraded["vector"].code == codes.INDEX_BUILDING
        assert "run arr index" not in degraded["vector"].detail
        assert {e.channel for e in early.evidence} & {"bm25", "memory"}  # the ready channels

        stored = threading.Event()
        release = threading.Event()
        inner = vector.embedder

        class Slow:  # the embedder as a long build sees it: one batch, then a wait
            def __getattr__(self, name: str) -> object:
                return getattr(inner, name)

            def embed(self, texts: list[str], *args: object) -> object:
                if stored.is_set():
                    release.wait(30)
                stored.set()
                return inner.embed(texts)

        vector.embedder, vector.commit_every = Slow(), 4
        builder = threading.Thread(target=vector.build, args=(scope,))
        builder.start()
        try:
            assert stored.wait(30)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not (
                lock.parent / (lock.name + ".progress.json")
            ).read_text().count('"done": 4'):
                time.sleep(0.05)
            during = router.search(question, scope)
        finally:
            release.set()
            builder.join(60)
        degraded = {d.stage: d for d in during.degradations}
        assert during.partial and degraded["vector"].code == codes.INDEX_PARTIAL
        assert "4 of 14 items embedded" in degraded["vector"].detail
        assert "vector" in {c for e in during.evidence for c in e.ranks}  # a hybrid answer
        after = router.search(question, scope)
        assert not after.degradations and not after.partial
    finally:
        router.close()


@pytest.mark.model
def test_the_model_export_lives_once_per_user(project: Path, tmp_path: Path) -> None:
    """With embedder=onnx the export is written to $ARR_MODEL_CACHE (the platform cache by
    default), atomically, and reused by every workspace: none holds a copy of its own."""
    cache = tmp_path / "model-cache"
    env = {"ARR_MODEL_CACHE": str(cache)}
    shared = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "arr" / "onnx"
    if shared.is_dir():  # reuse this machine's export: seconds instead of a minute of torch
        cache.mkdir()
        for model in shared.glob("*.onnx"):
            shutil.copy2(model, cache / model.name)
    done = arr_cli("index", "progress=false", "tools=[vector]", cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    assert not list((project / ".arr").rglob("*.onnx"))
    models = sorted(p.name for p in cache.glob("*.onnx"))
    assert any(name.endswith(f"-{QUANTIZE_RECIPE}.onnx") for name in models), models
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
