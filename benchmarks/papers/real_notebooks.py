"""Real notebooks nobody here made, asked the way a researcher asks: ARR beside the simplest
script (bm25s over each cell's source as nbformat reads it), in the same run.

The notebooks: every ``.ipynb`` under ``ARR_BENCH_REAL_NOTEBOOKS``, else those inside the
installed packages. Measured on statsmodels' published example notebooks (76, the
``examples/notebooks`` of its source distribution; fetch it from PyPI's files, e.g.
``curl -sO <statsmodels-0.14.4.tar.gz url from https://pypi.org/simple/statsmodels/>`` and
``tar xzf ... --wildcards '*.ipynb'``). Questions are made from nbformat's cells (not ARR's
reading), for a deterministic sample of notebooks:

- ``title``: the notebook's first markdown heading (``# Quantile regression``), as a
  researcher names it: the right notebook;
- ``phrase``: 8-12 consecutive words of a sentence of a markdown cell, copied: the right
  notebook, and the right cell;
- ``code``: one line of a code cell (25+ characters, not a comment or an import), pasted:
  the right notebook, and the right cell.

Scored as R@1 and R@10 of the right notebook (and cell), ARR's default pipeline and its bm25
alone beside ``bm25s`` (PyStemmer English, English stop words) over the cells.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import site
import sys
from pathlib import Path

from benchmarks.common.baselines import arr_search, bm25s_over
from benchmarks.common.scoring import score

SAMPLE = 40
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_WORDS = re.compile(r"[A-Za-z][A-Za-z'-]*")


def found_notebooks(base: Path | None) -> list[Path]:
    roots = [base] if base is not None else [Path(p) for p in site.getsitepackages()]
    return sorted({p for root in roots if root.is_dir() for p in root.rglob("*.ipynb")})


def build_folder(sources: list[Path], tree: Path) -> dict[str, list[tuple[str, str]]]:
    """Copies of the notebooks in ``tree`` (flat names), and their cells: (type, source)."""
    import nbformat

    tree.mkdir(parents=True, exist_ok=True)
    cells: dict[str, list[tuple[str, str]]] = {}
    for source in sources:
        name = "__".join(source.parts[-3:])
        try:
            notebook = nbformat.read(str(source), as_version=4)
        except Exception:  # not a notebook nbformat reads: not asked about
            continue
        if not (tree / name).is_file():
            shutil.copyfile(source, tree / name)
        cells[name] = [(c.cell_type, str(c.source)) for c in notebook.cells]
    return cells


def _heading(cells: list[tuple[str, str]]) -> str | None:
    for kind, text in cells:
        if kind == "markdown":
            for line in text.splitlines():
                if line.startswith("#") and len(line.strip("# ").split()) >= 2:
                    return line.strip("# ").strip()
    return None


def questions(cells: dict[str, list[tuple[str, str]]], rng: random.Random) -> list[dict]:
    eligible = sorted(n for n, c in cells.items() if len(c) >= 4)
    out = []
    for name in sorted(rng.sample(eligible, min(SAMPLE, len(eligible)))):
        notebook = cells[name]
        title = _heading(notebook)
        if title:
            out.append({"kind": "title", "query": title[:120], "nb": name, "cell": None})
        prose = [
            (number, s)
            for number, (kind, text) in enumerate(notebook)
            if kind == "markdown" and number >= 1
            for s in _SENTENCE.split(" ".join(text.split()))
            if 10 <= len(_WORDS.findall(s)) <= 40 and not re.search(r"[\\{}$%_^`\[\]#*]", s)
        ]
        if prose:
            number, sentence = rng.choice(prose)
            words = sentence.split()
            start = rng.randrange(0, max(1, len(words) - 10))
            phrase = " ".join(words[start : start + rng.randrange(8, 13)])
            out.append({"kind": "phrase", "query": phrase, "nb": name, "cell": number})
        code = [
            (number, line.strip())
            for number, (kind, text) in enumerate(notebook)
            if kind == "code"
            for line in text.splitlines()
            if len(line.strip()) >= 25 and not line.lstrip().startswith(("#", "import ", "from "))
        ]
        if code:
            number, line = rng.choice(code)
            out.append({"kind": "code", "query": line, "nb": name, "cell": number})
    return out


def bm25s_cells(cells: dict[str, list[tuple[str, str]]]):  # type: ignore[no-untyped-def]
    ids = [(name, n) for name, notebook in cells.items() for n in range(len(notebook))]
    return bm25s_over(ids, [cells[name][n][1] for name, n in ids])


def bench_real_notebooks(out: Path) -> None:
    given = os.environ.get("ARR_BENCH_REAL_NOTEBOOKS")
    sources = found_notebooks(Path(given) if given else None)
    if len(sources) < 10:
        print(f"6. real notebooks: {len(sources)} found ({given or 'installed packages'}); "
              "not measured (set ARR_BENCH_REAL_NOTEBOOKS to a folder of 10+ notebooks, e.g. "
              "statsmodels' examples/notebooks from its source distribution)")  # fmt: skip
        return
    from benchmarks.common.workspace import bench_index, paper_workspace

    folder = out / "notebooks"
    cells = build_folder(sources, folder / "src")
    paper_workspace(folder, folder / "src", "nb")
    total = sum(len(c) for c in cells.values())
    print(f"6. real notebooks: {len(cells)} notebooks ({total} cells) from {given or 'packages'}")
    bench_index(folder, fresh=False)
    cases = questions(cells, random.Random(11))
    kinds = sorted({c["kind"] for c in cases})
    print(f"   {len(cases)} questions: " + ", ".join(
        f"{k} {sum(c['kind'] == k for c in cases)}" for k in kinds))  # fmt: skip
    head = f"{'nb R@1':>7} {'R@10':>6} {'cell R@1':>9} {'R@10':>6}"
    print(f"   {'system':<32} {'question':<8} {head}")
    for label, search in (
        ("bm25s over nbformat cells", bm25s_cells(cells)),
        ("ARR default", arr_search(folder, [], "cell", -1)),
        ("ARR bm25", arr_search(folder, ["tools=[bm25]"], "cell", -1)),
    ):
        for kind, (r1, r10, c1, c10) in sorted(score(cases, search, "nb", "cell").items()):
            cell = f"{c1:9.2f} {c10:6.2f}" if kind != "title" else f"{'':9} {'':6}"
            print(f"   {label:<32} {kind:<8} {r1:7.2f} {r10:6.2f} {cell}")


if __name__ == "__main__":
    from benchmarks.common.core import bench_out

    sys.exit(bench_real_notebooks(bench_out() / "papers") or 0)
