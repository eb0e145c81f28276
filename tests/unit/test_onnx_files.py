"""The ONNX model files: a failed quantisation leaves neither a partial file nor a changed
root log level (onnxruntime's tools log on the root logger, which ARR quiets while they run)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from onnx.checker import ValidationError

from arr.embedder.onnx import quantize_onnx


def test_failed_quantisation_restores_the_log_level_and_leaves_no_file(tmp_path: Path) -> None:
    source = tmp_path / "broken.onnx"
    source.write_bytes(b"not a model")
    target = tmp_path / "out" / "model-int8.onnx"
    target.parent.mkdir()
    root = logging.getLogger()
    before = root.level
    root.setLevel(logging.INFO)
    try:
        with pytest.raises(ValidationError):
            quantize_onnx(source, target)
        assert root.level == logging.INFO
    finally:
        root.setLevel(before)
    assert list(target.parent.iterdir()) == []
