"""Which channels ``arr index`` runs built whole, noted in the index folder
(``built-channels.json``; ``memory`` once the store is seeded): what the bundled demo's first
use need not build again (arr.compose.demo_index)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable
from pathlib import Path

from arr import atomic_write

BUILT = "built-channels.json"
MEMORY = "memory"  # the seeded memory store counts as a channel built


def built_channels(index_dir: Path) -> set[str]:
    try:
        names = json.loads((index_dir / BUILT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    return {n for n in names if isinstance(n, str)} if isinstance(names, list) else set()


def note_built(index_dir: Path, names: Iterable[str]) -> None:
    """Best effort (a read-only index folder: the next first use builds again)."""
    every = sorted(built_channels(index_dir) | set(names))
    with contextlib.suppress(OSError):
        index_dir.mkdir(parents=True, exist_ok=True)
        atomic_write.write_text(index_dir / BUILT, json.dumps(every))
