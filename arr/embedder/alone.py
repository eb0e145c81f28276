"""int8 texts one at a time, on as many single-thread workers as there are cores.

Dynamic quantisation takes a MatMul's activation scale from its whole input tensor, so a text
batched with others gets another vector (cosine 0.987-0.996 to itself alone) and an index
updated file by file ranks unlike one built from nothing. Each int8 text therefore runs alone.
Alone, small inputs use two intra-op threads poorly; one worker per core, each running a
single-thread session (one session shared by all: ``run`` is thread-safe) on every n-th text
(longest first), recovers the throughput and more.
Measured on the Werkzeug tree's 1,169 passages, 2 cores, interleaved in one process: batched
(the former default, batch-dependent) 119.7 passages/s, alone on one two-thread session 105.5,
alone on two one-thread sessions 128-131; vectors bit-identical to a text embedded alone.
Used by arr.embedder.onnx.OnnxEmbedder (``threads: 0``; an explicit ``threads`` runs one
session with that many threads).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

MAX_WORKERS = 8


def worker_count(threads: int) -> int:
    """Workers to run: one per core (at most MAX_WORKERS) unless ``threads`` is set."""
    if threads:
        return 1
    return max(1, min(MAX_WORKERS, os.cpu_count() or 1))


def run_alone(
    items: Sequence[int],
    sessions: Sequence[Any],
    embed_one: Callable[[int, Any], np.ndarray],
    out: np.ndarray,
    advance: Callable[[int], object] | None = None,
) -> None:
    """``out[i] = embed_one(i, session)`` for every ``i`` of ``items`` (longest first), the
    items dealt round-robin over the workers (one session may serve several), each on a thread
    of its own (onnxruntime releases the GIL while it runs)."""
    if len(sessions) == 1 or len(items) == 1:
        for index in items:
            out[index] = embed_one(index, sessions[0])
            if advance is not None:
                advance(1)
        return

    def work(number: int) -> None:
        for index in items[number :: len(sessions)]:
            out[index] = embed_one(index, sessions[number])
            if advance is not None:
                advance(1)

    with ThreadPoolExecutor(len(sessions), thread_name_prefix="arr-embed") as pool:
        list(pool.map(work, range(len(sessions))))
