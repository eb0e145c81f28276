"""The PDF extraction worker: a child process that turns PDF bytes into page text.

PDFium is native code: a decompression bomb, a 5,000-page scan or a malformed file can take
minutes or gigabytes, and nothing inside one process can stop a native call. So extraction
runs here, in a child with a memory limit (``RLIMIT_AS``), and the parent
(:class:`arr.readers.pdf.PdfReader`) waits at most the per-file time budget, then kills it and
starts another for the next file. One worker serves many files (PDFium loads once).

Protocol on stdin/stdout, each message an 8-byte big-endian length and a body: the request is
a JSON header (``max_pages``, ``budget_s``) then the PDF's bytes; the reply is JSON
(``{"title", "pages", "headings"}`` or ``{"reason", "detail"}``).
"""

from __future__ import annotations

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


def answer(header: dict, raw: bytes) -> dict:
    from arr.readers.pdf_text import extract
    from arr.readers.view import EXTRACT_MEMORY, UNREADABLE, Unreadable

    try:
        title, pages, headings = extract(raw, int(header["max_pages"]), float(header["budget_s"]))
    except Unreadable as exc:
        return {"reason": exc.reason, "detail": exc.detail}
    except MemoryError:
        return {"reason": EXTRACT_MEMORY, "detail": "over the extraction memory limit"}
    except Exception as exc:  # whatever a malformed file raises inside the binding
        return {"reason": UNREADABLE, "detail": f"{type(exc).__name__}: {exc}"[:200]}
    return {"title": title, "pages": pages, "headings": headings}


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
        if raw is None:
            return
        reply = answer(json.loads(header), raw)
        write_message(stdout, json.dumps(reply, ensure_ascii=False).encode("utf-8"))


if __name__ == "__main__":
    main()
