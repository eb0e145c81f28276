"""The reading worker: a child process that turns a file's bytes into its view, for every reader.

A reader parses untrusted bytes: PDFium is native code (a decompression bomb, a 5,000-page scan
or a malformed file can take minutes or gigabytes, and nothing inside one process can stop a
native call), and a notebook, a manuscript or a bibliography can be 100 MB of JSON or text
written to make a parser slow. So every reader runs here, in a child with a memory limit
(``RLIMIT_AS``), and the parent (:class:`arr.readers.guard.Guard`) waits at most the per-file
budget, then kills it and starts another for the next file. One worker serves many files
(PDFium loads once). The searching process never parses a reader file itself.

Protocol on stdin/stdout, each message an 8-byte big-endian length and a body: the request is
a JSON header (``suffix``, ``max_pages``, ``budget_s``) then the file's bytes; the reply is
JSON (``{"view": <View JSON>}`` or ``{"reason", "detail"}``).
"""

from __future__ import annotations

import gc
import json
import resource
import struct
import sys
from typing import BinaryIO

LENGTH = struct.Struct(">Q")


def read_message(stream: BinaryIO) -> bytes | None:
    head = stream.read(LENGTH.size)
    if len(head) < LENGTH.size:
        return None
    (size,) = LENGTH.unpack(head)
    body = stream.read(size)
    return body if len(body) == size else None


def write_message(stream: BinaryIO, body: bytes) -> None:
    stream.write(LENGTH.pack(len(body)) + body)
    stream.flush()


def read_view(header: dict, raw: bytes) -> str:
    """The view (as JSON) of ``raw`` by the reader of ``header["suffix"]``; raises Unreadable."""
    from arr.readers.registry import reader_for

    suffix = str(header["suffix"])
    reader = reader_for(suffix, int(header["max_pages"]), float(header["budget_s"]))
    from arr.readers.view import Unreadable
    from arr.readers.walls import walled
    from arr.safety.file_rule import CREDENTIAL

    # the walls run here too, inside the file's budget and memory limit (the parent judges
    # the reply again, on text the caps have bounded)
    judged = walled(reader.read(raw))
    if isinstance(judged, str):
        raise Unreadable(CREDENTIAL, "credential-like text")
    return judged.to_json()


def answer(header: dict, raw: bytes) -> dict:
    from arr.readers.view import EXTRACT_MEMORY, UNREADABLE, Unreadable

    try:
        return {"view": read_view(header, raw)}
    except Unreadable as exc:
        return {"reason": exc.reason, "detail": exc.detail}
    except MemoryError:
        return {"reason": EXTRACT_MEMORY, "detail": "over the reading memory limit"}
    except RecursionError:
        return {"reason": UNREADABLE, "detail": "nested too deeply"}
    except Exception as exc:  # whatever a malformed file raises inside a parser or binding
        return {"reason": UNREADABLE, "detail": f"{type(exc).__name__}: {exc}"[:200]}


def main() -> None:
    memory_mb = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    if memory_mb > 0:
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    import pypdfium2  # noqa: F401  (loaded once, before the first file)

    while True:
        header = read_message(stdin)
        raw = read_message(stdin) if header is not None else None
        if header is None or raw is None:
            return
        reply = answer(json.loads(header), raw)
        del raw
        try:
            body = json.dumps(reply, ensure_ascii=False).encode("utf-8")
        except MemoryError:
            from arr.readers.view import EXTRACT_MEMORY

            body = json.dumps({"reason": EXTRACT_MEMORY, "detail": "the view is too large"})
            body = body.encode()
        del reply
        write_message(stdout, body)
        gc.collect()  # a 100 MB notebook's objects go before the next file comes


if __name__ == "__main__":
    main()
