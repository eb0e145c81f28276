"""The slowness the timing tests scale their grace by: 1 on an idle machine, the load per core
when processes queue for the cores, capped (tests.machine_speed)."""

from __future__ import annotations

import pytest

from tests import machine_speed


def test_idle_is_one_and_load_scales_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(machine_speed, "_probe", lambda: machine_speed.REFERENCE_S / 2)
    monkeypatch.setattr(machine_speed, "load_per_core", lambda: 0.3)
    assert machine_speed.slowness() == 1.0 and machine_speed.grace_s(0.3) == 0.3
    monkeypatch.setattr(machine_speed, "load_per_core", lambda: 3.5)  # load 7 on 2 cores
    assert machine_speed.slowness() == 3.5
    assert machine_speed.grace_s(0.3) == pytest.approx(1.05)
    assert machine_speed.grace_s(0.3, at_most=1.0) == 1.0
    monkeypatch.setattr(machine_speed, "_probe", lambda: machine_speed.REFERENCE_S * 6)
    assert machine_speed.slowness() == pytest.approx(6.0)  # a slower CPU, or a busier one
    monkeypatch.setattr(machine_speed, "load_per_core", lambda: 500.0)
    assert machine_speed.slowness() == machine_speed.MAX_SLOWNESS


def test_measured_here() -> None:
    assert 1.0 <= machine_speed.slowness() <= machine_speed.MAX_SLOWNESS
