"""Many readers on one router while another process rebuilds indexes and publishes memories."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from arr.compose.indexing import index_workspace
from arr.compose.library import compose, load_router
from arr.compose.runner import build_tools, build_workspace, config_container
from arr.memory.store import ResearchMemoryStore
from tests.machine_speed import grace_s

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]

BACKGROUND = textwrap.dedent("""
    import json, sys
    from arr.compose.library import compose
    from arr.compose.indexing import index_workspace
    from arr.memory.store import ResearchMemoryStore
    from arr.compose.runner import build_tools, build_workspace, config_container
    overrides, writes = json.loads(sys.argv[1]), int(sys.argv[2])
    container = config_container(compose("index", overrides))
    workspace = build_workspace(container)
    tools = build_tools(container, workspace)
    store = ResearchMemoryStore(workspace.memory_db)
    scope = workspace.named_scopes()["nlp-main"]
    for i in range(writes):
        store.add_draft(f"load-{i}", scope, f"load finding {i}", "quokka load test body")
        store.transition(f"load-{i}", "publish", actor="load")
        if i % 5 == 0:
            index_workspace(workspace, tools, workspace.named_scopes(), progress=False)
    print("done", flush=True)
""")


def test_readers_and_a_writer_process_at_once(demo_overrides: list[str], demo_copy: Path) -> None:
    container = config_container(compose("index", demo_overrides))
    workspace = build_workspace(container)
    index_workspace(
        workspace, build_tools(container, workspace), workspace.named_scopes(), progress=False
    )
    router = load_router([*demo_overrides, "router.workers=4"])
    gold = [json.loads(x) for x in (demo_copy / "gold.jsonl").read_text().splitlines()]
    writes = 20
    writer = subprocess.Popen(
        [sys.executable, "-c", BACKGROUND, json.dumps(demo_overrides), str(writes)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    started = time.monotonic()

    def reader(worker: int) -> list[str]:
        problems = []
        for i in range(25):
            case = gold[(worker * 25 + i) % len(gold)]
            result = router.search(case["query"], case["scope"])
            expected = router.scopes[case["scope"]]
            if any(e.scope != expected for e in result.evidence) or result.scope_dropped:
                problems.append(f"scope leak in {case['id']}")
            bad = [
                d.code
                for d in result.degradations
                if d.code in ("index_corrupt", "channel_error", "memory_db_corrupt")
            ]
            if bad:
                problems.append(f"{case['id']}: {bad}")
        return problems

    with ThreadPoolExecutor(4) as pool:
        problems = [p for found in pool.map(reader, range(4)) for p in found]
    out, err = writer.communicate(timeout=120)
    assert writer.returncode == 0, err.decode()[-2000:]
    assert problems == []
    assert time.monotonic() - started < grace_s(120, at_most=500)
    store = ResearchMemoryStore(workspace.memory_db)
    loaded = [m for m in store.list(status="published") if m.id.startswith("load-")]
    assert len(loaded) == writes  # no lost write
    audit = [r for r in store.audit_rows() if str(r["memory_id"]).startswith("load-")]
    assert len(audit) == 2 * writes
    found = router.search("quokka load test", "nlp-main")
    assert any(e.id.startswith("mem:load-") for e in found.evidence)
    router.close()
