"""Typesets the planned papers with pdflatex into ``outputs/bench/templates/`` once: a folder
that holds a ``gold.jsonl`` for the same seed and plan is used as it is. A class TeX Live does
not have here, or a file that fails to compile, is recorded (``failures.json``) and left out."""

from __future__ import annotations

import calendar
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from benchmarks.papers.templates import front_a, front_b
from benchmarks.papers.templates.paper import Paper, plan

# template -> (the class or package file TeX Live must hold, the front page's writer)
CLASSES: dict[str, tuple[str, Callable[[Paper], str]]] = {
    "ieeetran": ("IEEEtran.cls", front_a.ieeetran),
    "acmart": ("acmart.cls", front_a.acmart),
    "elsarticle": ("elsarticle.cls", front_a.elsarticle),
    "revtex": ("revtex4-2.cls", front_a.revtex),
    "aastex": ("aastex631.cls", front_a.aastex),
    "mnras": ("mnras.cls", front_b.mnras),
    "jmlr": ("jmlr.cls", front_b.jmlr),
    "llncs": ("llncs.cls", front_b.llncs),
    "amsart": ("amsart.cls", front_b.amsart),
    "authblk": ("authblk.sty", front_b.authblk),
}
PER_CLASS = 10
SEED = 61
PLAN_VERSION = 4  # bump when a writer changes, so a cached folder is made again
COMPILE_TIMEOUT_S = 120


def missing_tools() -> str | None:
    """Why the set cannot be made here, or None."""
    if shutil.which("pdflatex") is None or shutil.which("kpsewhich") is None:
        return "pdflatex not on PATH (apt-get install texlive-latex-base texlive-publishers ...)"
    return None


def has_class(file: str) -> bool:
    found = subprocess.run(["kpsewhich", file], capture_output=True, text=True, timeout=30)
    return bool(found.stdout.strip())


def compile_pdf(source: str, created: int) -> tuple[bytes | None, str]:
    """The PDF pdflatex makes of ``source`` (twice where it asks: labels), or None and the
    log's last lines."""
    epoch = calendar.timegm((created, 6, 15, 12, 0, 0, 0, 0, 0))
    env = {**os.environ, "SOURCE_DATE_EPOCH": str(epoch)}
    with tempfile.TemporaryDirectory() as work:
        (Path(work) / "paper.tex").write_text(source, "utf-8")
        command = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"]
        for _ in range(2):
            try:
                done = subprocess.run(
                    command, cwd=work, env=env, capture_output=True, timeout=COMPILE_TIMEOUT_S
                )
            except subprocess.TimeoutExpired:
                return None, "timed out"
            if done.returncode != 0:
                tail = done.stdout.decode("utf-8", "replace").splitlines()[-8:]
                return None, " | ".join(tail)
        pdf = Path(work) / "paper.pdf"
        return (pdf.read_bytes() if pdf.is_file() else None), ""


def stamp(per_class: int, seed: int) -> dict:
    return {"seed": seed, "per_class": per_class, "version": PLAN_VERSION}


def build(folder: Path, per_class: int = PER_CLASS, seed: int = SEED) -> dict:
    """Makes the set under ``folder`` unless it is there already; returns its stamp with the
    failures (``{template: reason}``)."""
    stamp_file = folder / "stamp.json"
    wanted = stamp(per_class, seed)
    if (folder / "gold.jsonl").is_file() and stamp_file.is_file():
        made = json.loads(stamp_file.read_text("utf-8"))
        if {k: made.get(k) for k in wanted} == wanted:
            return made
    folder.mkdir(parents=True, exist_ok=True)
    rows, failures = [], {}
    for template, (file, write) in CLASSES.items():
        if not has_class(file):
            failures[template] = f"{file} not installed"
            continue
        for number in range(1, per_class + 1):
            paper = plan(template, number, seed)
            source = write(paper)
            pdf, log = compile_pdf(source, paper.created)
            (folder / template).mkdir(exist_ok=True)
            (folder / template / f"p{number:02d}.tex").write_text(source, "utf-8")
            if pdf is None:
                failures[f"{template}/p{number:02d}"] = log[-400:]
                continue
            (folder / f"{paper.key}.pdf").write_bytes(pdf)
            rows.append(paper.gold())
    (folder / "gold.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    made = {**wanted, "papers": len(rows), "failures": failures}
    stamp_file.write_text(json.dumps(made, indent=1), "utf-8")
    return made
