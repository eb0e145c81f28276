"""Channels declare what they are; fusion and place merging read the traits, never names
(issue 60), and a place's page, cell and kind are read from its anchor in one place."""

from __future__ import annotations

import pytest

from arr.errors import ConfigError
from arr.fusion.traits import LEXICAL, LINES, SHIPPED, declared, having, told_traits
from arr.fusion.wsum import WSumFusion
from arr.models import Location


class _Channel:
    def __init__(self, *traits: str) -> None:
        self.traits = frozenset(traits)


def test_the_shipped_channels_declare_their_traits() -> None:
    from arr.tools.bm25 import BM25Tool
    from arr.tools.grep import GrepTool
    from arr.tools.memory import MemoryTool
    from arr.tools.vector import VectorTool

    for name, tool in (("bm25", BM25Tool), ("grep", GrepTool), ("vector", VectorTool),
                       ("memory", MemoryTool)):  # fmt: skip
        assert tool.traits == SHIPPED[name]


def test_fusion_asks_for_channels_by_trait_not_by_name() -> None:
    tools = {"bm25": _Channel("semantic"), "words": _Channel(LEXICAL, LINES), "x": _Channel()}
    fusion = WSumFusion()
    traits = told_traits(tools, fusion)
    assert fusion.channel_traits == traits
    assert having(traits, LEXICAL) == ("words",) and having(traits, LINES) == ("words",)
    with pytest.raises(ConfigError, match="unknown traits"):
        told_traits({"odd": _Channel("lexcial")}, fusion)
    assert declared({"plain": object()}) == {"plain": frozenset()}


def test_a_place_is_read_from_its_anchor_once() -> None:
    page = Location(path="p.pdf", anchor="page=7")
    assert (page.page, page.cell, page.unit_kind) == (7, None, "page")
    cell = Location(path="n.ipynb", anchor="cell=0")
    assert (cell.page, cell.cell, cell.unit_kind) == (None, 0, "cell")
    entry = Location(path="refs.bib", anchor="lamport78", start_line=3, end_line=8)
    assert (entry.page, entry.unit_kind) == (None, "entry")
    lines = Location(path="a.py", start_line=3, end_line=9)
    assert (lines.page, lines.unit_kind) == (None, "lines")
    assert Location(memory_id="m1").unit_kind is None
    assert Location(path="p.pdf", anchor="page=x").page is None
