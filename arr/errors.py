"""User-facing errors: one line, specific, with the offending value and the valid options.

The CLI prints ``arr: error: <message>`` and exits 2 for any ArrError; anything else is a bug.
"""

from __future__ import annotations


class ArrError(Exception):
    """Base for errors caused by the user's input or configuration."""


class ConfigError(ArrError):
    """A config value is invalid (unknown option, out-of-range budget, bad path)."""


class QueryError(ArrError):
    """The query is empty, too long or otherwise unusable."""


class ScopeError(ArrError):
    """The scope is unknown or malformed."""


class WorkspaceError(ArrError):
    """The workspace, an index or a store cannot be read or written. ``code`` is a fixed
    reason code when the Router should record one (``scope_root_missing``), else None."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class MemoryStoreError(ArrError):
    """The research memory store refused an operation (unknown id, bad transition, corrupt db).

    ``code`` names the cause when the database itself failed (``disk_full``,
    ``memory_db_locked``, ``memory_db_io_error``, ``memory_db_corrupt``), else it is None."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


def is_whole_number_in(value: object, low: int, high: int) -> bool:
    """An int (not a bool) in ``low..high``: what a size, a count or a limit must be."""
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def whole_number(name: str, value: object, low: int, high: int) -> int:
    """``value`` when it is a whole number in ``low..high``, else a ConfigError naming it."""
    if not is_whole_number_in(value, low, high):
        raise ConfigError(f"{name} must be a whole number in {low}..{high}, got {value!r:.40}")
    return value  # type: ignore[return-value]


_DISK_FULL_WORDS = ("no space left on device", "database or disk is full", "disk quota exceeded")


class DiskFull(ArrError):
    """A write failed because the disk is full (``disk_full`` in JSON); what was stored
    before is unchanged."""


def is_disk_full(exc: BaseException | None) -> bool:
    """True when ``exc`` (or what caused it) says the disk is full: an OSError with ENOSPC or
    EDQUOT, SQLite's "database or disk is full", or a library's message of the same (Chroma
    and its Rust bindings turn the OSError into text)."""
    import errno

    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        text = f"{exc} {getattr(exc, 'detail', '')}".lower()
        if any(word in text for word in _DISK_FULL_WORDS):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


# What an interrupted command leaves, said in the one line the CLI prints for Ctrl-C or
# SIGTERM (``interrupted: 256 of 847 passages embedded are kept; arr index resumes``).
INTERRUPT_NOTES: list[str] = []


def note_interrupt(text: str) -> None:
    INTERRUPT_NOTES.append(text)
