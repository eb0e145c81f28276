from __future__ import annotations

import pytest

from arr.eval.stats import holm


def test_holm_by_hand() -> None:
    # sorted 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1, but monotone: 0.06)
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == [1.0, 1.0]  # capped at 1
    assert holm([]) == []
