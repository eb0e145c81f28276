"""Files written whole or not at all: a reader (or the next command) never sees half a file,
and a failed write (a full disk, a kill) leaves no temporary file behind.

The text goes to a temporary file beside the target (same folder, so the rename is atomic),
which then replaces the target; on any failure the temporary file is removed and the error
raised as it was (the CLI turns ENOSPC into one ``disk_full`` line).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path


def temporary_beside(path: Path) -> Path:
    """A name beside ``path`` that no other process or thread writes."""
    return path.with_name(f".{path.name}.tmp-{os.getpid()}-{threading.get_ident()}")


def write_bytes(path: Path | str, data: bytes) -> None:
    target = Path(path)
    tmp = temporary_beside(target)
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_text(path: Path | str, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))
