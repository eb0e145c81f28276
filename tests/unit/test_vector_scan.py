"""An exact search over a memory-mapped snapshot: the same numbers as a plain product, and the
file's pages are not kept resident by the process once scanned."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from arr.vector_store.exact import SCAN_ROWS, similarities, single_threaded_blas


def resident_file_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssFile:"):
            return int(line.split()[1])
    raise AssertionError("no RssFile")


def test_a_mapped_matrix_gives_the_product_bit_for_bit(tmp_path: Path) -> None:
    matrix = np.random.default_rng(0).standard_normal((SCAN_ROWS * 3 + 17, 384)).astype("f4")
    np.save(tmp_path / "v.npy", matrix)
    mapped = np.load(tmp_path / "v.npy", mmap_mode="r")
    with single_threaded_blas():  # as every exact search runs it (nearest_rows)
        for row in (0, SCAN_ROWS, len(matrix) - 1):
            assert np.array_equal(similarities(mapped, matrix[row]), matrix @ matrix[row])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_a_scanned_snapshot_is_not_kept_resident(tmp_path: Path) -> None:
    rows = SCAN_ROWS * 12  # 150 MB of vectors
    matrix = np.lib.format.open_memmap(tmp_path / "v.npy", "w+", np.float32, (rows, 384))
    matrix[:] = 1.0
    matrix.flush()
    del matrix
    mapped = np.load(tmp_path / "v.npy", mmap_mode="r")
    before = resident_file_kb()
    similarities(mapped, np.ones(384, dtype=np.float32))
    grown_mb = (resident_file_kb() - before) / 1024
    assert grown_mb < 20, grown_mb  # was the whole file: ~150 MB
    plain = np.asarray(mapped[: SCAN_ROWS * 12])  # the same scan without release, for contrast
    assert float(plain.sum()) > 0 and (resident_file_kb() - before) / 1024 > 100
