"""arr index's line per partition says when the build found its index unreadable and rebuilt
it (arr.tools.vector: a damaged HNSW header), beside what the partition covers."""

from __future__ import annotations

from pathlib import Path

import pytest

from arr.cli.commands import _print_reports
from arr.compose.indexing import BuildReport


def test_a_repaired_partition_says_so(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    reports = [
        BuildReport("vector", "notes", 1200, 1489.0, repaired="chroma read failed: hnsw"),
        BuildReport("bm25", "notes", 1200, 115.0),
    ]
    _print_reports(reports, {}, tmp_path)
    vector, bm25 = capsys.readouterr().out.splitlines()
    assert "1200 passages; repaired: unreadable (chroma read failed: hnsw)" in vector
    assert "rebuilt from sources" in vector and "repaired" not in bm25
