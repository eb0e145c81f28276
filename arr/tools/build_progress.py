"""How far a running index build is, for the build's own bar and for searches meanwhile.

A build that embeds writes ``<its lock>.progress.json`` (items done and to do, when it started)
after each stored batch and removes it when it ends. A search that finds the channel's index
missing or stale asks whether another process (or thread) holds the build
lock, :func:`build_state` says how far it is and :func:`describe` puts it in words (with an
estimate of the time left): the channel reports ``index_building`` (the search answers from the
ready channels, marked partial) or, once a first build has stored a batch, ``index_partial``
(the items embedded so far answer too) instead of "no index; run arr index".
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from arr import atomic_write, codes
from arr.models import Freshness
from arr.tools.item_kinds import batch_shares
from arr.tools.partition import lock_held
from arr.workspace.sources import Document

PLAIN_EVERY_S = 10.0  # on a pipe or in a log, a progress line this often (every arr command)


class Listener(Protocol):
    """Who is told of every build's progress instead of its own bar: ``arr index``'s whole-run
    clock (arr.compose.run_clock), so the screen shows one bar and one time left for the run."""

    def begin(self, total: int, kinds: Mapping[str, int] | None = None) -> None: ...

    def advance(self, count: int, shares: Sequence[tuple[str, float]] = ()) -> None: ...


_listener: Listener | None = None


@contextlib.contextmanager
def told_to(listener: Listener) -> Iterator[None]:
    """Builds in this process tell ``listener`` (and draw no bar of their own) meanwhile."""
    global _listener
    previous, _listener = _listener, listener
    try:
        yield
    finally:
        _listener = previous


def _progress_file(lock: Path) -> Path:
    return lock.with_name(lock.name + ".progress.json")


class BuildState(NamedTuple):
    done: int
    total: int  # -1 while the build has not said yet (it is still reading the sources)
    started: float


def build_state(lock: Path) -> BuildState | None:
    """How far the build holding ``lock`` is; None when no build holds it."""
    if not lock_held(lock):
        return None
    try:
        state = json.loads(_progress_file(lock).read_text(encoding="utf-8"))
        return BuildState(int(state["done"]), int(state["total"]), float(state["started"]))
    except (OSError, ValueError, KeyError, TypeError):
        return BuildState(0, -1, time.time())


def describe(state: BuildState, channel: str) -> str:
    """``an index build of the vector channel for this scope is running: 384 of 1,169 items
    embedded (33%), about 26 s left`` (the first clause of every message about a build)."""
    running = f"an index build of the {channel} channel for this scope is running"
    if state.total < 0:
        return f"{running} (reading the sources)"
    share = state.done / state.total if state.total else 0.0
    elapsed = max(0.0, time.time() - state.started)
    left = (
        f", about {duration(elapsed * (1 - share) / share)} left"
        if 0 < state.done < state.total
        else ""
    )
    return f"{running}: {state.done:,} of {state.total:,} items embedded ({share:.0%}){left}"


def duration(seconds: float) -> str:
    """``8 s``, ``1 min 40 s``, ``14 min``: as a researcher reads a clock (every time left
    ``arr`` says: a build's, arr index's whole run's)."""
    seconds = max(1, round(seconds))
    if seconds < 90:
        return f"{seconds} s"
    if seconds < 600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{round(seconds / 60)} min"


class BuildProgress:
    """The progress file of one build, and its terminal bar (tqdm, with ETA) when asked."""

    def __init__(
        self,
        lock: Path,
        total: int,
        bar: bool,
        desc: str = "embedding",
        kinds: Mapping[str, int] | None = None,
    ) -> None:
        self.path = _progress_file(lock)
        self.state: dict[str, Any] = {
            "total": total,
            "done": 0,
            "started": time.time(),
            "pid": os.getpid(),
        }
        self.bar: Any = None
        self.listener = _listener
        if self.listener is not None:
            self.listener.begin(total, kinds)
            bar = False  # the listener shows the run's one bar
        # on a pipe or in a log: a plain line every PLAIN_EVERY_S seconds, never \r frames
        self.plain = bool(bar and total) and not sys.stderr.isatty()
        self._said = time.monotonic()
        if bar and total and not self.plain:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=desc, unit="item", file=sys.stderr)
        self._write()

    def advance(self, count: int, batch: Sequence[Document] = ()) -> None:
        """``count`` items stored; ``batch``: those items, whose kinds the run's clock times."""
        self.state["done"] += count
        self._write()
        if self.listener is not None:
            self.listener.advance(count, batch_shares(batch))
        if self.bar is not None:
            self.bar.update(count)
        elif self.plain and (
            time.monotonic() - self._said >= PLAIN_EVERY_S
            or self.state["done"] >= self.state["total"]
        ):
            self._said = time.monotonic()
            state = BuildState(self.state["done"], self.state["total"], self.state["started"])
            said = describe(state, "vector").split(": ", 1)[-1]
            print(f"embedding: {said}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        self.path.unlink(missing_ok=True)

    def _write(self) -> None:
        with contextlib.suppress(OSError):  # progress is a courtesy: never fail a build on it
            atomic_write.write_text(self.path, json.dumps(self.state))


@contextlib.contextmanager
def build_progress(
    lock: Path, total: int, bar: bool, kinds: Mapping[str, int] | None = None
) -> Iterator[BuildProgress]:
    progress = BuildProgress(lock, total, bar, kinds=kinds)
    try:
        yield progress
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM (arr.cli.main): what is kept, in one line
        from arr.errors import note_interrupt

        done = progress.state["done"]
        note_interrupt(
            f"{done:,} of {total:,} passages embedded are kept; `arr index` embeds the rest"
        )
        raise
    finally:
        progress.close()


def while_building(found: Freshness, lock: Path, channel: str, index_dir: Path) -> Freshness:
    """A channel's freshness ``found`` told how far a build of it is, when one runs now (or
    when an ``arr index`` run on ``index_dir`` has not reached it yet): an index being built is
    "building", not "run arr index"."""
    if found.fresh or found.code not in (codes.INDEX_MISSING, codes.INDEX_STALE):
        return found
    state = build_state(lock)
    if state is None:
        return _index_run(found, index_dir, channel)
    building = describe(state, channel)
    if found.code == codes.INDEX_MISSING and state.done > 0:
        # A first build stores as it goes: answer from what is embedded so far (marked
        # partial) rather than not at all: a hybrid answer in the first minute on a tree
        # whose whole embedding takes an hour.
        return Freshness(
            fresh=True,
            code=codes.INDEX_PARTIAL,
            detail=f"{building}; answering from the items embedded so far",
        )
    return Freshness(
        fresh=False,
        code=codes.INDEX_BUILDING,
        detail=f"{building}; answering from the ready channels until it finishes",
    )


def _index_run(found: Freshness, index_dir: Path, channel: str) -> Freshness:
    """Before its own build starts (``arr index`` builds the lexical channels first), a channel
    of a workspace being indexed is "being built", not "run arr index"."""
    from arr.tools.index_run import indexing_process

    who = indexing_process(index_dir)
    if who is None:
        return found
    return Freshness(
        fresh=False,
        code=codes.INDEX_BUILDING,
        detail=f"arr index ({who}) is running on this workspace: the {channel} index is being "
        "built after the lexical channels; answering from the ready channels until it finishes",
    )
