"""The folders the breadth bench asks its questions of, built once under ``outputs/bench/breadth``.

- ``papers``: a researcher's folder of papers: the 193 PDFs of ``papersdev`` under ``papers/``,
  and beside them a manuscript (``manuscript/paper.tex``, ``manuscript/paper.bib``) whose
  bibliography cites a third of those papers (entries written from the publisher's records, as a
  reference manager exports them, no ``file`` field) and a dozen papers that are not in the
  folder. That bibliography is the ground the held-out round found ARR weak on: every cited
  paper's names and title words stand twice in the folder, once in a compact entry.
- ``werkzeug``, ``sphinx``: the two source trees of ``wsgold``, as they are.

Each is a workspace with one scope (``papers`` over ``tree``) indexed by ``arr index``.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

from benchmarks.common.workspace import paper_workspace

SEED = 7
CITED_SHARE = 3  # every third paper of the folder is cited by the manuscript
# Papers a manuscript cites that the folder does not hold (publisher-style records).
ABSENT = [
    (
        "vaswani17",
        "Attention Is All You Need",
        ["Ashish Vaswani", "Noam Shazeer", "Niki Parmar"],
        2017,
    ),
    (
        "kingma15",
        "Adam: A Method for Stochastic Optimization",
        ["Diederik P. Kingma", "Jimmy Ba"],
        2015,
    ),
    (
        "srivastava14",
        "Dropout: A Simple Way to Prevent Neural Networks from Overfitting",
        ["Nitish Srivastava", "Geoffrey Hinton", "Alex Krizhevsky"],
        2014,
    ),
    (
        "blei03",
        "Latent Dirichlet Allocation",
        ["David M. Blei", "Andrew Y. Ng", "Michael I. Jordan"],
        2003,
    ),
    (
        "bubeck12",
        "Regret Analysis of Stochastic and Nonstochastic Multi-armed Bandit Problems",
        ["S{\\'e}bastien Bubeck", "Nicol{\\`o} Cesa-Bianchi"],
        2012,
    ),
    ("shalev12", "Online Learning and Online Convex Optimization", ["Shai Shalev-Shwartz"], 2012),
    ("hazan16", "Introduction to Online Convex Optimization", ["Elad Hazan"], 2016),
    (
        "rasmussen06",
        "Gaussian Processes for Machine Learning",
        ["Carl Edward Rasmussen", "Christopher K. I. Williams"],
        2006,
    ),
    (
        "candes09",
        "Exact Matrix Completion via Convex Optimization",
        ["Emmanuel J. Cand{\\`e}s", "Benjamin Recht"],
        2009,
    ),
    (
        "tibshirani96",
        "Regression Shrinkage and Selection via the Lasso",
        ["Robert Tibshirani"],
        1996,
    ),
    (
        "hoffman13",
        "Stochastic Variational Inference",
        ["Matthew D. Hoffman", "David M. Blei", "Chong Wang", "John Paisley"],
        2013,
    ),
    (
        "auer02",
        "Finite-time Analysis of the Multiarmed Bandit Problem",
        ["Peter Auer", "Nicol{\\`o} Cesa-Bianchi", "Paul Fischer"],
        2002,
    ),
]


def papersdev_gold(source: Path) -> list[dict]:
    rows = [json.loads(line) for line in (source / "gold.jsonl").read_text("utf-8").splitlines()]
    return [row for row in rows if (source / row["path"]).is_file()]


def _entry(key: str, title: str, authors: list[str], year: int, venue: str) -> str:
    return (
        f"@inproceedings{{{key},\n  title = {{{title}}},\n  author = {{{' and '.join(authors)}}},\n"
        f"  booktitle = {{{venue}}},\n  year = {{{year}}}\n}}\n"
    )


def manuscript(gold: list[dict]) -> tuple[str, str]:
    """A manuscript's ``paper.tex`` and ``paper.bib``: every ``CITED_SHARE``-th paper of the
    folder and the absent ones, cited in a related-work paragraph."""
    cited = sorted(gold, key=lambda r: r["path"])[::CITED_SHARE]
    entries, keys = [], []
    for row in cited:
        key = Path(row["path"]).stem  # acharya15, as a reference manager keys it
        names = [f"{a['given']} {a['family']}".strip() for a in row["authors"]]
        entries.append(_entry(key, row["title"], names, row["year"], row.get("venue", "")))
        keys.append(key)
    for key, title, names, year in ABSENT:
        entries.append(_entry(key, title, names, year, "Journal"))
        keys.append(key)
    random.Random(SEED).shuffle(keys)
    body = "\n".join(
        f"Prior work~\\cite{{{', '.join(keys[i : i + 4])}}} studies related settings."
        for i in range(0, len(keys), 4)
    )
    tex = (
        "\\documentclass{article}\n\\title{Learning from Few Labels: a Survey}\n"
        "\\begin{document}\n\\maketitle\n\\section{Related work}\n"
        f"{body}\n\\bibliographystyle{{plain}}\n\\bibliography{{paper}}\n\\end{{document}}\n"
    )
    return tex, "".join(entries)


def papers_folder(out: Path, source: Path) -> Path:
    """The ``papers`` workspace (built once)."""
    folder = out / "papers"
    tree = folder / "tree"
    if not (tree / "papers").is_dir():
        (tree / "papers").mkdir(parents=True)
        for volume in sorted(p for p in source.iterdir() if p.is_dir()):
            shutil.copytree(volume, tree / "papers" / volume.name)
        tex, bib = manuscript(papersdev_gold(source))
        (tree / "manuscript").mkdir()
        (tree / "manuscript" / "paper.tex").write_text(tex, "utf-8")
        (tree / "manuscript" / "paper.bib").write_text(bib, "utf-8")
    if not (folder / ".arr" / "workspace.yaml").is_file():
        arr = [sys.executable, "-m", "arr.cli"]
        for command in (["init"], ["scope", "add", "papers", "tree"]):
            subprocess.run([*arr, *command], cwd=folder, check=True, capture_output=True)
    return folder


def tree_folder(out: Path, name: str, source: Path) -> Path:
    """A workspace over a copy of a wsgold tree (``tree/``)."""
    folder = out / name
    paper_workspace(folder, source, name)
    return folder
