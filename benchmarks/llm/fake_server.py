"""A scripted OpenAI-compatible HTTPS server on localhost, for tests and scenario replays.

It serves ``POST /v1/chat/completions`` over TLS with a certificate from a throwaway CA
(``trustme``); clients trust it through ``ca_bundle`` (the CA file it writes). Each request
takes the next scripted reply (the last one repeats) and is recorded (path, headers, body), so
tests can assert what was sent and to whom. Replies can be a completion, any status/body/type,
a delay, a byte-by-byte drip or a redirect. It listens on loopback only and stops on close.
"""

from __future__ import annotations

import json
import ssl
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    drip_s: float = 0.0  # seconds between single bytes of the body


def completion(content: str) -> Reply:
    """A well-formed chat completion whose message is ``content``."""
    body = {
        "id": "fake",
        "object": "chat.completion",
        "model": "fake",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }
        ],
    }
    return Reply(body=json.dumps(body).encode())


class FakeLLMServer:
    def __init__(self) -> None:
        import trustme

        self.replies: list[Reply] = [completion("{}")]
        self.requests: list[dict[str, Any]] = []
        self._ca = trustme.CA()
        self._dir = tempfile.TemporaryDirectory(prefix="arr-fake-llm-")
        self.ca_path = str(Path(self._dir.name) / "ca.pem")
        self._ca.cert_pem.write_to_path(self.ca_path)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self._ca.issue_cert("localhost").configure_cert(context)
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                server.requests.append(
                    {
                        "path": self.path,
                        "headers": dict(self.headers),
                        "body": json.loads(raw or b"{}"),
                    }
                )
                reply = server._next()
                time.sleep(reply.delay_s)
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(reply.body)))
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                try:
                    if reply.drip_s:
                        for byte in reply.body:
                            self.wfile.write(bytes([byte]))
                            self.wfile.flush()
                            time.sleep(reply.drip_s)
                    else:
                        self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
                    pass  # the client gave up, as it should

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._httpd.socket = context.wrap_socket(self._httpd.socket, server_side=True)
        self.port = self._httpd.server_address[1]
        self.base_url = f"https://localhost:{self.port}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    def _next(self) -> Reply:
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]

    def script(self, *replies: Reply) -> None:
        self.replies = list(replies)
        self.requests.clear()

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._dir.cleanup()

    def __enter__(self) -> FakeLLMServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
