"""Running admitted calls: each in a worker thread (or inline), timed, never raising; a call
still running at the request deadline is abandoned, never waited for."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass

from arr import codes
from arr.errors import WorkspaceError, is_disk_full
from arr.models import Degradation, ScopeKey, ToolCall
from arr.tools.base import ChannelAnswer, ChannelError, within
from arr.tools.contract import Tool


@dataclass(frozen=True)
class Outcome:
    answer: ChannelAnswer | None
    failure: Degradation | None
    elapsed_ms: float
    abandoned: bool = False


def timed_call(tool: Tool, call: ToolCall, scope: ScopeKey, deadline: float | None) -> Outcome:
    """Run one admitted call (in a worker thread or inline); never raises."""
    started = time.perf_counter()
    with within(deadline):  # channels that can stop early honour it
        try:
            answer = tool.retrieve(call, scope)
            answer = answer if isinstance(answer, ChannelAnswer) else ChannelAnswer(list(answer))
            failure = None
        except ChannelError as exc:
            answer, failure = None, Degradation(stage=call.tool, code=exc.code, detail=exc.detail)
        except Exception as exc:  # any channel failure is a degradation, never a lost search
            answer = None
            if isinstance(exc, WorkspaceError) and exc.code:
                code = exc.code  # e.g. scope_root_missing: the cause, not "channel_error"
            else:
                code = codes.DISK_FULL if is_disk_full(exc) else codes.CHANNEL_ERROR
            failure = Degradation(
                stage=call.tool, code=code, detail=f"{type(exc).__name__}: {exc}"[:300]
            )
    return Outcome(answer, failure, round((time.perf_counter() - started) * 1000, 3))


class CallPool:
    """The Router's worker threads, started on first need and shared by every request."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def _executor(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(
                    max_workers=self.workers, thread_name_prefix="arr-call"
                )
            return self._pool

    def run(
        self,
        tools: Mapping[str, Tool],
        calls: list[ToolCall],
        scope: ScopeKey,
        deadline: float | None,
    ) -> list[Outcome]:
        """The outcomes of ``calls``, in call order."""
        if not calls:
            return []
        if deadline is None and (len(calls) == 1 or self.workers == 1):
            return [timed_call(tools[c.tool], c, scope, None) for c in calls]
        pool = self._executor()
        futures = [pool.submit(timed_call, tools[c.tool], c, scope, deadline) for c in calls]
        timeout = None if deadline is None else max(0.0, deadline - time.perf_counter())
        wait(futures, timeout=timeout)
        outcomes = []
        for future in futures:
            if future.done():
                outcomes.append(future.result())
            else:
                future.cancel()  # not started yet: never runs; running: abandoned
                outcomes.append(Outcome(None, None, 0.0, abandoned=True))
        return outcomes

    def close(self) -> None:
        """Stop the worker threads (a later ``run`` starts new ones)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
