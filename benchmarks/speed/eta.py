"""bench-eta: how true ``arr index``'s whole-run time left is, read off the bar as a user sees it.

Each case is a new workspace over real folders: ``arr init``, ``arr scope add`` per folder,
then ``arr index`` run in a pseudo-terminal (the bar is drawn only on a terminal); every frame
is read with the time it came. After the run, each frame's "about X left" is set against the
time the run really had left. Reported per case, over the frames after the first quarter of
the run (the goal: within 50%):

- ``worst remaining``: the largest |said - real| / real time left, over frames where at least
  10% of the run was left (nearer the end a 1 s rounding is already 50%);
- ``worst finish``: the largest |said finish - real finish| / real run time;
- ``first said``: when the first estimate came, as a share of the run.

Cases: a first run (no rates learnt on this machine: the case's own cache folder, holding only
the model cache), then the same workspace with ``rebuild=true`` (the first run's rates
remembered), then a new workspace over the same folders whose ``arr index`` is interrupted
(SIGINT) once half its passages are embedded, and the run that resumes it, judged on its own.
Folders: ``../shared/data/papersdev`` (PDFs, 30 or all) beside the Werkzeug tree, the Sphinx
tree (``../shared/data/wsgold``), and ``mixed``: one scope per kind of item, embedded at its
own rate - 8 papersdev PDFs (pages), the notebooks of ``$ARR_BENCH_ETA_NOTEBOOKS`` (default
``../nbsrc/notebooks``: 85 published xarray and statsmodels notebooks; cells), the Werkzeug
source (code) and 80 of git's release notes from ``/usr/share/doc/git/RelNotes`` (prose).
``ARR_BENCH_ETA_CASES`` picks (``mixed,small,sphinx,papers``; default ``mixed,small``);
``ARR_BENCH_ETA_TREE`` names one folder instead. Each run's wall time is printed to stderr as
it ends.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

from benchmarks.common.core import bench_out

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
ARR = Path(sys.executable).with_name("arr")
LEFT = re.compile(r"about (?:(\d+) min (\d+) s|(\d+) min|(\d+) s) left")
PASSAGES = re.compile(r"([\d,]+) of ([\d,]+) passages")


def seconds_said(frame: str) -> float | None:
    found = LEFT.findall(frame)
    if not found:
        return None
    minutes_seconds = found[-1]
    if minutes_seconds[0]:
        return int(minutes_seconds[0]) * 60 + int(minutes_seconds[1])
    if minutes_seconds[2]:
        return int(minutes_seconds[2]) * 60
    return float(minutes_seconds[3])


def watched_index(
    workspace: Path, *args: str, env: dict[str, str] | None = None, stop_at: float | None = None
) -> tuple[float, list[tuple[float, str]], int]:
    """``arr index`` in a pseudo-terminal: (its wall time, every frame with its time, its exit
    status). ``stop_at``: a share of the run's passages at which it is interrupted (SIGINT)."""
    controller, follower = pty.openpty()
    # a terminal of a real size: 40 rows, 200 columns (a new pseudo-terminal reports none)
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 200, 0, 0))
    began = time.monotonic()
    process = subprocess.Popen(
        [str(ARR), "index", *args],
        cwd=workspace,
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
        env=env,
        # Ctrl-C's default: a bench started in the background (``make bench-eta &``, nohup)
        # hands its children SIGINT ignored, and the run asked to stop at half ran whole
        preexec_fn=_default_sigint,
    )
    os.close(follower)
    frames: list[tuple[float, str]] = []
    pending = b""
    stopped = False
    while True:
        ready, _, _ = select.select([controller], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(controller, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                break
            pending += chunk
            *whole, pending = re.split(rb"[\r\n]", pending)
            now = time.monotonic() - began
            frames += [(now, part.decode("utf-8", "replace")) for part in whole if part.strip()]
            if stop_at is not None and not stopped and frames and _share(frames[-1][1]) >= stop_at:
                process.send_signal(signal.SIGINT)
                stopped = True
        elif process.poll() is not None:
            break
    process.wait()
    os.close(controller)
    if process.returncode not in ((0, 130) if stopped else (0,)):  # it may end first
        raise SystemExit(f"arr index failed ({process.returncode}): {frames[-5:]}")
    return time.monotonic() - began, frames, process.returncode


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _share(frame: str) -> float:
    """The share of the run's passages embedded that a frame shows (0 when it shows none)."""
    found = PASSAGES.findall(frame)
    if not found:
        return 0.0
    done, total = (int(n.replace(",", "")) for n in found[-1])
    return done / total if total else 0.0


def judged(total: float, frames: list[tuple[float, str]]) -> dict[str, float]:
    said = [(t, s) for t, frame in frames if (s := seconds_said(frame)) is not None]
    late = [(t, s) for t, s in said if t >= total / 4]
    remaining = [abs(s - (total - t)) / (total - t) for t, s in late if total - t >= total / 10]
    finish = [abs(t + s - total) / total for t, s in late]
    return {
        "run_s": total,
        "first_said": said[0][0] / total if said else float("nan"),
        "frames": len(late),
        "worst_remaining": max(remaining, default=float("nan")),
        "median_remaining": sorted(remaining)[len(remaining) // 2] if remaining else float("nan"),
        "worst_finish": max(finish, default=float("nan")),
    }


def kept_frames(label: str, total: float, frames: list[tuple[float, str]]) -> None:
    """Each frame's time, what it said and the time really left, as JSON lines under
    ``$ARR_BENCH_ETA_FRAMES`` (a folder; unset: nothing kept), to read a run's errors by."""
    folder = os.environ.get("ARR_BENCH_ETA_FRAMES")
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    rows = [
        {"t": round(t, 2), "said": seconds_said(f), "left": round(total - t, 2), "frame": f[-160:]}
        for t, f in frames
    ]
    name = re.sub(r"\W+", "_", label).strip("_") + ".jsonl"
    (Path(folder) / name).write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")


def copied(home: Path, folders: dict[str, list[Path]]) -> None:
    subprocess.run([str(ARR), "init"], cwd=home, check=True, capture_output=True)
    for scope, paths in folders.items():
        tree = home / scope
        tree.mkdir()
        for path in paths:
            target = tree / path.name
            if path.is_dir():
                shutil.copytree(path, target)
            else:
                shutil.copy2(path, target)
        subprocess.run(
            [str(ARR), "scope", "add", scope, scope], cwd=home, check=True, capture_output=True
        )


def fresh_cache(base: Path) -> dict[str, str]:
    """An environment whose cache folder holds the user's model caches and nothing learnt:
    a first run knows no rate of this machine."""
    real = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "arr"
    cache = base / "cache"
    (cache / "arr").mkdir(parents=True)
    for name in ("onnx", "kingfisher"):
        if (real / name).is_dir():
            (cache / "arr" / name).symlink_to(real / name)
    return {**os.environ, "XDG_CACHE_HOME": str(cache)}


def case(name: str, folders: dict[str, list[Path]]) -> list[tuple[str, dict[str, float]]]:
    base = Path(tempfile.mkdtemp(prefix=f"arr-eta-{name}-"))
    try:
        env = fresh_cache(base)
        home = base / "first"
        home.mkdir()
        copied(home, folders)
        rows = []
        for label, args in (("first run", ()), ("rebuild, rate remembered", ("rebuild=true",))):
            total, frames, _ = watched_index(home, *args, env=env)
            rows.append((f"{name}: {label}", judged(total, frames)))
            kept_frames(f"{name}: {label}", total, frames)
            print(f"  {name}: {label}: {total:.1f} s", file=sys.stderr, flush=True)
        resumed = base / "resumed"
        resumed.mkdir()
        copied(resumed, folders)
        cut, shown, status = watched_index(resumed, env=env, stop_at=0.5)
        # the frame the stop was sent on: a stop the run did not obey (exit 0, the run whole)
        # is said, not a resumed run of nothing
        at, share = next(((t, _share(f)) for t, f in shown if _share(f) >= 0.5), (cut, 0.0))
        kept_frames(f"{name}: stopped at half", cut, shown)
        total, frames, _ = watched_index(resumed, env=env)
        rows.append((f"{name}: resumed after a stop at half", judged(total, frames)))
        kept_frames(f"{name}: resumed", total, frames)
        print(
            f"  {name}: SIGINT at {at:.1f} s ({share:.0%} of the passages shown), exit "
            f"{status} after {cut:.1f} s; resumed {total:.1f} s",
            file=sys.stderr,
            flush=True,
        )
        if status == 0:
            print(f"  {name}: the stopped run did not stop (exit 0): its resumed run had "
                  "nothing left", file=sys.stderr, flush=True)  # fmt: skip
        return rows
    finally:
        shutil.rmtree(base, ignore_errors=True)


def mixed_folders(papers: list[Path]) -> dict[str, list[Path]] | None:
    """One scope per kind of item (pages, cells, code, prose); None when a part is missing."""
    notebooks = Path(
        os.environ.get("ARR_BENCH_ETA_NOTEBOOKS") or SHARED.parent.parent / "nbsrc" / "notebooks"
    )
    found = sorted(notebooks.rglob("*.ipynb")) if notebooks.is_dir() else []
    notes = sorted(Path("/usr/share/doc/git/RelNotes").glob("*.txt"))[-80:]
    werkzeug = SHARED / "wsgold" / "werkzeug" / "tree" / "src"
    if not (papers and found and notes and werkzeug.is_dir()):
        return None
    return {"pages": papers[:8], "cells": found, "code": [werkzeug], "prose": notes}


def main() -> None:
    tree = os.environ.get("ARR_BENCH_ETA_TREE")  # one folder instead (the smoke test's)
    papers = sorted((SHARED / "papersdev").glob("v*/*.pdf"))
    werkzeug = SHARED / "wsgold" / "werkzeug" / "tree"
    sphinx = SHARED / "wsgold" / "sphinx" / "tree"
    if tree is None and (not papers or not werkzeug.is_dir() or not sphinx.is_dir()):
        raise SystemExit(f"bench-eta needs {SHARED}/papersdev and wsgold (or $ARR_BENCH_ETA_TREE)")
    mixed = mixed_folders(papers)
    cases = {
        "mixed": mixed or {},
        "small": {"papers": papers[:30], "code": [werkzeug]},
        "sphinx": {"sphinx": [sphinx]},
        "papers": {"papers": papers},
        "tree": {"tree": [Path(tree or ".")]},
    }
    chosen = os.environ.get("ARR_BENCH_ETA_CASES", "mixed,small").split(",")
    chosen = ["tree"] if tree else chosen
    if "mixed" in chosen and mixed is None:
        print("bench-eta: no mixed case (needs ../nbsrc/notebooks or $ARR_BENCH_ETA_NOTEBOOKS, "
              "papersdev, wsgold and /usr/share/doc/git/RelNotes)", file=sys.stderr)  # fmt: skip
        chosen.remove("mixed")
    rows = [row for name in chosen for row in case(name, cases[name])]
    lines = [
        "case | run | first estimate at | frames after 1/4 | worst remaining | median remaining"
        " | worst finish",
        "---|---|---|---|---|---|---",
    ]
    for label, got in rows:
        lines.append(
            f"{label} | {got['run_s']:.1f} s | {got['first_said']:.0%} | {got['frames']} | "
            f"{got['worst_remaining']:.0%} | {got['median_remaining']:.0%} | "
            f"{got['worst_finish']:.0%}"
        )
    text = "\n".join(lines)
    print(text)
    out = bench_out() / "eta"
    out.mkdir(parents=True, exist_ok=True)
    (out / "eta.md").write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
