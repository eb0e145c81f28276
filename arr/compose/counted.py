"""A loop's progress on stderr, as every ``arr`` command shows it: a tqdm bar on a terminal; on
a pipe or in a log a plain line every ``PLAIN_EVERY_S`` seconds and one at the end, never
``\\r`` frames (a log keeps every frame a bar draws)."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Sequence
from typing import TypeVar

from arr.tools.build_progress import PLAIN_EVERY_S

Item = TypeVar("Item")


def counted(items: Sequence[Item], desc: str, unit: str, units: str, shown: bool) -> Iterator[Item]:
    """``items`` one by one, their progress shown when ``shown`` (``evaluating: 10 of 22
    queries`` on a pipe)."""
    if not shown:
        yield from items
        return
    if sys.stderr.isatty():
        from tqdm import tqdm

        yield from tqdm(items, desc=desc, unit=unit, file=sys.stderr)
        return
    said = time.monotonic()
    total = len(items)
    for number, item in enumerate(items, 1):
        yield item
        if number == total or time.monotonic() - said >= PLAIN_EVERY_S:
            said = time.monotonic()
            print(f"{desc}: {number:,} of {total:,} {units}", file=sys.stderr, flush=True)
