"""A workspace over a copy of a folder of papers, and one timed ``arr index`` of it."""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path


def paper_workspace(folder: Path, source: Path, name: str) -> None:
    """A workspace at ``folder`` with one scope (``papers``, root ``tree``) over a copy of
    ``source`` at ``tree/<name>``: paths as the gold names them (``volumes/vol021.pdf``)."""
    tree = folder / "tree" / name
    if not tree.is_dir():
        shutil.copytree(source, tree)
    else:  # the source grew since (a package installed more PDFs): the new files join the copy
        for path in source.rglob("*"):
            target = tree / path.relative_to(source)
            if path.is_file() and not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target)
    if not (folder / ".arr" / "workspace.yaml").is_file():
        arr = [sys.executable, "-m", "arr.cli"]
        for command in (["init"], ["scope", "add", "papers", "tree"]):
            subprocess.run([*arr, *command], cwd=folder, check=True, capture_output=True)


def bench_index(folder: Path, fresh: bool) -> None:
    if fresh and (folder / ".arr" / "index").exists():
        shutil.rmtree(folder / ".arr" / "index")
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "arr.cli", "index"],
        cwd=folder,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"},
    )
    assert process.stdout is not None
    lexical = None
    for raw in process.stdout:
        line = raw.decode("utf-8", "replace")
        if lexical is None and "lexical channels ready" in line:
            lexical = time.perf_counter() - started
        if re.search(r"^\s+(bm25|grep|vector)\s", line):
            print("   " + line.rstrip())
    process.wait()
    total = time.perf_counter() - started
    # the largest process of the run so far (arr index; the PDF worker is a process of its own)
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(
        f"   arr index: lexical ready {lexical or float('nan'):.1f} s (goal <= 20), complete "
        f"{total:.1f} s (goal <= 180), peak RSS {peak_mb:.0f} MB (goal <= 600), "
        f"exit {process.returncode}"
    )
