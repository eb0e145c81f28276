"""The whole run's time left, on real parts: a vector channel (real Chroma, the hashing
embedder) says before it builds exactly what its build will embed, of each kind, and ``arr
index`` asks every semantic partition before the first is built, timing each kind this machine
knows no rate for once a run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arr.compose import run_clock
from arr.compose.indexing import index_workspace
from arr.embedder.hashing import HashingEmbedder
from arr.models import ScopeKey
from arr.tools.contract import Pending
from arr.tools.vector import VectorTool
from arr.vector_store.chroma import ChromaStore
from tests.conftest import SCOPE_A, file_workspace

SCOPE_B = SCOPE_A.model_copy(update={"branch": "other"})
FILES = {f"notes/n{i:02}.md": f"note {i} on warmup schedule {i * 7}\n" for i in range(70)}


def tool_for(ws: Any, calls: list[str] | None = None) -> VectorTool:
    class Recorded(VectorTool):
        def pending(
            self, scope: ScopeKey, rebuild: bool = False, sample: int = 0, known: Any = ()
        ) -> Pending:
            if calls is not None:
                calls.append(f"pending {scope.branch} {sorted(known)}")
            return super().pending(scope, rebuild, sample, known)

        def build(self, scope: ScopeKey, max_changed: int | None = None) -> dict[str, Any]:
            if calls is not None:
                calls.append(f"build {scope.branch}")
            return super().build(scope, max_changed)

    return Recorded("vector", ws, HashingEmbedder(), ChromaStore(ws.index_dir / "c"))


def test_pending_is_what_the_build_embeds(tmp_path: Path) -> None:
    ws = file_workspace(tmp_path, {"a": SCOPE_A}, FILES)
    tool = tool_for(ws)
    untimed = tool.pending(SCOPE_A)  # its sample_s: the model's load, not the plan's time
    assert untimed[:2] == (70, None) and (untimed.kinds, untimed.kind_rates) == ({"prose": 70}, {})
    before = tool.embedder.texts_embedded
    timed = tool.pending(SCOPE_A, sample=8)
    assert timed.items == 70 and timed.seconds_per_item > 0 and timed.sample_s > 0
    assert set(timed.kind_rates) == {"prose"}
    assert tool.embedder.texts_embedded == before + 8 + 4  # the sample (4 of them twice)
    assert tool.pending(SCOPE_A, sample=8, known={"prose"}).kind_rates == {}  # known: not timed
    assert tool.build(SCOPE_A)["embedded"] == 70
    assert tool.pending(SCOPE_A).items == 0
    assert tool.pending(SCOPE_A, sample=8)[:2] == (0, None)  # nothing to time
    (ws.root / "a" / "notes" / "n03.md").write_text("a new text on cosine decay\n")
    (ws.root / "a" / "notes" / "n99.md").write_text("and one more note\n")
    assert tool.pending(SCOPE_A).items == 2
    assert tool.build(SCOPE_A)["embedded"] == 2
    # a rebuild embeds every item into a new collection: so many it says
    assert tool.pending(SCOPE_A, rebuild=True).items == 71
    assert tool.rebuild(SCOPE_A)["embedded"] == 71


def test_kinds_are_counted_and_each_timed(tmp_path: Path) -> None:
    files = {
        **FILES,
        **{f"src/m{i}.py": f"def step_{i}(x):\n    return x * {i}\n" for i in range(9)},
    }
    ws = file_workspace(tmp_path, {"a": SCOPE_A}, files)
    timed = tool_for(ws).pending(SCOPE_A, sample=8)
    assert timed.kinds == {"prose": 70, "code": 9} and set(timed.kind_rates) == {"prose", "code"}


def test_every_semantic_partition_is_asked_before_the_first_builds(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    ws = file_workspace(tmp_path, {"a": SCOPE_A, "b": SCOPE_B}, FILES)
    calls: list[str] = []
    ready: list[float] = []
    _, reports = index_workspace(
        ws,
        {"vector": tool_for(ws, calls)},
        {"a": SCOPE_A, "b": SCOPE_B},
        progress=True,
        on_lexical_ready=lambda seconds, channels: ready.append(seconds),
    )
    assert [r.error for r in reports] == ["", ""]
    # no rate remembered: the first partition times its kind, the second knows it then
    assert calls == ["pending main []", "pending other ['prose']", "build main", "build other"]
    assert len(ready) == 1
    # the rate this run measured is kept, per embedder and kind, for the next run on this machine
    remembered = json.loads(run_clock.machine_rates().read_text())
    assert list(remembered) == [HashingEmbedder().id] and list(
        remembered[HashingEmbedder().id]
    ) == ["prose"]
    calls.clear()
    index_workspace(ws, {"vector": tool_for(ws, calls)}, {"a": SCOPE_A}, progress=True)
    assert calls == ["pending main ['prose']", "build main"]  # remembered: no sample timed
    calls.clear()
    index_workspace(ws, {"vector": tool_for(ws, calls)}, {"a": SCOPE_A}, progress=False)
    assert calls == ["build main"]  # no progress shown (library mode): nothing planned


def test_a_partition_that_cannot_plan_still_builds(tmp_path: Path) -> None:
    ws = file_workspace(tmp_path, {"a": SCOPE_A}, FILES)

    class NoPlan(VectorTool):
        def pending(
            self, scope: ScopeKey, rebuild: bool = False, sample: int = 0, known: Any = ()
        ) -> Pending:
            raise OSError("the plan could not be worked out")

    tool = NoPlan("vector", ws, HashingEmbedder(), ChromaStore(ws.index_dir / "c"))
    _, reports = index_workspace(ws, {"vector": tool}, {"a": SCOPE_A}, progress=True)
    assert reports[0].error == "" and reports[0].documents == 70
