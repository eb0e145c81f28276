"""The one admission step with I/O: a stale index brought up to date before the call, when the
change is small (at most ``max_files`` changed files; incremental, see each tool's
``refresh``). A search never waits for a build: a busy index answers ``index_building``.

Under a deadline the refresh runs beside the search, in a thread of its own, and the search waits
for it at most ``READING_SHARE`` of its time left. What checks that deadline stops at it and
writes nothing (bm25 tokenizing dense files: ``OutOfTime``; a reader: ``NotReady``), so it does
not take the interpreter from the search's own calls (grep was starved past its deadline
beside a bm25 refresh left running). What cannot stop (a model to load, passages to embed) goes
on while the search answers from the other channels (``index_stale``, saying so); a later search
of the same process finds it done, or waits on the same one. A one-shot process drops it at
exit (each channel's writes are whole or resumable), and ``arr index`` brings the change in for
every process. Without a deadline the refresh runs inline, as long as it takes."""

from __future__ import annotations

import atexit
import contextlib
import threading
import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as StillRunning

from arr import codes
from arr.deadline import READING_SHARE, REQUEST_DEADLINE, OutOfTime, within
from arr.errors import is_disk_full
from arr.models import Freshness, ScopeKey
from arr.readers import NotReady
from arr.tools.contract import Refreshing, Tool, has
from arr.tools.partition import IndexBusy, without_waiting


def refresh_before_call(
    name: str, tool: Tool, scope: ScopeKey, max_files: int, timings: dict[str, float]
) -> Freshness | None:
    """The index's freshness after a refresh, or None when the tool cannot refresh (or
    refreshing is off); the time spent lands in ``timings[name]`` (ms)."""
    if max_files == 0 or not has(tool, Refreshing):
        return None
    started = time.perf_counter()
    deadline = REQUEST_DEADLINE.get()
    # reading changed files may take a share of the time left; the calls need the rest
    by = None if deadline is None else started + READING_SHARE * max(0.0, deadline - started)
    try:
        if by is None:
            with without_waiting():  # a search never waits for a build
                done = tool.refresh(scope, max_files)
        else:
            running = _beside(name, tool, scope, max_files, by)
            done = running.result(timeout=max(0.0, by - time.perf_counter()))
    except StillRunning:
        return Freshness(
            fresh=False,
            code=codes.INDEX_STALE,
            detail=f"the {name} index was not refreshed by the search's deadline (more than it "
            "leaves to read and index the changed files); answering from the other channels: "
            "a refresh that cannot stop goes on beside the search and a later search of this "
            "process finds it done; `arr index` brings the change in for every process",
        )
    except NotReady as exc:
        return Freshness(
            fresh=False,
            code=codes.INDEX_STALE,
            detail=f"a changed file was not read by the search's deadline ({exc.detail}); "
            "it is read on in the background and the next search refreshes the index",
        )
    except OutOfTime as exc:
        return Freshness(
            fresh=False,
            code=codes.INDEX_STALE,
            detail=f"the changed files are more than the search's deadline can read ({exc}); "
            "answering from the other channels: `arr index` (or a search without "
            f"router.deadline_ms) brings them into the {name} channel",
        )
    except IndexBusy:
        return Freshness(
            fresh=False,
            code=codes.INDEX_BUILDING,
            detail=f"an index build of the {name} channel for this scope is running; "
            "answering from the other channels until it finishes",
        )
    except Exception as exc:  # a failed refresh leaves the index as it was: still stale
        full = is_disk_full(exc)
        return Freshness(
            fresh=False,
            code=codes.DISK_FULL if full else codes.INDEX_STALE,
            detail=f"automatic refresh failed ({type(exc).__name__}: {str(exc)[:200]})"
            + ("; free space on the index folder's disk" if full else ""),
        )
    finally:
        timings[name] = round((time.perf_counter() - started) * 1000, 3)
    if not done:
        return Freshness(
            fresh=False,
            code=codes.INDEX_STALE,
            detail=f"more changed since the {name} index was built than a refresh before a "
            f"search takes (more than {max_files} files, or more passages than the channel "
            "embeds before a search)",
        )
    # The tool brought the index to the sources it just walked: fresh (checking again would
    # walk the tree a third time in this search).
    return Freshness(fresh=True, code=codes.REFRESHED, detail="")


_RUNNING: dict[tuple[int, str], Future[bool]] = {}
_RUNNING_LOCK = threading.Lock()


def _beside(name: str, tool: Tool, scope: ScopeKey, max_files: int, by: float) -> Future[bool]:
    """The refresh of ``tool``'s index of ``scope`` running in a thread of its own: the one
    already running, else a new one, under the search's reading deadline ``by``. A daemon
    thread: a one-shot process does not wait for it at exit (what it had written is whole or
    resumable)."""
    key = (id(tool), scope.fingerprint())
    with _RUNNING_LOCK:
        running = _RUNNING.get(key)
        if running is not None and not running.done():
            return running
        for ended in [k for k, future in _RUNNING.items() if future.done()]:
            del _RUNNING[ended]
        running = Future()
        _RUNNING[key] = running

    def work() -> None:
        try:
            # never waits for a build elsewhere (IndexBusy); what checks the deadline (bm25's
            # tokenizing, a reader) stops at it rather than compete with the search's calls
            with without_waiting(), within(by):
                running.set_result(bool(tool.refresh(scope, max_files)))
        except BaseException as exc:  # delivered to whoever waits on it
            running.set_exception(exc)

    threading.Thread(target=work, name=f"arr-refresh-{name}", daemon=True).start()
    return running


def refreshing() -> bool:
    """True while a refresh runs beside a search (the CLI then leaves without waiting)."""
    with _RUNNING_LOCK:
        return any(not running.done() for running in _RUNNING.values())


@atexit.register
def _finish_at_exit() -> None:
    """A library caller's process waits at exit for the refreshes it started: a daemon thread
    stopped inside native code (a model loading, a store writing) can crash the interpreter's
    finalisation. The CLI leaves before this (arr.cli.main), as a kill would: what the refresh
    had written is whole or resumable."""
    with _RUNNING_LOCK:
        running = list(_RUNNING.values())
    for future in running:
        with contextlib.suppress(BaseException):
            future.exception()
