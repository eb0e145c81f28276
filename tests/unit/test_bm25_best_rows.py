"""The bm25 channel's top rows: the best positive scores and every row tied with the last."""

from __future__ import annotations

import numpy as np

from arr.tools.bm25.loaded import best_rows


def test_the_best_rows_and_every_tie_of_the_last() -> None:
    scores = np.array([0.0, 3.0, 1.0, 2.0, 2.0, 0.0, 5.0], dtype=np.float32)
    assert sorted(best_rows(scores, 2).tolist()) == [1, 6]
    assert sorted(best_rows(scores, 3).tolist()) == [1, 3, 4, 6]  # both 2.0s: ties break by id


def test_rows_without_a_query_term_are_never_returned() -> None:
    scores = np.array([0.0, 0.5, 0.0, 0.0], dtype=np.float32)
    assert best_rows(scores, 3).tolist() == [1]
    assert best_rows(np.zeros(5, dtype=np.float32), 2).tolist() == []


def test_the_same_rows_as_a_full_sort_on_random_scores() -> None:
    rng = np.random.default_rng(3)
    for _ in range(50):
        scores = np.round(rng.random(400), 2).astype(np.float32)  # many ties
        scores[rng.random(400) < 0.5] = 0
        depth = int(rng.integers(1, 30))
        kth = np.sort(scores[scores > 0])[::-1][depth - 1] if (scores > 0).sum() >= depth else 0
        expected = sorted(np.flatnonzero((scores > 0) & (scores >= kth)).tolist())
        assert sorted(best_rows(scores, depth).tolist()) == expected
