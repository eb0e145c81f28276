"""Exact vector search runs its matrix product on one BLAS thread (spinning BLAS workers
starve the embedder's threads on small machines), and leaves the setting as it found it."""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_info

from arr.vector_store.exact import single_threaded_blas


def blas_threads() -> list[int]:
    """Threads of numpy's own BLAS (the one the search's matrix product runs on; other
    libraries loaded later, such as torch's, have BLAS copies of their own)."""
    return [
        i["num_threads"]
        for i in threadpool_info()
        if i["user_api"] == "blas" and "numpy" in i["filepath"]
    ]


def test_one_blas_thread_inside_and_the_old_setting_after() -> None:
    np.ones((4, 4)) @ np.ones(4)  # BLAS loaded
    before = blas_threads()
    assert before, "numpy's BLAS is not visible to threadpoolctl"
    with single_threaded_blas():
        assert set(blas_threads()) == {1}
        assert float((np.ones((300, 8), np.float32) @ np.ones(8, np.float32)).sum()) == 2400.0
    assert blas_threads() == before
