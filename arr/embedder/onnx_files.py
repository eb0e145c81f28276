"""The ONNX files of the embedder: the fused fp32 export of the packaged model and its int8
quantisation, each written whole (a temporary file removed on failure) into the model cache.
Used by arr.embedder.onnx.OnnxEmbedder."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

OPSET = 17


def export_onnx(model_path: Path, target: Path, fuse: bool = True) -> None:
    """Export the transformer of a sentence-transformers folder to ``target`` (atomically).

    With ``fuse`` (the default) a BERT-type model is exported with the plain ("eager")
    attention, whose graph onnxruntime's transformer optimiser recognises, and saved with one
    fused Attention per layer and the embeddings' sum + LayerNorm in one operator: the same
    vectors (cosine 1.0000 on a tree's passages), faster, and a graph whose attention int8 can
    quantise. torch's default attention exports as a masked SDPA pattern (Where/IsNaN) that no
    fusion matches. Residual + LayerNorm and bias + GELU are left to onnxruntime's own session
    fusions (fused here as well, the int8 model ran no faster: 70/s both, rotating order).
    ``fuse=False`` is the export before 2026-12-03 (kept for the benchmark's baseline)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    from transformers import AutoConfig, AutoModel

    config = AutoConfig.from_pretrained(str(model_path), local_files_only=True)
    fuse = fuse and config.model_type == "bert"
    extra = {"attn_implementation": "eager"} if fuse else {}
    model = AutoModel.from_pretrained(str(model_path), local_files_only=True, **extra).eval()

    class _Encoder(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    sample = torch.ones(1, 8, dtype=torch.long)
    axes = {0: "batch", 1: "sequence"}
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    import warnings

    with _removed_on_failure(tmp), warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            _Encoder(model),
            (sample, sample, torch.zeros_like(sample)),
            str(tmp),
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["last_hidden_state"],
            dynamic_axes={
                "input_ids": axes,
                "attention_mask": axes,
                "token_type_ids": axes,
                "last_hidden_state": axes,
            },
            opset_version=OPSET,
            dynamo=False,
        )
        if fuse:
            _fuse_transformer(tmp, config.num_attention_heads, config.hidden_size)
        os.replace(tmp, target)


def _fuse_transformer(path: Path, heads: int, hidden: int) -> None:
    """Rewrite the exported graph at ``path`` with onnxruntime's BERT fusions (in place)."""
    from onnxruntime.transformers.fusion_options import FusionOptions
    from onnxruntime.transformers.optimizer import optimize_model

    options = FusionOptions("bert")
    options.enable_skip_layer_norm = False
    options.enable_bias_gelu = False
    with _quiet_root_logger():  # the optimiser logs each fusion it tried
        fused = optimize_model(
            str(path),
            model_type="bert",
            num_heads=heads,
            hidden_size=hidden,
            opt_level=0,
            optimization_options=options,
        )
        fused.save_model_to_file(str(path))


@contextlib.contextmanager
def _quiet_root_logger() -> Iterator[None]:
    """onnxruntime's tools log advice and progress on the root logger: not the user's; the
    level is restored even when they fail."""
    import logging

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        yield
    finally:
        root.setLevel(level)


QUANTIZE_RECIPE = "int8fused"  # bump when the quantisation below changes (new file, new id)


def quantize_onnx(source: Path, target: Path) -> None:
    """int8 weights, one scale per output channel, for every weight MatMul and fused Attention
    of the (fused) export; the embedding lookup and LayerNorms stay fp32. Measured on
    2026-12-03 (nDCG@10 against fp32 on SciFact 1,000 documents / CoSQA dev; throughput on the
    Werkzeug tree's passages against the unfused fp32 export): this recipe +0.003 / -0.003,
    cosine >= 0.985, 2.4-2.7x over three runs; also quantising the embeddings -0.005 / -0.001
    (cosine 0.986); the previous recipe (unfused graph, first and last layers fp32) -0.002 / -0.001,
    about 1.6x; every MatMul of the unfused graph, weights and activations per tensor: cosine
    0.88 on code."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    with _removed_on_failure(tmp), _quiet_root_logger():
        quantize_dynamic(
            str(source),
            str(tmp),
            op_types_to_quantize=["MatMul", "Attention"],
            weight_type=QuantType.QInt8,
            per_channel=True,
            extra_options={
                "MatMulConstBOnly": True,
                "DefaultTensorType": onnx.TensorProto.FLOAT,
            },
        )
        os.replace(tmp, target)


@contextlib.contextmanager
def _removed_on_failure(tmp: Path) -> Iterator[None]:
    """A partial model file never survives a failed export (a full disk stays full otherwise,
    and the next start would have to tell a torn file from a whole one)."""
    try:
        yield
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
