"""The CLI's door into a running ``arr serve``: a cold ``arr search`` asks the server's warm
router instead of loading one (Python's start and a socket, not the model, the indexes and the
rule set: issue 64's cold search).

The door is a Unix socket the server opens beside its MCP transport, in a folder only its user
may enter (``$XDG_RUNTIME_DIR/arr``, else ``/tmp/arr-<uid>``, mode 0700, owned by the user: a
folder anyone else made or opened is not used), named by a hash of the workspace folder. Both
ends check the other's user (``SO_PEERCRED``; where the system has none, there is no door). It
is no network: nothing listens on an address.

The server answers only a search it would answer the same way: the client's composed config
equal to the server's but for the per-call keys (scope, top_k, output, verbose, ...), the same
``ARR_*`` environment, a scope the server is pinned to. Anything else (another config, an
error, no answer within the deadline) is declined and the client runs the search itself, so
an answer never depends on whether a server runs. ``ARR_NO_SERVER=1`` keeps the CLI (and a
server) off the door. The run folder is the client's, written as a search of its own writes it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import socket
import stat
import struct
import tempfile
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

log = logging.getLogger("arr.cli.door")

OFF_ENV = "ARR_NO_SERVER"
# keys of a search's config that one call may set without changing the router that answers
PER_CALL = frozenset({"scope", "top_k", "output", "verbose", "progress", "task_name", "keep_runs"})
MAX_REQUEST = 4 * 1024 * 1024  # a config and a query
MAX_ANSWER = 256 * 1024 * 1024  # top_k up to 1000 places with their snippets
CONNECT_S = 0.5


def index_dir(container: dict[str, Any]) -> str:
    """The folder of the indexes a config searches: what a server's door is named by (a
    workspace's, the demo's)."""
    return str((container.get("workspace") or {}).get("index_dir") or "")


def door_path(index_folder: str, make: bool = True) -> Path | None:
    """Where the door of the server over the indexes in ``index_folder`` is; None where no door
    can be safe (no peer credentials, or no folder that is the user's alone)."""
    if os.environ.get(OFF_ENV) or not hasattr(socket, "SO_PEERCRED"):
        return None
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    own = f"arr-{os.getuid()}"
    folder = Path(runtime) / "arr" if runtime else Path(tempfile.gettempdir()) / own
    try:
        if make:  # the server makes it; a search asks only (nothing made where none serves)
            folder.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        return None  # a link, another user's folder, or one others may enter: no door
    name = hashlib.sha256(os.path.realpath(index_folder).encode()).hexdigest()[:24]
    return folder / f"{name}.sock"


def environment_mark() -> str:
    """What of the environment may change an answer: every ``ARR_*`` variable (the audit key,
    the workspace), hashed; the client's must equal the server's."""
    pairs = sorted((k, v) for k, v in os.environ.items() if k.startswith("ARR_") and k != OFF_ENV)
    return hashlib.sha256(json.dumps(pairs).encode()).hexdigest()


def router_part(container: dict[str, Any]) -> str:
    """The config that builds the router: all but the per-call keys."""
    kept = {k: v for k, v in container.items() if k not in PER_CALL}
    return json.dumps(kept, sort_keys=True, default=str)


def peer_uid(connection: socket.socket) -> int:
    raw = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", raw)[1]


def _read_all(connection: socket.socket, limit: int) -> bytes:
    chunks, size = [], 0
    while chunk := connection.recv(1 << 16):
        size += len(chunk)
        if size > limit:
            raise ValueError(f"more than {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def ask(container: dict[str, Any], texts: dict[str, str]) -> dict[str, Any] | None:
    """The answer of a running server over this workspace (``result``: as a run folder keeps
    it, ``shown``: the text to print, ``pid``), or None: no server, or it declined."""
    where = index_dir(container)
    path = door_path(where, make=False) if where and "query" in texts else None
    if path is None or not path.exists():
        return None
    deadline_ms = (container.get("router") or {}).get("deadline_ms")
    wait = float(deadline_ms) / 1000 + 5 if isinstance(deadline_ms, int | float) else 120.0
    request = {"container": container, "texts": texts, "environment": environment_mark()}
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(CONNECT_S)
            connection.connect(str(path))
            if peer_uid(connection) != os.getuid():
                log.warning("the door at %s is another user's: not asked", path)
                return None
            connection.settimeout(wait)
            connection.sendall(json.dumps(request, default=str).encode())
            connection.shutdown(socket.SHUT_WR)
            answer = json.loads(_read_all(connection, MAX_ANSWER))
    except (OSError, ValueError) as exc:  # gone, slow, or garbled: the search runs here
        log.info("no answer from arr serve's door (%s): searching here", exc)
        return None
    if not isinstance(answer, dict) or "shown" not in answer or "result" not in answer:
        why = answer.get("declined") if isinstance(answer, dict) else answer
        log.info("arr serve declined: %s", str(why)[:300])
        return None
    return answer


Answer = Callable[[dict[str, Any], dict[str, str]], tuple[dict[str, Any], str]]


class Door:
    """The server's end: answers the CLI's searches on the server's router, one thread per
    caller, while the server runs; the socket goes when the server stops."""

    def __init__(
        self, container: dict[str, Any], answer: Answer, pinned: Iterable[str] | None = None
    ) -> None:
        self.own = router_part(container)
        self.environment = environment_mark()
        self.answer = answer
        self.pinned = set(pinned) if pinned else None
        where = index_dir(container)
        self.path = door_path(where) if where else None
        self._listener: socket.socket | None = None

    def open(self) -> bool:
        """Listen, unless another live server holds this workspace's door (then no door)."""
        if self.path is None:
            return False
        if self.path.exists() or self.path.is_symlink():
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                    probe.settimeout(CONNECT_S)
                    probe.connect(str(self.path))
                log.warning("another arr serve answers the CLI for this workspace: no door")
                return False
            except OSError:
                self.path.unlink(missing_ok=True)  # a stopped server's socket
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(str(self.path))
            os.chmod(self.path, 0o600)
            listener.listen(16)
        except OSError as exc:
            listener.close()
            log.warning("no door for the CLI (%s)", exc)
            return False
        self._listener = listener
        threading.Thread(target=self._serve, name="arr-door", daemon=True).start()
        return True

    def close(self) -> None:
        if self._listener is not None:
            self._listener.close()
            self._listener = None
            if self.path is not None:
                self.path.unlink(missing_ok=True)

    def _serve(self) -> None:
        listener = self._listener
        while listener is not None and listener.fileno() != -1:
            try:
                connection, _ = listener.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._one, args=(connection,), daemon=True).start()

    def _one(self, connection: socket.socket) -> None:
        with connection:
            try:
                if peer_uid(connection) != os.getuid():
                    return  # another user: not a word
                connection.settimeout(10)
                request = json.loads(_read_all(connection, MAX_REQUEST))
                reply = self.reply(request)
            except Exception as exc:  # any failure declines: the client searches itself
                reply = {"declined": f"{type(exc).__name__}: {str(exc)[:200]}"}
            try:
                connection.settimeout(None)
                connection.sendall(json.dumps(reply, ensure_ascii=False).encode())
            except OSError:
                pass  # the client gave up waiting and searches itself

    def reply(self, request: dict[str, Any]) -> dict[str, Any]:
        container, texts = request["container"], request["texts"]
        if request.get("environment") != self.environment:
            return {"declined": "another ARR_* environment than the server's"}
        if router_part(container) != self.own:
            return {"declined": "another config than the server's"}
        scope = container.get("scope")
        if self.pinned is not None and scope not in self.pinned:
            return {"declined": "a scope the server is not pinned to"}
        result, shown = self.answer(container, texts)
        return {"result": result, "shown": shown, "pid": os.getpid()}
