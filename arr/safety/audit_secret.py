"""The audit key as a credential (issue 62): its hex is withheld wherever it lies.

The key that signs the audit chains (:mod:`arr.memory.audit_key`) is refused inside a workspace
or a scope's roots, but a copy of it is only text: pasted into notes, a backup in a project
folder. Every content judge (:func:`arr.safety.rules.credential_kind`) and every redaction
asks :func:`audit_key_spans`, so a file holding the key's hex, in either case, is withheld as a
credential and a snippet holding it is redacted. The key is read here, never made: where it is
found is :func:`key_path` (the one place, :mod:`arr.memory.audit_key` reads it from here), and
it is read again only when its file changes (one ``lstat`` a second at most).
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path

KEY_ENV = "ARR_AUDIT_KEY"
_HEX = frozenset(b"0123456789abcdefABCDEF")
MIN_HEX = 32  # the key is 16 bytes or more (32 random bytes as made)


def key_path() -> Path:
    """``$ARR_AUDIT_KEY`` when set, else ``$XDG_CONFIG_HOME/arr/audit.key``."""
    explicit = os.environ.get(KEY_ENV)
    if explicit:
        return Path(explicit).expanduser()
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "arr" / "audit.key"


_seen: dict[str, tuple[tuple[int, int, int], tuple[bytes, ...]]] = {}
_lock = threading.Lock()


def _read_hex(path: Path) -> tuple[bytes, ...]:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return ()
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ()
        text = os.read(fd, 4096).strip()
    except OSError:
        return ()
    finally:
        os.close(fd)
    if len(text) < MIN_HEX or not set(text) <= _HEX:
        return ()
    return tuple({text.lower(), text.upper()})


# The key file is looked at again at most this often (a judgement is 10-30 us; an lstat per
# judgement was a tenth of the judge's time on source trees). A key made or replaced is seen
# within the second: before it exists, no copy of it can.
RECHECK_S = 1.0
_checked: dict[str, tuple[float, tuple[bytes, ...]]] = {}


def key_hex() -> tuple[bytes, ...]:
    """The key's hex as it may be written (lower and upper case), or () when there is none."""
    now = time.monotonic()
    # where the key is depends on these alone; read before any Path is made (a judgement's cost)
    where = (os.environ.get(KEY_ENV), os.environ.get("XDG_CONFIG_HOME"), os.environ.get("HOME"))
    recent = _recent.get(where)
    if recent is not None and now - recent[0] < RECHECK_S:
        return recent[1]
    found = _key_hex_now(now)
    _recent[where] = (now, found)
    return found


_recent: dict[tuple[str | None, ...], tuple[float, tuple[bytes, ...]]] = {}


def _key_hex_now(now: float) -> tuple[bytes, ...]:
    path = key_path()
    recent = _checked.get(str(path))
    if recent is not None and now - recent[0] < RECHECK_S:
        return recent[1]
    try:
        info = os.lstat(path)
    except OSError:
        _checked[str(path)] = (now, ())
        return ()
    state = (info.st_ino, info.st_size, info.st_mtime_ns)
    with _lock:
        cached = _seen.get(str(path))
    found = cached[1] if cached is not None and cached[0] == state else _read_hex(path)
    with _lock:
        _seen[str(path)] = (state, found)
        _checked[str(path)] = (now, found)
    return found


def audit_key_spans(content: bytes) -> Iterator[tuple[int, int]]:
    """(start, end) of each copy of the audit key's hex in ``content``."""
    for written in key_hex():
        start = content.find(written)
        while start != -1:
            yield start, start + len(written)
            start = content.find(written, start + 1)
