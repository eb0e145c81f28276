"""The packaged demo copied to the user's data folder holds the demo's files only: not the
byte code pip compiled at install (``demo_data/**/__pycache__/*.pyc``), which ``arr demo``
then listed as skipped (issue 63), nor a hidden folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from arr.workspace import demo_home


def test_the_copy_leaves_out_the_installers_byte_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    packaged = tmp_path / "site-packages" / "arr" / "demo_data"
    source = packaged / "vision-main" / "src"
    (source / "__pycache__").mkdir(parents=True)
    (source / "train.py").write_text("def train_step(batch):\n    return batch\n")
    (source / "__pycache__" / "train.cpython-311.pyc").write_bytes(b"\x00compiled")
    (source / "stray.pyc").write_bytes(b"\x00compiled")
    (packaged / ".index").mkdir()
    (packaged / ".index" / "bm25.bin").write_bytes(b"\x00")
    (packaged / "gold.jsonl").write_text("{}\n")
    monkeypatch.setattr(demo_home, "PACKAGED_DEMO", packaged)
    monkeypatch.setattr(demo_home, "checkout_here", lambda: None)  # as from a wheel
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data-home"))
    paths = demo_home.demo_paths()
    copied = paths["paths.data_dir"] / "demo"
    files = sorted(p.relative_to(copied).as_posix() for p in copied.rglob("*") if p.is_file())
    assert files == ["gold.jsonl", "vision-main/src/train.py"]
