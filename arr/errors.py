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
    """The workspace, an index or a store cannot be read or written."""


class MemoryStoreError(ArrError):
    """The research memory store refused an operation (unknown id, bad transition, corrupt db).

    ``code`` names the cause when the database itself failed (``disk_full``,
    ``memory_db_locked``, ``memory_db_io_error``, ``memory_db_corrupt``), else it is None."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code
