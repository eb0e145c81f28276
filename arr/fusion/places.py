"""One item per place: grep lines join the chunk that holds them, overlapping chunks merge.

Channels name evidence differently: bm25 and vector return line-range chunks
(``doc:PATH#L<first>``, the workspace's grid of ``chunk_lines`` lines from line 1), grep returns
lines (``grep:PATH#L<n>``). Fused by id, a grep line and the chunk around it never meet: they
neither reinforce each other nor stop one place from filling several slots of a top 10.

``place_rankings`` (before fusion) gives each grep line the id of the chunk that holds it, so the
fusion sees one place found by several channels (each channel's list keeps its best line per
place); the fused item is the chunk when a chunk channel found it (its text, its line range),
else the line. ``merge_overlapping`` (after fusion) folds an item whose line range overlaps a
better-ranked item of the same file into it (vector passages, chunks with overlap): the better
item keeps its place and score and gains the other's channels and ranks. The Router does both
unless ``router.merge_places`` is false (agents that want grep lines apart).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arr.fusion.traits import LINES, SHIPPED, having
from arr.models import EvidenceChunk, replaced

# the shipped line channels, for lists fused without tools; the Router passes its tools' own
LINE_CHANNELS = having(SHIPPED, LINES)


def chunk_id(path: str, line: int, chunk_lines: int) -> str:
    """The id of the indexed chunk that holds ``line`` of ``path``."""
    first = (line - 1) // chunk_lines * chunk_lines + 1
    return f"doc:{path}#L{first}"


def place_rankings(
    rankings: Mapping[str, Sequence[EvidenceChunk]],
    chunk_lines: int,
    line_channels: Sequence[str] = LINE_CHANNELS,
) -> dict[str, list[EvidenceChunk]]:
    """Each line channel's items (channels that declare ``lines``: arr.fusion.traits) renamed
    to the chunk that holds them (best line per chunk)."""
    out: dict[str, list[EvidenceChunk]] = {}
    for channel, ranking in rankings.items():
        if channel not in line_channels:
            out[channel] = list(ranking)
            continue
        seen: set[str] = set()
        placed = []
        for item in ranking:
            where = item.location
            place = item.place()  # a line of a reader's view: the unit that holds it
            if place is None and where.path and where.start_line:
                place = chunk_id(where.path, where.start_line, chunk_lines)
            if place is not None:
                if place in seen:
                    continue  # a later line of the same place adds nothing to its rank
                seen.add(place)
                item = replaced(item, id=place)
            placed.append(item)
        out[channel] = placed
    return out


def _span(item: EvidenceChunk) -> tuple[int, int] | None:
    where = item.location
    if not where.path:
        return None
    if where.start_line is None:
        # a unit without lines (a PDF's page, a notebook's cell): its anchor is its place
        return None if where.anchor is None else (-hash(where.anchor), -hash(where.anchor))
    return where.start_line, where.end_line or where.start_line


def merge_overlapping(
    fused: Sequence[EvidenceChunk], line_channels: Sequence[str] = LINE_CHANNELS
) -> list[EvidenceChunk]:
    """Items of one file whose line ranges overlap become the best-ranked one of them."""
    kept: list[EvidenceChunk] = []
    by_path: dict[str, list[int]] = {}
    for item in fused:
        span = _span(item)
        if span is None:
            kept.append(item)
            continue
        path = item.location.path or ""
        into = next(
            (
                i
                for i in by_path.get(path, ())
                if (other := _span(kept[i])) is not None
                and span[0] <= other[1]
                and other[0] <= span[1]
            ),
            None,
        )
        if into is None:
            by_path.setdefault(path, []).append(len(kept))
            kept.append(item)
            continue
        better = kept[into]
        ranks = {**item.ranks, **better.ranks}
        if better.channel in line_channels and item.channel not in line_channels:
            # a line ranked above the chunk that holds it: the chunk's text stands for the
            # place, at the line's rank and score
            better = replaced(item, score=better.score, rerank_score=better.rerank_score)
        kept[into] = replaced(better, ranks=ranks)
    return kept


LONE_HIT_RANK = 3


def lone_hits_forward(
    fused: Sequence[EvidenceChunk],
    rankings: Mapping[str, Sequence[EvidenceChunk]],
    within: int = LONE_HIT_RANK,
) -> list[EvidenceChunk]:
    """A channel that found exactly one item (one published memory that answers, one line
    in the whole tree) is sure of it in a way a score cannot say: that item is moved up to
    rank ``within`` when fusion put it lower. Items of other channels keep their order."""
    out = list(fused)
    lone = {r[0].id for r in rankings.values() if len(r) == 1}
    for item_id in sorted(lone):
        position = next((i for i, c in enumerate(out) if c.id == item_id), None)
        if position is not None and position >= within:
            out.insert(within - 1, out.pop(position))
    return out
