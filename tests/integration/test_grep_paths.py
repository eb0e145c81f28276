"""A query that names a file by path finds that file first (arr.tools.grep.paths), under the
one file rule."""

from __future__ import annotations

import os
from pathlib import Path

from arr.tools.grep import GrepTool
from arr.tools.grep.paths import path_tokens
from tests.grep_fixtures import grep_workspace, run


def test_path_tokens() -> None:
    assert path_tokens("httpx/_transports/default.py") == ["httpx/_transports/default.py"]
    assert path_tokens("why does ./conf/x.yaml fail") == ["conf/x.yaml"]
    assert path_tokens("the loss spikes at step 3.5") == []


def test_a_named_file_comes_first_and_links_are_refused(tmp_path: Path) -> None:
    ws = grep_workspace(tmp_path)
    root = ws.root / "root"
    (root / "httpx" / "_transports").mkdir(parents=True)
    (root / "httpx" / "_transports" / "default.py").write_text("class HTTPTransport:\n    pass\n")
    (root / "notes.md").write_text("we changed httpx/_transports/default.py twice\n")
    outside = tmp_path / "secret.py"
    outside.write_text("SECRET\n")
    os.link(outside, root / "linked.py")
    answer = run(GrepTool("grep", ws), query="httpx/_transports/default.py")
    paths = [e.location.path for e in answer.evidence]
    assert paths[0] == "httpx/_transports/default.py" and "notes.md" in paths
    assert answer.evidence[0].snippet.startswith("class HTTPTransport")
    assert [e.ranks["grep"] for e in answer.evidence] == list(range(1, len(paths) + 1))
    one = run(GrepTool("grep", ws), query="httpx/_transports/default.py", top_k=1)
    assert [e.location.path for e in one.evidence] == ["httpx/_transports/default.py"]  # limit
    linked = run(GrepTool("grep", ws), query="linked.py")
    assert all(e.location.path != "linked.py" for e in linked.evidence)
