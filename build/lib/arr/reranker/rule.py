"""Deterministic rule reranker.

Config: ``conf/reranker/rule.yaml``. It never changes an evidence score; it sets
``rerank_score`` to a bonus from three documented features and sorts by (bonus desc, fused
position), so evidence without any bonus keeps the fused order:

- ``phrase``: the whole query occurs verbatim (case-insensitive) in the snippet;
- ``symbol``: share of the query's code-like tokens (``snake_case``, ``dotted.names``,
  ``camelCase``, ``--flags``, ``call()``) that occur verbatim in the snippet;
- ``agreement``: number of channels beyond the first that ranked the evidence.

Same input, same output: there is no randomness and no dependence on time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from arr.models import EvidenceChunk

# Code-like tokens only: snake_case, dotted.names, camelCase, --flags, call(). Hyphenated words
# and numbers ("IL-6", "1.5-fold") are prose, not symbols, and get no bonus.
_SYMBOL = re.compile(
    r"\b[A-Za-z_]\w*_\w+\b|\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b|\b[a-z]+[A-Z][a-z]+\w*\b|--[a-z][\w-]+"
    r"|\b\w+\(\)"
)


def symbol_tokens(query: str) -> list[str]:
    return sorted(set(_SYMBOL.findall(query)))


def rule_bonus(
    phrase: str,
    symbols: list[str],
    chunk: EvidenceChunk,
    phrase_weight: float,
    symbol_weight: float,
    agreement_weight: float,
) -> float:
    """Bonus of one chunk; ``phrase`` is the lower-cased query, ``symbols`` its code tokens."""
    snippet = chunk.snippet.lower()
    bonus = 0.0
    if len(phrase) >= 3 and phrase in snippet:
        bonus += phrase_weight
    if symbols:
        bonus += symbol_weight * sum(s in snippet for s in symbols) / len(symbols)
    bonus += agreement_weight * max(0, len(chunk.ranks) - 1)
    return round(bonus, 9)


class RuleReranker:
    name = "rule"

    def __init__(
        self, phrase_weight: float = 1.0, symbol_weight: float = 0.5, agreement_weight: float = 0.25
    ) -> None:
        for label, value in (
            ("phrase_weight", phrase_weight),
            ("symbol_weight", symbol_weight),
            ("agreement_weight", agreement_weight),
        ):
            if value < 0:
                raise ValueError(f"{label} must be >= 0, got {value}")
        self.phrase_weight = phrase_weight
        self.symbol_weight = symbol_weight
        self.agreement_weight = agreement_weight

    def rerank(self, query: str, evidence: Sequence[EvidenceChunk]) -> list[EvidenceChunk]:
        phrase = query.strip().lower()
        symbols = [s.lower() for s in symbol_tokens(query)]
        weights = (self.phrase_weight, self.symbol_weight, self.agreement_weight)
        scored = [
            (rule_bonus(phrase, symbols, c, *weights), position, c)
            for position, c in enumerate(evidence)
        ]
        scored.sort(key=lambda item: (-item[0], item[1]))
        return [c.model_copy(update={"rerank_score": bonus}) for bonus, _, c in scored]
