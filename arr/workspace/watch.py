"""Change watching for long-lived processes: know that a tree did not change without walking it.

Before every search the channels check that their index matches the files (one walk, one lstat
per file): at 30,000 files that alone costs most of a second. A process that lives (``arr
serve``, library mode, ``arr eval``) instead watches every folder of a scope's roots with
Linux inotify and walks again only after something changed:

- any event under a watched folder (a file written, touched, created, deleted, renamed, a
  folder added or removed) marks the tree changed; the next check walks it (and the caller
  refreshes the index as before). New folders are watched as they appear.
- a lost event (kernel queue overflow), a watch that cannot be added (the per-user limit) or a
  root that moved away marks the tree changed, or turns watching off for it: never a stale
  answer, only a walk.
- what inotify cannot see (writes through a hard link from outside the tree, network file
  systems) is caught by a full walk at least every ``verify_s`` seconds (60 by default).

Linux only (``inotify_init1`` through ctypes, no dependency); elsewhere :func:`open_watch`
returns None and every check walks, as in a one-shot process.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import struct
import sys
import threading
import time
import weakref
from collections.abc import Sequence

IN_MODIFY = 0x00000002
IN_ATTRIB = 0x00000004
IN_CLOSE_WRITE = 0x00000008
IN_MOVED_FROM = 0x00000040
IN_MOVED_TO = 0x00000080
IN_CREATE = 0x00000100
IN_DELETE = 0x00000200
IN_DELETE_SELF = 0x00000400
IN_MOVE_SELF = 0x00000800
IN_Q_OVERFLOW = 0x00004000
IN_IGNORED = 0x00008000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_ISDIR = 0x40000000
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = os.O_CLOEXEC

WATCHED = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
    | IN_ONLYDIR
    | IN_DONT_FOLLOW
)
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len (then len bytes of name)
VERIFY_S = 60.0


class WatchUnavailable(Exception):
    """inotify cannot watch this tree (not Linux, no libc symbol, watch limit reached)."""


def _libc() -> ctypes.CDLL:
    if not sys.platform.startswith("linux"):
        raise WatchUnavailable("inotify needs Linux")
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    for name in ("inotify_init1", "inotify_add_watch"):
        if not hasattr(libc, name):
            raise WatchUnavailable(f"libc has no {name}")
    libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
    return libc


class TreeWatch:
    """Whether anything under ``roots`` changed since the last :meth:`settle`.

    Not changed means: no inotify event arrived for any watched folder and the last full walk
    is younger than ``verify_s``. Thread-safe; the file descriptor closes with :meth:`close`.
    """

    def __init__(self, roots: Sequence[str], verify_s: float = VERIFY_S) -> None:
        self._libc = _libc()
        fd = self._libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            raise WatchUnavailable(os.strerror(ctypes.get_errno()))
        self._fd = fd
        self._closer = weakref.finalize(self, os.close, fd)  # closes with the last reference
        self._lock = threading.Lock()
        self._folders: dict[int, str] = {}
        self._roots = [str(r) for r in roots]
        self._verify_s = verify_s
        self._settled_at = 0.0
        self._changed = True  # no walk yet
        self.events = 0
        try:
            for root in self._roots:
                self._watch_tree(root)
        except WatchUnavailable:
            self.close()
            raise

    def _watch_tree(self, top: str) -> None:
        """Watch ``top`` and every folder below it that a walk enters (hidden ones are not)."""
        stack = [top]
        while stack:
            folder = stack.pop()
            wd = self._libc.inotify_add_watch(self._fd, os.fsencode(folder), WATCHED)
            if wd < 0:
                error = ctypes.get_errno()
                if error == 28:  # ENOSPC: the per-user watch limit
                    raise WatchUnavailable("inotify watch limit reached")
                continue  # vanished or unreadable: the walk counts it; a change re-walks
            self._folders[wd] = folder
            try:
                with os.scandir(folder) as listing:
                    for entry in listing:
                        if not entry.name.startswith(".") and entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
            except OSError:
                continue

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                self._changed = True
                return
            offset = 0
            while offset + _EVENT.size <= len(data):
                wd, mask, _, length = _EVENT.unpack_from(data, offset)
                name = data[offset + _EVENT.size : offset + _EVENT.size + length].rstrip(b"\0")
                offset += _EVENT.size + length
                self.events += 1
                self._changed = True
                new_folder = mask & IN_ISDIR and mask & (IN_CREATE | IN_MOVED_TO)
                if new_folder and wd in self._folders and not name.startswith(b"."):
                    try:
                        self._watch_tree(os.path.join(self._folders[wd], os.fsdecode(name)))
                    except WatchUnavailable:
                        self._verify_s = 0.0  # cannot watch all of it any more: always walk
                if mask & IN_IGNORED:
                    self._folders.pop(wd, None)

    def changed(self) -> bool:
        """True when the tree must be walked again (something changed, or verification is due)."""
        with self._lock:
            self._drain()
            if time.monotonic() - self._settled_at >= self._verify_s:
                return True
            return self._changed

    def settle(self) -> None:
        """Called right before a full walk: events from now on mark the tree changed again."""
        with self._lock:
            self._drain()
            self._changed = False
            self._settled_at = time.monotonic()

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                self._fd = -1
                self._closer()


def open_watch(roots: Sequence[str], verify_s: float = VERIFY_S) -> TreeWatch | None:
    """A watch over ``roots``, or None where inotify cannot watch them (then: always walk)."""
    try:
        return TreeWatch(roots, verify_s)
    except (WatchUnavailable, OSError):
        return None
