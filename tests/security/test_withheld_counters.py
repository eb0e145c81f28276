"""Every file the grep channel withholds is counted by reason in the trace, including the files
ripgrep itself never opens (sensitive names, links, special files, over-size files), so a
withheld match never looks like "nothing there"."""

from __future__ import annotations

import os
from pathlib import Path

from arr.fusion.wsum import WSumFusion
from arr.planner.rule import RuleQueryPlanner
from arr.reranker.rule import RuleReranker
from arr.router.router import RetrievalRouter
from arr.tools.grep import GrepTool
from arr.workspace.workspace import Workspace
from tests.conftest import SCOPE_A


def test_one_count_per_withheld_kind(tmp_path: Path) -> None:
    root = tmp_path / "ws" / "files"
    root.mkdir(parents=True)
    (root / "plain.md").write_text("marker line here\n")
    (root / "prod.tfvars").write_text("marker line here\n")  # sensitive name
    os.symlink(root / "plain.md", root / "alias.md")  # link
    os.mkfifo(root / "pipe.md")  # special file
    (root / "huge.log").write_text("marker line here\n" * 200_000)  # over the size cap
    (root / "blob.dat").write_bytes(b"\x00\x01marker line here\n")  # binary: rg skips it
    (root / "late.md").write_bytes(b"marker line here\n" + b"x\n" * 70_000 + b"\x00\n")  # NUL late
    (root / "leak.md").write_text("marker line here\ntoken ghp_" + "a1B2c3D4e5" * 4 + "\n")
    workspace = Workspace(
        name="t",
        root=tmp_path / "ws",
        index_dir=tmp_path / "idx",
        memory_db=tmp_path / "m.sqlite3",
        scopes={"a": {"key": SCOPE_A, "roots": ["files"]}},
    )
    router = RetrievalRouter(
        tools={"grep": GrepTool("grep", workspace, max_file_bytes=1_000_000)},
        planner=RuleQueryPlanner(),
        fusion=WSumFusion(),
        reranker=RuleReranker(),
        scopes={"a": SCOPE_A},
    )
    result = router.search("marker line here", SCOPE_A)
    why = (result.traces, result.degradations, result.rejections)
    assert [e.location.path for e in result.evidence] == ["plain.md"], why
    (trace,) = [t for t in result.traces if t.tool == "grep"]
    counted = {k: v for k, v in trace.counters.items() if k.startswith("skipped_")}
    assert counted == {
        "skipped_sensitive_name": 1,
        "skipped_link": 1,
        "skipped_special_file": 1,
        "skipped_oversize": 1,
        "skipped_credential": 1,
        "skipped_binary": 2,
    }
    router.close()
