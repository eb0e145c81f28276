"""The tool contract, written down: what every channel is, and what some channels also do.

Every channel is a :class:`Tool`. The other Protocols are capabilities the Router, ``arr index``
and ``arr serve`` use when a channel has them (a channel has one by having its members; no
registration). They are checked with :func:`has`, which remembers a method-only capability per
class, so the Router's checks on every call cost a dictionary look-up.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

if TYPE_CHECKING:
    from arr.models import EvidenceChunk, Freshness, ScopeKey, ToolCall
    from arr.tools.base import ChannelAnswer
    from arr.workspace.workspace import Workspace


@runtime_checkable
class Tool(Protocol):
    """A channel: cheap to build, explicit to warm, fresh or stale per scope, and answering only
    within the request's scope. The Router is the only caller of ``retrieve``."""

    name: str
    read_only: bool
    provider: str
    summary: str

    def warm_up(self) -> None: ...

    def freshness(self, scope: ScopeKey) -> Freshness: ...

    def retrieve(self, call: ToolCall, scope: ScopeKey) -> list[EvidenceChunk] | ChannelAnswer: ...


@runtime_checkable
class Indexed(Protocol):
    """A channel with an index ``arr index`` builds; ``semantic`` ones (embeddings) are built
    after the lexical ones and skipped by ``arr index --lexical``."""

    semantic: bool

    def build(self, scope: ScopeKey) -> dict[str, Any]: ...

    def rebuild(self, scope: ScopeKey) -> dict[str, Any]:
        """Built beside the live index and swapped in when complete."""
        ...

    def reset(self, scope: ScopeKey) -> None: ...


class Pending(NamedTuple):
    items: int  # to embed
    seconds_per_item: float | None = None  # timed on a sample of them, when one was asked
    sample_s: float = 0.0  # what timing the sample took
    kinds: Mapping[str, int] | None = None  # the items by kind (arr.tools.item_kinds)
    kind_rates: Mapping[str, float] | None = None  # seconds per item of each kind sampled


@runtime_checkable
class Plans(Protocol):
    """An indexed channel that says, before it builds, how many items of each kind its build
    (or rebuild) would embed, and when asked (``sample`` > 0) how long one of each kind takes
    on this machine, timed on that many of the kind (``known``: kinds not to time), for ``arr
    index``'s whole-run time left; ``rate_key`` names what the rates depend on (the
    embedder), under which the machine remembers them."""

    def pending(
        self, scope: ScopeKey, rebuild: bool = False, sample: int = 0, known: Collection[str] = ()
    ) -> Pending: ...

    def rate_key(self) -> str: ...


@runtime_checkable
class Refreshing(Protocol):
    """A channel that brings its index up to date before a call (at most ``max_changed_files``
    changed files; False when there were more)."""

    def refresh(self, scope: ScopeKey, max_changed_files: int) -> bool: ...


@runtime_checkable
class CountsSkips(Protocol):
    """A channel that says how many files of a scope it left out, and why (for the trace)."""

    def skip_counters(self, scope: ScopeKey) -> dict[str, int]: ...


@runtime_checkable
class Closable(Protocol):
    """A channel that holds something open (a store's client) until ``close``."""

    def close(self) -> None: ...


@runtime_checkable
class OnWorkspace(Protocol):
    """A channel that reads a workspace (its chunk grid, its watches, its place check)."""

    workspace: Workspace


@runtime_checkable
class WarmsEagerly(Protocol):
    """A channel whose heavy part (a model) can load at warm-up instead of on first use."""

    eager_warm_up: bool


@runtime_checkable
class HoldsMemory(Protocol):
    """The research-memory channel: the database ``arr serve`` reports on."""

    db_path: Path


_KNOWN: dict[tuple[type, type], bool] = {}


def has(tool: object, capability: type) -> bool:
    """``isinstance(tool, capability)``, remembered per class for method-only capabilities
    (a class's methods do not change; data members such as ``workspace`` are checked each
    time)."""
    if capability in (OnWorkspace, HoldsMemory, Indexed):
        return isinstance(tool, capability)
    key = (type(tool), capability)
    found = _KNOWN.get(key)
    if found is None:
        found = _KNOWN[key] = isinstance(tool, capability)
    return found


def workspace_of(tools: Mapping[str, object]) -> Workspace | None:
    """The workspace the channels read (one per router), or None for channels without one."""
    found = (t for t in tools.values() if has(t, OnWorkspace))
    return next((t.workspace for t in found), None)  # type: ignore[attr-defined]
