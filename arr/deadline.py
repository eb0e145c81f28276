"""The request's deadline, readable by any stage below the Router without passing it down.

The Router sets it (:func:`within`) around a search's admission, calls, planning and
reranking; a stage that may take long (an LLM call, a grep scan, a reader extracting a file
that changed) asks :func:`seconds_left` how long it may still take. It lives here, at the
bottom, so readers and the workspace can honour it without importing the channels.
"""

from __future__ import annotations

import time
from contextvars import ContextVar

REQUEST_DEADLINE: ContextVar[float | None] = ContextVar("arr_request_deadline", default=None)


class within:  # noqa: N801 (used as a function: ``with within(deadline):``)
    """Run the block under ``deadline`` (a ``time.perf_counter()`` value, or None). A class,
    not a generator context: the Router enters it four times per search (a third the cost)."""

    __slots__ = ("_deadline", "_token")

    def __init__(self, deadline: float | None) -> None:
        self._deadline = deadline

    def __enter__(self) -> None:
        self._token = REQUEST_DEADLINE.set(self._deadline)

    def __exit__(self, *exc: object) -> None:
        REQUEST_DEADLINE.reset(self._token)


def seconds_left(default: float) -> float:
    """Seconds until the request deadline, or ``default`` when there is none."""
    deadline = REQUEST_DEADLINE.get()
    if deadline is None:
        return default
    return min(default, max(0.0, deadline - time.perf_counter()))


def time_left() -> float | None:
    """Seconds until the request deadline, or None when there is none (an index build)."""
    deadline = REQUEST_DEADLINE.get()
    return None if deadline is None else max(0.0, deadline - time.perf_counter())


# Reading new or changed files (papers, notebooks) may take this share of a call's or a
# search's time left; the search itself needs the rest (grep's views, a refresh).
READING_SHARE = 0.5


class OutOfTime(Exception):
    """Work a search started that its deadline cannot hold (a refresh of files too many or too
    large to read and tokenize in the time left): dropped whole, nothing half-written; the
    caller answers from what it had and says so."""


def out_of_time() -> bool:
    """True once the request deadline has passed (never without one: an index build)."""
    deadline = REQUEST_DEADLINE.get()
    return deadline is not None and time.perf_counter() >= deadline
