"""Deterministic rule reranker.

Config: ``conf/reranker/rule.yaml``. It never changes an evidence score; it sets
``rerank_score`` to a bonus from three documented features and sorts by (bonus desc, fused
position), so evidence without any bonus keeps the fused order:

- ``phrase``: the whole query occurs verbatim (case-insensitive) in the snippet;
- ``symbol``: share of the query's symbol-like tokens (``snake_case``, ``dotted.names``,
  ``camelCase``, ``--flags``, words with digits) that occur verbatim in the snippet;
- ``agreement``: number of channels beyond the first that ranked the evidence.

Same input, same output: there is no randomness and no dependence on time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from arr.models import EvidenceChunk

_SYMBOL = re.compile(r"[A-Za-z_][\w.\-/]*[_.\-/\d][\w.\-/]*|[a-z]+[A-Z]\w*|--?[a-z][\w-]+")


def symbol_tokens(query: str) -> list[str]:
    return sorted(set(_SYMBOL.findall(query)))


def rule_bonus(query: str, chunk: EvidenceChunk, phrase_weight: float, symbol_weight: float,
               agreement_weight: float) -> float:
    snippet = chunk.snippet.lower()
    bonus = 0.0
    phrase = query.strip().lower()
    if len(phrase) >= 3 and phrase in snippet:
        bonus += phrase_weight
    symbols = symbol_tokens(query)
    if symbols:
        bonus += symbol_weight * sum(s.lower() in snippet for s in symbols) / len(symbols)
    bonus += agreement_weight * max(0, len(chunk.ranks) - 1)
    return round(bonus, 9)


class RuleReranker:
    name = "rule"

    def __init__(self, phrase_weight: float = 1.0, symbol_weight: float = 0.5,
                 agreement_weight: float = 0.25) -> None:
        for label, value in (("phrase_weight", phrase_weight), ("symbol_weight", symbol_weight),
                             ("agreement_weight", agreement_weight)):
            if value < 0:
                raise ValueError(f"{label} must be >= 0, got {value}")
        self.phrase_weight = phrase_weight
        self.symbol_weight = symbol_weight
        self.agreement_weight = agreement_weight

    def rerank(self, query: str, evidence: Sequence[EvidenceChunk]) -> list[EvidenceChunk]:
        scored = [
            (rule_bonus(query, c, self.phrase_weight, self.symbol_weight, self.agreement_weight),
             position, c)
            for position, c in enumerate(evidence)
        ]
        scored.sort(key=lambda item: (-item[0], item[1]))
        return [c.model_copy(update={"rerank_score": bonus}) for bonus, _, c in scored]
