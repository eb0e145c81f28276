"""What a channel is, as fusion and the steps after it read it: never its name.

Each channel class declares ``traits`` (a set of the words below); the Router reads them from
its registered tools once, and fusion and the steps after it ask for channels by trait. A new
channel that declares nothing is weighed as a plain ranked list: no rule meant for lexical or
line channels touches it.

- ``lexical``: matches the query's words (bm25, grep): the code-gap weighting applies to it;
- ``lines``: returns single lines of files (grep): its items join the chunk that holds them;
- ``semantic``: ranks by meaning (vector);
- ``memory``: published research memory, ids of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

LEXICAL = "lexical"
LINES = "lines"
SEMANTIC = "semantic"
MEMORY = "memory"
TRAITS = frozenset({LEXICAL, LINES, SEMANTIC, MEMORY})

ChannelTraits = Mapping[str, frozenset[str]]


def declared(tools: Mapping[str, object]) -> dict[str, frozenset[str]]:
    """Each registered channel's declared traits (unknown words refused: a typo would silently
    take a channel out of the rules meant for it)."""
    out = {}
    for name, tool in tools.items():
        traits = frozenset(getattr(tool, "traits", ()))
        unknown = sorted(traits - TRAITS)
        if unknown:
            raise ValueError(f"channel {name!r} declares unknown traits {unknown}")
        out[name] = traits
    return out


def having(traits: ChannelTraits, trait: str) -> tuple[str, ...]:
    """The channels that declare ``trait``, in name order."""
    return tuple(sorted(name for name, declared_ in traits.items() if trait in declared_))


# The shipped channels' traits, for callers that fuse recorded lists without tools (benches,
# unit tests); the Router always reads the tools' own declarations.
SHIPPED: dict[str, frozenset[str]] = {
    "bm25": frozenset({LEXICAL}),
    "grep": frozenset({LEXICAL, LINES}),
    "vector": frozenset({SEMANTIC}),
    "memory": frozenset({MEMORY}),
}


@runtime_checkable
class ReadsTraits(Protocol):
    """A fusion that asks for channels by trait: the Router gives it its tools' traits."""

    channel_traits: ChannelTraits


def told_traits(tools: Mapping[str, object], fusion: object) -> dict[str, frozenset[str]]:
    """The tools' declared traits, told to a fusion that reads them; an unknown trait is a
    configuration error."""
    from arr.errors import ConfigError

    try:
        traits = declared(tools)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if isinstance(fusion, ReadsTraits):
        fusion.channel_traits = traits
    return traits
