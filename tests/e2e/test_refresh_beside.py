"""A refresh longer than a search's deadline runs beside it (arr.router.refresh), as users meet
it: the CLI answers by the deadline and leaves at once, with exit status 0 (a thread stopped
in native code at finalisation crashed it, 2 runs in 6, before it left as a kill would); a
library caller's process waits at exit for the refresh it started."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.machine_speed import slowness

pytestmark = pytest.mark.slow
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}


def dense(folder: Path, count: int, seed: int) -> None:
    """Files of distinct words: seconds to tokenize, more than the deadline."""
    draw = random.Random(seed)
    for number in range(count):
        lines = (" ".join(f"w{draw.getrandbits(40):x}" for _ in range(100)) for _ in range(600))
        (folder / f"dump{seed}-{number}.md").write_text("\n".join(lines) + "\n")


def test_the_cli_answers_by_its_deadline_and_leaves(demo_indexed: list[str]) -> None:
    data = next(o.split("=", 1)[1] for o in demo_indexed if o.startswith("paths.data_dir="))
    dense(Path(data) / "demo" / "vision-main" / "notes", 8, seed=1)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "arr.cli", "search", "batch_size", "--json",
         "scope=vision-main", "tools=[bm25,grep]", "router.deadline_ms=500", *demo_indexed],
        capture_output=True, text=True, timeout=300, env=ENV,
    )  # fmt: skip
    took = time.perf_counter() - started
    assert done.returncode == 0, done.stderr[-2000:]
    answer = json.loads(done.stdout)
    stale = [d for d in answer["degradations"] if d["code"] == "index_stale"]
    assert stale and "deadline" in stale[0]["detail"]
    assert answer["elapsed_ms"] < 500 * 1.1 + 200 * slowness()
    assert answer["evidence"]  # grep answered
    # tokenizing 8 such files takes seconds: the process left without waiting for it (a wait
    # at exit would have written the overlay)
    assert not list((Path(data) / "demo" / ".index").rglob("overlay.json"))
    assert took < 30 * slowness()


LIBRARY = """
import sys, time
from pathlib import Path
from arr.tools.bm25 import BM25Tool
from tests.conftest import SCOPE_A, make_router
from tests.integration.test_bm25_tool import workspace

class Embedding(BM25Tool):  # a refresh that cannot stop at the deadline (a model loading)
    def refresh(self, scope, max_changed_files):
        time.sleep(1.5)
        (Path(sys.argv[1]) / "refreshed").write_text("done")
        return True

ws = workspace(Path(sys.argv[1]), {"a": SCOPE_A})
tool = Embedding("bm25", ws)
result = make_router(tool, deadline_ms=200).search("warmup", SCOPE_A)
print(result.partial, [d.code for d in result.degradations])
"""


def test_a_library_process_waits_at_exit_for_its_refresh(tmp_path: Path) -> None:
    from arr.tools.bm25 import BM25Tool
    from tests.conftest import SCOPE_A
    from tests.integration.test_bm25_tool import workspace

    ws = workspace(tmp_path, {"a": SCOPE_A})
    BM25Tool("bm25", ws).build(SCOPE_A)
    (ws.root / "a" / "notes" / "new.md").write_text("warmup again\n")  # stale: a refresh
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(LIBRARY), str(tmp_path)],
        capture_output=True, text=True, timeout=300, env=ENV, cwd=Path(__file__).parents[2],
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "True" in done.stdout and "index_stale" in done.stdout  # answered without it
    assert (tmp_path / "refreshed").read_text() == "done"  # the process waited for it at exit
