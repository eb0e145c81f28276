"""The BM25 channel's tokenizer, shared by indexing and querying, and the light bm25s import.

Tokenisation splits identifiers as well as keeping them whole (``learning_rate`` yields
``learning_rate``, ``learning`` and ``rate``), so a researcher finds a config key both by its
exact name and by the words in it.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from typing import Any

_TOKEN = re.compile(r"[A-Za-z0-9_]+|[^\W\d_]+", re.UNICODE)
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def make_tokenizer(
    stemmer_language: str | None = "english",
    stopwords: Iterable[str] = (),
    split_identifiers: bool = True,
) -> Callable[[str], list[str]]:
    """A deterministic tokenizer shared by indexing and querying."""
    stem = None
    if stemmer_language:
        import Stemmer  # PyStemmer; light, but only needed once a tool is used

        stem = Stemmer.Stemmer(stemmer_language).stemWord
    stop = frozenset(stopwords)

    def tokenize(text: str) -> list[str]:
        tokens: list[str] = []
        for match in _TOKEN.findall(text):
            parts = [match]
            if split_identifiers:
                parts += [p for p in re.split(r"_+", match) if p and p != match]
            if split_identifiers and any(c.isupper() for c in match[1:]):
                parts += [p for p in _CAMEL.findall(match) if p != match]
            for part in parts:
                lowered = part.lower()
                if len(lowered) < 2 or lowered in stop:
                    continue
                tokens.append(stem(lowered) if stem else lowered)
        return tokens

    return tokenize


def tokenizer_id(stemmer_language: str | None, split_identifiers: bool, k1: float, b: float) -> str:
    """What a generation's manifest records of how it was tokenised and scored."""
    split = "split" if split_identifiers else "whole"
    return f"{stemmer_language}/{split}/k1={k1}/b={b}"


def import_bm25s() -> Any:
    """``import bm25s`` without its optional accelerators. bm25s imports numba and scipy.sparse
    when they are installed, only to offer backends ARR does not use (its numpy backends are
    the defaults): about 0.5 s of every cold start. They are hidden while bm25s imports (so it
    records them as unavailable) and importable again right after, for anyone else."""
    if "bm25s" in sys.modules:
        return sys.modules["bm25s"]
    hidden = [name for name in ("numba", "scipy.sparse") if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        import bm25s
    finally:
        for name in hidden:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]
    return bm25s


def english_stopwords() -> tuple[str, ...]:
    import_bm25s()
    from bm25s.stopwords import STOPWORDS_EN

    return tuple(STOPWORDS_EN)
