"""The one admission step with I/O: a stale index brought up to date before the call, when the
change is small (at most ``max_files`` changed files; incremental, see each tool's
``refresh``). A search never waits for a build: a busy index answers ``index_building``."""

from __future__ import annotations

import time

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
    refresh = tool.refresh
    started = time.perf_counter()
    deadline = REQUEST_DEADLINE.get()
    # reading changed files may take a share of the time left; the calls need the rest
    by = None if deadline is None else started + READING_SHARE * max(0.0, deadline - started)
    try:
        with without_waiting(), within(by):  # a search never waits for a build
            done = refresh(scope, max_files)
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
            f"answering from the other channels: `arr index` (or a search without "
            "router.deadline_ms) brings them into the {name} channel",
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
            detail=f"more than {max_files} files changed since the {name} "
            "index was built (too many to refresh before a search)",
        )
    # The tool brought the index to the sources it just walked: fresh (checking again would
    # walk the tree a third time in this search).
    return Freshness(fresh=True, code=codes.REFRESHED, detail="")
