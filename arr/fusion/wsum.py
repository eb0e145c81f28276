"""Weighted CombSUM of normalised scores (Fox & Shaw, TREC-2 1994), named as in ranx
(``ranx.fuse(method="wsum", norm=...)``; with equal weights it is ranx's ``sum``, CombSUM).

Config: ``conf/fusion/wsum.yaml``. Per query, each channel's scores are normalised (``norm``:
``min-max-floor``, ``min-max`` or ``zmuv``, see :mod:`arr.fusion.norms`) and the fused score of an
evidence is ``sum_c w_c * norm_c(s)`` over the channels that returned it; a channel that did not
return it adds nothing (as in ranx). Unlike rank fusion, a channel whose head is far ahead of
its tail counts for more than one whose scores are flat.

``weighting: standout`` adapts the weights per query from a label-free signal, a query
performance predictor in the spirit of score-gap predictors: a channel's weight is how far its
head stands out of its own list (mean z-score of its top 3, floored at 0), rescaled to mean 1
over the channels and floored at ``STANDOUT_MIN_WEIGHT`` (a channel that answered never weighs
nothing). A channel whose best answers are barely better than its hundredth answer is
probably guessing. Measured in ``benchmarks.retrieval.fusion`` (README): it helps where both
channels are good and does not rescue a collection where one channel is weak throughout.

``code_gap_weight`` (null: off) lowers the lexical channels to that weight for a query in plain
words whose lexical head is code (the vocabulary gap of code search, :mod:`arr.fusion.code_gap`);
it needs the query, so the Router calls ``fuse_for_query``. It combines with either weighting.

``file_support`` lets the items of one file support each other (the pages of one paper, not
every page of a PDF: a volume's papers never lift each other), and ``path_weight`` adds a
share of the best fused score to items whose file name matches the query's words
(:mod:`arr.fusion.path_match`): both only touch places in files, never documents or memories.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from arr.fusion.code_gap import code_gap_weights
from arr.fusion.common import (
    Ranking,
    assemble,
    check_number_in,
    check_top_k,
    check_weights,
    non_empty_channels,
    unfused,
)
from arr.fusion.norms import norm_named, zmuv
from arr.fusion.path_match import WORDS, path_boosted, path_matches
from arr.fusion.traits import LEXICAL, SHIPPED, ChannelTraits, having
from arr.models import EvidenceChunk


def weighted_sum(
    channels: Mapping[str, Ranking],
    norm: str,
    weights: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """Fused score per evidence id: sum over channels of weight * normalised channel score."""
    normalise = norm_named(norm)
    scores: dict[str, float] = {}
    for channel, ranking in channels.items():
        weight = 1.0 if weights is None else float(weights.get(channel, 1.0))
        normalised = normalise([float(e.score) for e in ranking])
        for chunk, value in zip(ranking, normalised, strict=True):
            scores[chunk.id] = scores.get(chunk.id, 0.0) + weight * value
    return scores


STANDOUT_DEPTH = 3


# A list shorter than this has no tail for its head to stand out of (the z-scores of its top 3
# are then about its own mean: a 3-item list always scores 0, which weighed a memory channel
# with three published memories to nothing). Such a channel keeps weight 1.0.
STANDOUT_MIN_ITEMS = 10
# A channel that answered is never weighed to nothing: with tied scores (grep lines with the same
# term count) its head does not stand out (0), which zeroed every item only it found.
STANDOUT_MIN_WEIGHT = 0.1


def standout_weights(channels: Mapping[str, Ranking]) -> dict[str, float]:
    """Per-query channel weights from how far each channel's head stands out of its list;
    channels with lists too short to judge weigh 1.0, the others are rescaled to mean 1."""
    raw = {}
    for channel, ranking in channels.items():
        if len(ranking) < STANDOUT_MIN_ITEMS:
            continue
        z = zmuv([float(e.score) for e in ranking])
        raw[channel] = max(0.0, sum(z[:STANDOUT_DEPTH]) / STANDOUT_DEPTH)
    mean = sum(raw.values()) / len(raw) if raw else 0.0
    if mean <= 0:  # no channel stands out: nothing to prefer
        return {c: 1.0 for c in channels}
    return {c: max(STANDOUT_MIN_WEIGHT, raw[c] / mean) if c in raw else 1.0 for c in channels}


def _paths(channels: Mapping[str, Ranking]) -> dict[str, str]:
    """Evidence id -> file path, for the items that are places in files."""
    return {c.id: c.location.path for r in channels.values() for c in r if c.location.path}


def _works(channels: Mapping[str, Ranking]) -> dict[str, str]:
    """Evidence id -> the work it belongs to, for the places whose items may support each
    other: a file, except that the pages of a PDF group by the paper they belong to (their
    heading: a paper's title runs over its pages), so the papers of one volume, or the
    chapters of a book, never lift each other's pages."""
    out = {}
    for ranking in channels.values():
        for chunk in ranking:
            location = chunk.location
            if not location.path:
                continue
            paged = location.page is not None
            out[chunk.id] = f"{location.path}\0{location.title or ''}" if paged else location.path
    return out


# A file's support comes from its best few other items, not from all of them: summed over every
# chunk, a long file with many half-relevant chunks outranked the short file both channels put
# first (Werkzeug: routing/map.py over utils.py). nDCG@10 Sphinx / Werkzeug (file level): all
# items 0.553 / 0.773; best 2 0.549 / 0.789, 3 0.553 / 0.788, 4 0.554 / 0.788, 5 0.555 / 0.778,
# 8 0.556 / 0.781: every bound 3-8 at least as good on both; 4 best on the two together.
SUPPORTERS = 4


def file_supported(
    path_of: Mapping[str, str],
    scores: Mapping[str, float],
    weight: float,
    page_weight: float | None = None,
) -> dict[str, float]:
    """Each item's fused score plus ``weight`` times the fused scores of the best
    ``SUPPORTERS`` other items of its file: a file that several chunks and channels point at is
    more likely the place (bug localisation ranks files; a tree's answer is a place in a file).
    ``path_of`` maps the ids of places in files to their paths; other items (documents of a
    collection, memories) are unchanged. ``page_weight`` (None: ``weight``) is the share for
    the pages of a PDF (their work key holds the paper's title after a NUL)."""
    per_file: dict[str, list[float]] = {}
    for item, value in scores.items():
        path = path_of.get(item)
        if path is not None:
            per_file.setdefault(path, []).append(value)
    # per file: its best SUPPORTERS + 1 scores, their sum, and the sum of the best SUPPORTERS
    heads = {}
    for path, values in per_file.items():
        head = sorted(values, reverse=True)[: SUPPORTERS + 1]
        heads[path] = (head[-1], len(head), sum(head), sum(head[:SUPPORTERS]))

    def support(path: str, value: float) -> float:
        lowest, size, head_sum, best_sum = heads[path]
        # the item is one of the file's best SUPPORTERS + 1: the others of those support it
        if size <= SUPPORTERS or value >= lowest:
            return head_sum - value
        return best_sum

    paged = weight if page_weight is None else page_weight

    def share(path: str) -> float:
        return paged if "\0" in path else weight

    return {
        item: value + share(path) * support(path, value)
        if (path := path_of.get(item)) is not None
        else value
        for item, value in scores.items()
    }


WEIGHTINGS = ("equal", "standout")


# The defaults are conf/fusion/wsum.yaml's (a test pins them equal); where fitted ones came from:
FITTED_ON = (
    "code_gap_weight 0.2: CoSQA dev, grid 0.0-1.0 (benchmarks.retrieval.fusion); "
    "file_support 0.5: wsgold Sphinx and Werkzeug, grid 0.0-0.5 (benchmarks.retrieval.wsgold); "
    "path_weight 0.6: wsgold Sphinx, grid 0.0-1.0, checked on Werkzeug "
    "(benchmarks.retrieval.wsgold); page_support 0.0: papersdev known items, grid 0/0.2/0.5, "
    "checked on pdfgold (benchmarks.papers.known_items, benchmarks.papers.papers)"
)


class WSumFusion:
    name = "wsum"

    def __init__(
        self,
        norm: str = "min-max-floor",
        weights: Mapping[str, float] | None = None,
        top_k: int = 50,
        weighting: str = "standout",
        fitted_on: str | None = FITTED_ON,
        code_gap_weight: float | None = 0.2,
        file_support: float = 0.5,
        page_support: float | None = 0.0,
        path_weight: float = 0.6,
        path_words: str = "naming",
    ) -> None:
        if weighting not in WEIGHTINGS:
            raise ValueError(f"weighting must be one of {list(WEIGHTINGS)}, got {weighting!r}")
        self.code_gap_weight = (
            None
            if code_gap_weight is None
            else check_number_in("code_gap_weight", code_gap_weight, 1.0, nullable=True)
        )
        self.file_support = check_number_in("file_support", file_support, 1.0)
        self.page_support = (
            None
            if page_support is None
            else check_number_in("page_support", page_support, 1.0, nullable=True)
        )
        self.path_weight = check_number_in("path_weight", path_weight, 10.0)
        if path_words not in WORDS:
            raise ValueError(f"path_words must be one of {list(WORDS)}, got {path_words!r}")
        self.path_words = path_words
        self.weighting = weighting
        # Where fitted weights came from (a training split), so reports can say so.
        self.fitted_on = fitted_on
        norm_named(norm)  # refuses an unknown name now, not at the first search
        self.norm = norm
        self.weights = check_weights(weights)
        self.top_k = check_top_k(top_k)
        # what each channel is (the Router gives its tools' declarations): the code gap
        # weighs the lexical ones
        self.channel_traits: ChannelTraits = SHIPPED

    def fuse(self, rankings: Mapping[str, Ranking]) -> list[EvidenceChunk]:
        return self.fuse_for_query("", rankings)

    def fuse_for_query(self, query: str, rankings: Mapping[str, Ranking]) -> list[EvidenceChunk]:
        """Fusion that may read the query (``code_gap_weight``); the Router calls this. The
        fixed weights, the standout weights and the code-gap weights multiply."""
        channels = non_empty_channels(rankings)
        alone = unfused(channels, self.top_k)
        if alone is not None:
            return alone
        weights = {c: w["weight"] for c, w in self._factors(query, channels).items()}
        scores = weighted_sum(channels, self.norm, weights)
        if self.file_support or self.page_support or self.path_weight:
            path_of = _paths(channels)
            if self.file_support or self.page_support:
                works = _works(channels)
                scores = file_supported(works, scores, self.file_support, self.page_support)
            if self.path_weight and query:
                scores = path_boosted(scores, path_of, query, self.path_weight, self.path_words)
        return assemble(channels, scores, self.top_k)

    def path_matches(self, query: str, rankings: Mapping[str, Ranking]) -> dict[str, float]:
        """The candidate files whose names matched this query and how well (what the Router
        notes in the trace); empty when ``path_weight`` is 0."""
        if not self.path_weight or not query:
            return {}
        paths = _paths(non_empty_channels(rankings)).values()
        return path_matches(query, paths, self.path_words)

    def explain(self, query: str, rankings: Mapping[str, Ranking]) -> dict[str, dict[str, float]]:
        """Per channel, the weight this query gave it and its factors (``fixed``,
        ``standout``, ``code_gap``): what the Router writes into each channel's trace."""
        channels = non_empty_channels(rankings)
        if len(channels) < 2:
            return {}
        return self._factors(query, channels)

    def _factors(self, query: str, channels: Mapping[str, Ranking]) -> dict[str, dict[str, float]]:
        fixed = self.weights or {}
        factors = {c: {"fixed": float(fixed.get(c, 1.0))} for c in channels}
        if self.weighting == "standout":
            for c, w in standout_weights(channels).items():
                factors[c]["standout"] = w
        if self.code_gap_weight is not None and query:
            lexical = having(self.channel_traits, LEXICAL)
            for c, w in code_gap_weights(query, channels, self.code_gap_weight, lexical).items():
                factors[c]["code_gap"] = w
        for parts in factors.values():
            parts["weight"] = math.prod(parts.values())
        return factors
