"""``arr index``'s one bar: the whole run's share done and time left (arr.compose.run_clock).

On a terminal a tqdm bar on its own line, redrawn every second by a ticker so the time left
counts down between batches; on a pipe or in a log a plain line when a partition starts and
every ``PLAIN_EVERY_S`` seconds, never ``\\r`` frames. The share done is time, not partitions:
elapsed / (elapsed + left), so the bar and the time left never disagree.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from arr.compose.run_clock import RunClock
from arr.tools.build_progress import PLAIN_EVERY_S, duration

TICK_S = 1.0


class RunBar:
    def __init__(self, clock: RunClock, jobs: int, shown: bool) -> None:
        self.clock = clock
        self.jobs = jobs
        self.number = 0
        self.job = ""
        self.shown = shown
        self.terminal = shown and sys.stderr.isatty()
        self._lock = threading.Lock()
        self._said = time.monotonic()
        self._stop = threading.Event()
        self._bar: Any = None
        if self.terminal:
            from tqdm import tqdm

            # a terminal that reports no size (a new pseudo-terminal) would get no bar at all
            # from tqdm: $COLUMNS/$LINES, else 80x24, as shutil reads them
            size = shutil.get_terminal_size((80, 24))
            self._bar = tqdm(
                total=None,
                file=sys.stderr,
                bar_format="{desc}",
                ncols=size.columns,
                nrows=size.lines,
                leave=False,
            )
        self._ticker = threading.Thread(target=self._tick, name="arr-index-bar", daemon=True)
        if self.shown:
            self._ticker.start()

    # ---- what the run tells it ---------------------------------------------------------------
    def starts(self, number: int, job: str) -> None:
        with self._lock:
            self.number, self.job = number, job
            if self.shown and not self.terminal:
                print(f"indexing {number}/{self.jobs}: {job}", file=sys.stderr, flush=True)
            self._draw()

    def planning(self) -> None:
        """Between the lexical channels and the first vector partition: what is being done."""
        with self._lock:
            self.job = "(working out what to embed)"
            self._draw()

    def aside(self, say: Callable[[], None]) -> None:
        """What ``say`` prints (the "lexical channels ready" line) on lines of its own, never
        glued onto the bar."""
        with self._lock:
            if self._bar is not None:
                self._bar.clear()
            say()
            self._draw()

    def close(self) -> None:
        self._stop.set()
        if self._ticker.is_alive():
            self._ticker.join(timeout=2 * TICK_S)
        with self._lock:
            if self._bar is not None:
                self._bar.close()
                self._bar = None

    # ---- drawing -----------------------------------------------------------------------------
    def line(self) -> str:
        """``indexing 5/6 vector papers: 640 of 2,739 passages embedded; about 38 s left``."""
        left, work = self._parts()
        where = f"indexing {self.number}/{self.jobs} {self.job}"
        work = f": {work} embedded" if work else ""
        told = "working out the time left" if left is None else f"about {duration(left)} left"
        return f"{where}{work}; {told}"

    def _draw(self) -> None:
        """``37% |#######             | about 38 s left, 5/6 vector papers, 640 of 2,739
        passages`` (the time left first: a narrow terminal cuts the line's end)."""
        if self._bar is None:
            return
        left, work = self._parts()
        where = f"{self.number}/{self.jobs} {self.job}{f', {work}' if work else ''}"
        if left is None:
            text = f"indexing {where}, working out the time left"
        else:
            elapsed = self.clock.elapsed_s()
            share = elapsed / (elapsed + left) if elapsed + left > 0 else 1.0
            filled = round(share * 20)
            bar = f"{'#' * filled}{' ' * (20 - filled)}"
            text = f"{share:4.0%} |{bar}| about {duration(left)} left, {where}"
        self._bar.set_description_str(text, refresh=True)

    def _parts(self) -> tuple[float | None, str]:
        """(the time left, or None while unknown; ``640 of 2,739 passages`` once planned)."""
        done, total = self.clock.embedding()
        return self.clock.left_s(), f"{done:,} of {total:,} passages" if total else ""

    def _tick(self) -> None:
        while not self._stop.wait(TICK_S):
            with self._lock:
                if self.terminal:
                    self._draw()
                elif time.monotonic() - self._said >= PLAIN_EVERY_S:
                    self._said = time.monotonic()
                    print(self.line(), file=sys.stderr, flush=True)
