"""How the ``arr`` command fails: one line on stderr (``arr: error: ...``, exit 2), or one JSON
object on stdout with ``--json``; a storage failure names its cause and file; a bug keeps its
traceback in the run log. No traceback reaches the user."""

from __future__ import annotations

import errno
import json
import logging
import re
import sys
from collections.abc import Callable
from typing import Any

from arr import codes
from arr.cli.terminal import terminal_safe
from arr.errors import ArrError, is_disk_full

log = logging.getLogger("arr.cli")
JSON_ERRORS = {"on": False}  # set when --json is given: errors become JSON on stdout


def error_kind(exc: BaseException) -> str:
    """``ScopeError`` -> ``scope_error``: the code of a JSON error."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(exc).__name__).lower()


def fail(message: str, code: int = 2, kind: str | None = None) -> int:
    if JSON_ERRORS["on"]:
        kind = kind or (codes.INTERNAL_ERROR if code == 1 else "error")
        print(json.dumps({"error": {"code": kind, "message": message}}))
    else:
        print(f"arr: error: {terminal_safe(message)}", file=sys.stderr)
    return code


# Failures of the disk a run writes to (its output folder, an index): one line naming the
# cause and the file, never a traceback (Hydra saving its config, a log handler, a report).
STORAGE_ERRNOS = {
    errno.ENOSPC: codes.DISK_FULL,
    errno.EDQUOT: codes.DISK_FULL,
    errno.EROFS: "read_only_file_system",
    errno.EACCES: "permission_denied",
    errno.EIO: "io_error",
}


def storage_message(exc: OSError) -> str:
    where = f" writing {exc.filename!s}"[:300] if exc.filename else ""
    hint = (
        "; free space, or write elsewhere with paths.output_dir=... (indexes: the workspace's "
        "index folder)"
        if exc.errno in (errno.ENOSPC, errno.EDQUOT)
        else ""
    )
    return f"{exc.strerror or exc}{where}{hint}"


def guarded(task: Callable[[Any], int], cfg: Any) -> int:
    try:
        return task(cfg)
    except ArrError as exc:
        log.error("%s", exc)
        return fail(str(exc), kind=error_kind(exc))
    except BrokenPipeError:
        raise  # the reader went away: main() ends quietly
    except Exception as exc:  # a bug: keep the traceback in the run log, one line for the user
        if isinstance(exc, OSError) and exc.errno in STORAGE_ERRNOS:  # the disk, not a bug
            return fail(storage_message(exc), kind=STORAGE_ERRNOS[exc.errno])
        if is_disk_full(exc):  # a library's own words for ENOSPC (SQLite, Chroma)
            message = f"disk full: {str(exc)[:300]}; free space and run again"
            return fail(message, kind=codes.DISK_FULL)
        log.exception("internal error")
        return fail(f"internal error ({type(exc).__name__}: {exc}); details in the run log", 1)
