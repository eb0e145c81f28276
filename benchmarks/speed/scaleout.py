"""Scale-out benchmark (``make bench-scaleout``): vector indexing into one Chroma server by one
process vs two processes at once, each embedding its part of the tree (one scope each).

The tree: two folders of networkx's sources (``community``, ``shortest_paths``), copied into
``outputs/bench/scaleout``; one workspace with a scope per folder. A Chroma server (the
``chroma`` CLI of the installed chromadb) runs on 127.0.0.1 with a fresh data folder per
variant. Printed: wall time of ``arr index tools=[vector] scope=X`` run one after the other,
then both at once, chunks embedded, and the speed-up. Then a searching process queries both
scopes through the server (evidence per scope, degradations). The default embedder (onnx, the
packaged model) is used; ``ARR_SCALEOUT_EMBEDDER=hashing`` runs it model-free.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from benchmarks.common.core import bench_out

PARTS = {"a": "community", "b": "shortest_paths"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(data: Path) -> tuple[subprocess.Popen[bytes], int]:
    beside = Path(sys.executable).parent / "chroma"
    binary = str(beside) if beside.exists() else shutil.which("chroma")
    if binary is None:
        raise SystemExit("the chroma CLI is not installed (pip install chromadb)")
    port = free_port()
    server = subprocess.Popen(
        [binary, "run", "--host", "127.0.0.1", "--port", str(port), "--path", str(data)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return server, port
        except OSError:
            if server.poll() is not None:
                break  # it exited: no point waiting for the port
            time.sleep(0.1)
    stop(server)
    raise SystemExit("chroma server did not start")


def stop(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is not None:
        return
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(10)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def arr(project: Path, *args: str) -> subprocess.Popen[str]:
    environment = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    environment.pop("ARR_WORKSPACE", None)
    return subprocess.Popen(
        [sys.executable, "-m", "arr.cli", *args],
        cwd=project,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(child: subprocess.Popen[str]) -> str:
    out, err = child.communicate(timeout=1800)
    if child.returncode != 0:
        raise SystemExit(f"arr failed: {err[-600:]}")
    return out


def build_project(target: Path) -> None:
    if (target / ".arr" / "workspace.yaml").is_file():
        return
    source = Path(sysconfig.get_path("purelib")) / "networkx" / "algorithms"
    for name, folder in PARTS.items():
        shutil.copytree(
            source / folder, target / name, ignore=shutil.ignore_patterns("__pycache__")
        )
    finish(arr(target, "init", "team_id=bench"))
    for name in PARTS:
        finish(arr(target, "scope", "add", name, name, f"branch={name}"))


def main() -> int:
    project = bench_out() / "scaleout"
    build_project(project)
    embedder = os.environ.get("ARR_SCALEOUT_EMBEDDER", "onnx")
    walls: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="arr-scaleout-") as tmp:
        for variant in ("one process", "two processes"):
            server, port = start_server(Path(tmp) / variant.replace(" ", "-"))
            shared = [
                f"embedder={embedder}",
                "progress=false",
                "vector_store=chroma_http",
                "vector_store.host=127.0.0.1",
                f"vector_store.port={port}",
                "tools=[vector]",
            ]
            try:
                started = time.perf_counter()
                if variant == "one process":
                    for name in PARTS:
                        finish(arr(project, "index", f"scope={name}", *shared))
                else:
                    children = [arr(project, "index", f"scope={n}", *shared) for n in PARTS]
                    for child in children:
                        finish(child)
                walls[variant] = time.perf_counter() - started
                print(f"{variant:<14} index both parts: {walls[variant]:6.1f} s", flush=True)
                if variant == "two processes":
                    for name in PARTS:
                        found = json.loads(
                            finish(
                                arr(project, "search", "query=shortest path between two nodes",
                                    f"scope={name}", "--json", *shared)
                            )
                        )  # fmt: skip
                        branches = {e["scope"]["branch"] for e in found["evidence"]}
                        print(
                            f"  search scope {name}: {len(found['evidence'])} evidence, "
                            f"branches {sorted(branches)}, degradations "
                            f"{[d['code'] for d in found['degradations']]}"
                        )
            finally:
                stop(server)
    speedup = walls["one process"] / walls["two processes"]
    print(f"\nspeed-up with two indexing processes: {speedup:.2f}x (on {os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
