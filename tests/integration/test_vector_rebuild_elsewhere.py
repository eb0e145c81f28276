"""A long-lived router keeps answering from the vector channel after another process rebuilds
the store (``arr index rebuild=true``): it re-opens the replaced collection instead of failing
with "Collection ... does not exist" until restarted."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import SCOPE_A, make_router
from tests.integration.test_vector_tool import make_tool, workspace

pytestmark = pytest.mark.slow

REBUILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from arr.workspace.workspace import Workspace
    from tests.conftest import SCOPE_A
    from tests.integration.test_vector_tool import make_tool
    base = Path(sys.argv[1])
    ws = Workspace(
        name="t", root=base / "ws", index_dir=base / "idx", memory_db=base / "m.sqlite3",
        scopes={"a": {"key": SCOPE_A, "roots": ["a"]}},
    )
    tool = make_tool(ws)
    for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 1):
        if len(sys.argv) > 2:
            tool.rebuild(SCOPE_A)  # what arr index rebuild=true does: beside, then a swap
        else:
            tool.reset(SCOPE_A)
            tool.build(SCOPE_A)
    tool.close()
    """
)


def rebuild_elsewhere(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", REBUILD, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr


def test_router_answers_after_another_process_rebuilt(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = make_tool(ws)
    tool.build(SCOPE_A)
    router = make_router(tool)
    router.watch_changes()
    try:
        first = router.search("warmup loss spikes", SCOPE_A)
        assert first.partial is False and first.evidence
        for _ in range(2):
            rebuild_elsewhere(tmp_path)
            again = router.search("warmup loss spikes", SCOPE_A)
            assert again.degradations == () and again.partial is False, again.degradations
            assert [e.id for e in again.evidence] == [e.id for e in first.evidence]
    finally:
        router.close()
        tool.close()


def test_searches_during_a_rebuild_loop_elsewhere_are_never_partial(tmp_path: Path) -> None:
    """Rebuilds build beside the live collection and swap in two renames that readers wait
    for: a router answering all along sees no missing index (was 47-57% partial)."""
    ws = workspace(tmp_path, {"a": SCOPE_A})
    for i in range(60):
        (ws.root / "a" / "notes" / f"n{i}.md").write_text(f"note {i} warmup topic{i % 7}\n" * 8)
    tool = make_tool(ws)
    tool.build(SCOPE_A)
    router = make_router(tool)
    router.watch_changes()
    child = subprocess.Popen(
        [sys.executable, "-c", REBUILD, str(tmp_path), "4"],
        cwd=Path(__file__).resolve().parents[2],
    )
    searches, partial = 0, []
    try:
        while child.poll() is None or searches < 5:
            result = router.search("warmup topic3", SCOPE_A)
            searches += 1
            if result.partial:
                partial.append([f"{d.code}: {d.detail[:200]}" for d in result.degradations])
    finally:
        child.wait(timeout=300)
        router.close()
        tool.close()
    assert child.returncode == 0
    # measured 0 of 1,027 (README); a loaded CI machine may still tear a read at the instant of
    # a swap, so the bound is 1% (the issue measured 47-57%) and never the old failure mode
    assert len(partial) <= max(1, searches // 100), f"{len(partial)} of {searches}: {partial[:3]}"
    assert not any("vector_store_unavailable" in d for found in partial for d in found), partial
