"""Deterministic rule reranker.

Config: ``conf/reranker/rule.yaml``. It never changes an evidence score; it sets
``rerank_score`` to a bonus from three documented features and sorts by (bonus desc, fused
position), so evidence without any bonus keeps the fused order:

- ``phrase``: the whole query occurs verbatim (case-insensitive) in the evidence;
- ``symbol``: share of the query's code-like tokens (``snake_case``, ``dotted.names``,
  ``camelCase``, ``--flags``, ``call()``) that occur verbatim in the evidence, for look-ups
  only: in a sentence of prose ("Add all the edges in ebunch_to_add.") an identifier is context
  shared by many snippets, not the target;
- ``agreement``: number of channels beyond the first that ranked the evidence.

Defaults follow the ablation in ``benchmarks.retrieval.fusion`` and the demo gold set (README,
"Fusion"): only the symbol bonus helped (demo +0.006 nDCG@10); the phrase bonus changed nothing
on four gold sets and the agreement bonus cost up to 0.027 (demo) and 0.016 (CoSQA), so both are
0 by default and stay available as options.

Both read the whole chunk or passage when its channel kept it (``EvidenceChunk.full_text``),
not the snippet: a snippet is a window around one matching line, and an identifier 30 lines
further down the chunk is still in it.

When no bonus can apply to a query (phrase bonus off, no symbol in a look-up, agreement bonus
off), the fused list is returned as it is and ``rerank_score`` stays unset (null): nothing was
scored. Same input, same output: there is no randomness and no dependence on time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from arr.models import EvidenceChunk, replaced
from arr.query.shape import LOWER_UPPER, is_prose

# Code-like tokens only: snake_case, dotted.names, camelCase, --flags, call(). Hyphenated words
# and numbers ("IL-6", "1.5-fold") are prose, not symbols, and get no bonus.
_SYMBOL = re.compile(
    r"\b[A-Za-z_]\w*_\w+\b|\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b|\b[a-z]+[A-Z][a-z]+\w*\b|--[a-z][\w-]+"
    r"|\b\w+\(\)"
)


_WORD_DOT_NAME = re.compile(r"\w\.[A-Za-z_]")


def _maybe_symbol(query: str) -> bool:
    r"""Whether the query holds a character no symbol can do without (prose without any skips the
    scan above): the regex ``[_(]|--|\w\.[A-Za-z_]|[a-z][A-Z]``, with substring tests first (an
    alternation tried at every character cost more than the rest of a prose query's rerank)."""
    if "_" in query or "(" in query or "--" in query:
        return True
    if "." in query and _WORD_DOT_NAME.search(query):
        return True
    return LOWER_UPPER.search(query) is not None


def symbol_tokens(query: str) -> list[str]:
    if not _maybe_symbol(query):
        return []
    return sorted(set(_SYMBOL.findall(query)))


class RuleReranker:
    name = "rule"

    def __init__(
        self, phrase_weight: float = 0.0, symbol_weight: float = 0.5, agreement_weight: float = 0.0
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
        phrase = query.strip().lower() if self.phrase_weight else ""
        symbols: list[str] = []
        # an identifier inside a sentence of prose is context, not a look-up: no symbol bonus
        # (asked before the symbol scan, which costs more than the question)
        if self.symbol_weight and _maybe_symbol(query) and not is_prose(query.split()):
            symbols = [s.lower() for s in symbol_tokens(query)]
        use_phrase = len(phrase) >= 3
        use_agreement = bool(self.agreement_weight)
        if not (use_phrase or symbols or use_agreement):
            # No bonus can apply to this query: the fused list as it is (rerank_score unset).
            return list(evidence)
        bonuses = []
        for chunk in evidence:  # rule_bonus, inlined: this runs for every search
            bonus = 0.0
            if use_phrase or symbols:
                text = chunk.full_text().lower()  # the whole chunk: its snippet is a window
                if use_phrase and phrase in text:
                    bonus += self.phrase_weight
                if symbols:
                    hits = sum(s in text for s in symbols)
                    bonus += self.symbol_weight * hits / len(symbols)
            if use_agreement and len(chunk.ranks) > 1:
                bonus += self.agreement_weight * (len(chunk.ranks) - 1)
            bonuses.append(round(bonus, 9) if bonus else 0.0)
        # stable sort on the bonus alone keeps the fused order among equal bonuses
        order = sorted(range(len(evidence)), key=lambda i: -bonuses[i])
        return [replaced(evidence[i], rerank_score=bonuses[i]) for i in order]
