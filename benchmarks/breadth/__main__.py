"""Breadth: every question set at hand, each channel alone, RRF, the default and the plain script
(``make bench-breadth``).

A default is only as good as the ground it was not fitted on. This bench asks every set of
questions we have, of different kinds, of the same systems in one process:

- the frozen sets under ``benchmarks/gold/breadth/`` (written before anything was run on them,
  by a writer who never saw ARR's code or results; their date is in the file name): questions of
  new kinds over a folder of papers (surnames, terse queries, the paper that introduced a name,
  where a paper says something, a finding in other words, a title as remembered, author and
  topic, an exact phrase) and over two source trees (identifiers, pasted error messages,
  how-to questions);
- ``papersdev``'s generated known items (title, author and year, described in other words, a
  phrase; the development set the known-item rules were written on);
- ``wsgold``'s maintainers' fix descriptions (Werkzeug, all 65; a fixed sample of Sphinx's);
- the Debian manuals (``manuals``: every PDF under ``ARR_BENCH_REAL_FOLDER``, default
  ``/usr/share/doc``, as ``make bench-papers`` copies them), a collection that is not papers,
  with its frozen page questions (``manuals-*.jsonl``).

The papers folder holds a manuscript beside the PDFs (its ``.bib`` cites a third of them:
:mod:`benchmarks.breadth.folders`), the ground where a bibliography's entries crowded papers out.

Systems: the plain script (bm25s over ``pdftotext`` pages for papers; over whole files for
trees), ARR's channels alone, ``fusion=rrf``, the default, the default without post-fusion steps
(``ordering=none``), and any configuration named by ``ARR_BENCH_BREADTH_EXTRA`` (``label:ov1
ov2;label2:...``). Scored per kind: R@1 / R@10 of the right file, and of the right page (papers)
or line range (trees) where the gold names one. Beside each system's R@1 on all a set's
questions: the paired randomisation p-value against the default (10,000 sign flips), so a
difference the set cannot tell from noise says so.

Run: ``python -m benchmarks.breadth [papers|notebooks|manuals|werkzeug|sphinx ...]``. Indexes
are built once under ``outputs/bench/breadth`` (the papers folder's vector index takes minutes,
the manuals' about half an hour).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from arr.compose.library import PROJECT_ROOT
from arr.eval.stats import randomization_test
from benchmarks.common.core import bench_out

GOLD = PROJECT_ROOT / "benchmarks" / "gold" / "breadth"
DATA = PROJECT_ROOT.parent / "shared" / "data"
# the smoke test's tiny sets: papers with their records, trees with their gold
PAPERS = Path(os.environ.get("ARR_BENCH_IDENTITY") or DATA / "papersdev")
WSGOLD = Path(os.environ.get("ARR_WSGOLD") or DATA / "wsgold")
# notebooks nobody here wrote: statsmodels' 76 example notebooks and xarray's 9, from their
# source distributions on PyPI (docs/benchmarks.md says how to fetch them), under one folder
_NOTEBOOKS = os.environ.get("ARR_BENCH_NOTEBOOKS")
NOTEBOOKS = Path(_NOTEBOOKS) if _NOTEBOOKS else None
FIX_SAMPLE = 200  # of a set's fix descriptions (Sphinx has 1,126): a fixed sample, for time
KNOWN_SAMPLE = 200  # of papersdev's ~730 generated known items: a fixed sample, for time
SEED = 5

# (file, unit): a page number for a PDF page, a line for a tree's item, None for neither.
Found = tuple[str, int | None, int | None]
Search = Callable[[str], list[Found]]


@dataclass
class Case:
    kind: str
    query: str
    path: str  # as the folder names it
    pages: tuple[int, ...] = ()
    lines: tuple[int, ...] = ()
    cells: tuple[int, ...] = ()


def rounds(name: str) -> list[str]:
    """The frozen sets of one kind, oldest first: ``pages-2026-12-07``, ``pages-2026-12-07b``
    (each round is asked on its own: a later round is held out from what the earlier shaped)."""
    return sorted(p.stem for p in GOLD.glob(f"{name}-*.jsonl"))


def frozen(name: str, prefix: str = "") -> list[Case]:
    """A frozen question set: ``name`` a file's stem (``pages-2026-12-07b``), or a kind
    (``pages``: its first round), paths given the folder's ``prefix``."""
    stems = [name] if (GOLD / f"{name}.jsonl").is_file() else rounds(name)[:1]
    if not stems:
        return []
    cases = []
    for line in (GOLD / f"{stems[0]}.jsonl").read_text("utf-8").splitlines():
        row = json.loads(line)
        path = row["gold_path"]
        if "tree" in row:  # a code question names its tree and a path under that tree
            path = f"{row['tree']}/{path}"
        cases.append(
            Case(
                kind=row["kind"],
                query=row["query"],
                path=prefix + path,
                pages=tuple(row.get("gold_pages") or ()),
                lines=tuple(row.get("gold_lines") or ()),
                cells=tuple(row.get("gold_cells") or ()),
            )
        )
    return cases


def known_items(folder: Path) -> list[Case]:
    """papersdev's generated known-item questions (benchmarks.papers.known_items)."""
    from benchmarks.common.baselines import pdftotext_pages
    from benchmarks.papers.known_items import questions

    source = PAPERS
    gold = [json.loads(row) for row in (source / "gold.jsonl").read_text("utf-8").splitlines()]
    texts = {row["path"]: pdftotext_pages(source / row["path"]) for row in gold}
    cases = questions(folder, gold, texts)
    cases = random.Random(SEED).sample(cases, min(KNOWN_SAMPLE, len(cases)))
    return [
        Case(
            kind=f"dev:{c['kind']}",
            query=c["query"],
            path="papers/" + c["pdf"],
            pages=(c["page"],) if c["page"] else (),
        )
        for c in cases
    ]


def maintainers(name: str) -> list[Case]:
    """wsgold's fix descriptions: any file the fix touched is right."""
    rows = [json.loads(r) for r in (WSGOLD / name / "gold.jsonl").read_text().splitlines()]
    if len(rows) > FIX_SAMPLE:
        rows = random.Random(SEED).sample(rows, FIX_SAMPLE)
    return [
        Case(kind="dev:fix", query=r["query"], path="|".join(f"{name}/{p}" for p in r["relevant"]))
        for r in rows
    ]


def arr_system(folder: Path, overrides: list[str], refused: Counter[str] | None = None) -> Search:
    """ARR's 10 best places as (path relative to the scope's one root, as the gold names it;
    page or cell; first line); ``refused`` counts its answers' rejection and degradation codes."""
    from benchmarks.common.baselines import arr_places

    places = arr_places(folder, overrides, refused)
    return lambda query: [
        (w.path or "", w.page if w.page is not None else w.cell, w.start_line)
        for w in places(query)
    ]


def plain_pages(folder: Path) -> Search:
    """The 20-line script: bm25s over ``pdftotext`` pages of the folder's PDFs."""
    from benchmarks.common.baselines import bm25s_over, pdftotext_pages

    tree = folder / "tree"
    ids, corpus = [], []
    for pdf in sorted(tree.rglob("*.pdf")):
        for number, text in enumerate(pdftotext_pages(pdf), 1):
            ids.append((pdf.relative_to(tree).as_posix(), number))
            corpus.append(text)
    search = bm25s_over(ids, corpus)
    return lambda query: [(path, page, None) for path, page in search(query)]


def plain_cells(folder: Path) -> Search:
    """The same script over notebooks: bm25s over each cell's source as nbformat reads it."""
    import nbformat

    from benchmarks.common.baselines import bm25s_over

    tree = folder / "tree"
    ids, corpus = [], []
    for path in sorted(tree.rglob("*.ipynb")):
        try:
            cells = nbformat.read(str(path), as_version=4).cells
        except Exception:  # not a notebook nbformat reads: the script skips it too
            continue
        for index, cell in enumerate(cells):
            ids.append((path.relative_to(tree).as_posix(), index))
            corpus.append(str(cell.source))
    search = bm25s_over(ids, corpus)
    return lambda query: [(path, cell, None) for path, cell in search(query)]


def plain_files(folder: Path) -> Search:
    """The same script over a tree's text files, whole."""
    from benchmarks.common.baselines import bm25s_over

    tree = folder / "tree"
    ids, corpus = [], []
    for path in sorted(p for p in tree.rglob("*") if p.is_file()):
        try:
            text = path.read_text("utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        ids.append((path.relative_to(tree).as_posix(), 0))
        corpus.append(text)
    search = bm25s_over(ids, corpus)
    return lambda query: [(path, None, None) for path, _ in search(query)]


def judged(case: Case, found: list[Found]) -> tuple[int, int, int | None, int | None]:
    """R@1 and R@10 of the file; of the unit (page, cell, or a line inside the item's range)
    where the gold names one, else None."""
    right = set(case.path.split("|"))
    files = [path for path, _, _ in found]
    at1, at10 = int(files[:1] != [] and files[0] in right), int(bool(right & set(files)))
    if case.pages or case.cells:
        gold = case.pages or case.cells
        units = [path in right and unit in gold for path, unit, _ in found]
    elif case.lines:
        # an item holds the line when it starts at most 40 lines before it (one chunk)
        units = [
            path in right and line is not None and any(0 <= g - line < 40 for g in case.lines)
            for path, _, line in found
        ]
    else:
        return at1, at10, None, None
    return at1, at10, int(units[:1] == [True]), int(any(units))


def systems(folder: Path, plain: Search) -> list[tuple[str, Search, Counter[str]]]:
    """(label, search, the codes of the rejections and degradations its answers carry)."""
    configured = [
        ("ARR default", []),
        ("ARR fusion=rrf", ["fusion=rrf"]),
        ("ARR ordering=none", ["ordering=none"]),
        ("ARR bm25 alone", ["tools=[bm25]"]),
        ("ARR vector alone", ["tools=[vector]"]),
        ("ARR grep alone", ["tools=[grep]"]),
    ]
    only = os.environ.get("ARR_BENCH_BREADTH_ONLY")  # "rrf,bm25 alone": these, the default
    if only:
        wanted = {"ARR default"} | {f"ARR {name.strip()}" for name in only.split(",")}
        configured = [c for c in configured if c[0] in wanted]
    for spec in filter(None, os.environ.get("ARR_BENCH_BREADTH_EXTRA", "").split(";")):
        label, _, overrides = spec.partition(":")
        configured.append((f"ARR {label}", overrides.split()))
    chosen: list[tuple[str, Search, Counter[str]]] = [("plain script (bm25s)", plain, Counter())]
    for label, overrides in configured:
        refused: Counter[str] = Counter()
        chosen.append((label, arr_system(folder, overrides, refused), refused))
    return chosen


def run_set(title: str, folder: Path, cases: Sequence[Case], plain: Search) -> None:
    kinds = sorted({c.kind for c in cases})
    print(f"\n## {title}: {len(cases)} questions ({', '.join(kinds)})", flush=True)
    per_system: dict[str, list[tuple[int, int, int | None, int | None]]] = {}
    for label, search, refused in systems(folder, plain):
        started = time.perf_counter()
        per_system[label] = [judged(c, search(c.query)) for c in cases]
        spent = time.perf_counter() - started
        print(f"   ({label}: {spent:.0f} s)", file=sys.stderr, flush=True)
        if refused:  # said beside the table: a channel that refused its index scored nothing
            codes = ", ".join(f"{code} x{n}" for code, n in sorted(refused.items()))
            print(f"   note: {label}: answers with {codes}", flush=True)
    header = f"| system | {' | '.join(f'{k} ({sum(c.kind == k for c in cases)})' for k in kinds)}"
    print(header + " | all: file R@1 / R@10 | p (R@1 vs default) | unit R@1 / R@10 |")
    print("|---" * (len(kinds) + 4) + "|")
    default = [r[0] for r in per_system["ARR default"]]
    for label, rows in per_system.items():
        cells = []
        for kind in kinds:
            got = [r for r, c in zip(rows, cases, strict=True) if c.kind == kind]
            cells.append(f"{_mean(g[0] for g in got):.2f} / {_mean(g[1] for g in got):.2f}")
        r1 = [r[0] for r in rows]
        p = randomization_test(r1, default) if label != "ARR default" else float("nan")
        units = [r for r in rows if r[2] is not None]
        unit = (
            f"{_mean(u[2] for u in units):.2f} / {_mean(u[3] for u in units):.2f} (n={len(units)})"
            if units
            else ""
        )
        all_ = f"{_mean(r1):.3f} / {_mean(r[1] for r in rows):.3f}"
        print(f"| {label} | {' | '.join(cells)} | {all_} | {p:.3f} | {unit} |", flush=True)


def _mean(values: object) -> float:
    got = list(values)  # type: ignore[call-overload]
    return sum(got) / len(got) if got else float("nan")


def main(names: Sequence[str]) -> int:
    from benchmarks.breadth.folders import papers_folder, tree_folder
    from benchmarks.common.workspace import bench_index, paper_workspace

    out = bench_out() / "breadth"
    trees = sorted(p.name for p in WSGOLD.glob("*") if (p / "gold.jsonl").is_file())
    for name in names or ("papers", "notebooks", "manuals", *trees):
        if name == "papers":
            if shutil.which("pdftotext") is None or not (PAPERS / "gold.jsonl").is_file():
                print(f"breadth: no gold.jsonl under {PAPERS} or no pdftotext; papers not measured")
                continue
            folder = papers_folder(out, PAPERS)
            bench_index(folder, fresh=False)
            plain = plain_pages(folder)
            held = present(folder, frozen("papers", "papers/"))
            if held:
                run_set("papers, frozen questions", folder, held, plain)
            for stem in rounds("pages"):
                if pages := present(folder, frozen(stem, "papers/")):
                    title = f"papers, frozen part-of-a-paper questions ({stem})"
                    run_set(title, folder, pages, plain)
            known = known_items(folder)
            run_set("papers, papersdev known items (development)", folder, known, plain)
        elif name == "notebooks":
            if NOTEBOOKS is None or not NOTEBOOKS.is_dir():
                print("breadth: ARR_BENCH_NOTEBOOKS names no folder; notebooks not measured")
                continue
            folder = out / "notebooks"
            paper_workspace(folder, NOTEBOOKS, "notebooks")
            bench_index(folder, fresh=False)
            cells = plain_cells(folder)  # one bm25s index of the cells for every round
            for stem in rounds("notebooks"):
                if cases := present(folder, frozen(stem, "notebooks/")):
                    run_set(f"notebooks, frozen questions ({stem})", folder, cases, cells)
        elif name == "manuals":
            manuals(out / "manuals")
        elif (WSGOLD / name / "gold.jsonl").is_file():
            folder = tree_folder(out, name, WSGOLD / name / "tree")
            bench_index(folder, fresh=False)
            plain = plain_files(folder)
            cases = [c for c in frozen("code") if c.path.startswith(f"{name}/")]
            if held := present(folder, cases):
                run_set(f"{name}, frozen questions", folder, held, plain)
            run_set(f"{name}, maintainers' fix descriptions (development)", folder,
                    maintainers(name), plain)  # fmt: skip
        else:
            print(f"breadth: no {name} set under {WSGOLD}; not measured")
    return 0


def manuals(folder: Path) -> None:
    """The frozen page questions over the Debian manuals: PDFs that are not papers (no byline,
    a package's name for a title, hundreds of pages of reference)."""
    from benchmarks.common.workspace import bench_index, paper_workspace
    from benchmarks.papers.real_folder import copy_folder, real_base

    base = real_base()
    if shutil.which("pdftotext") is None or len(list(islice(base.rglob("*.pdf"), 20))) < 20:
        print(f"breadth: fewer than 20 PDFs under {base} or no pdftotext; manuals not measured")
        return
    copy_folder(base, folder / "src")  # flat names, as the gold names them
    paper_workspace(folder, folder / "src", "docs")
    bench_index(folder, fresh=False)
    plain = plain_pages(folder)
    for stem in rounds("manuals"):
        if cases := present(folder, frozen(stem, "docs/")):
            run_set(f"Debian manuals, frozen page questions ({stem})", folder, cases, plain)


def present(folder: Path, cases: list[Case]) -> list[Case]:
    """The questions whose answer is in this folder (all of them on the real data; none on
    the smoke test's tiny sets)."""
    tree = folder / "tree"
    return [c for c in cases if any((tree / p).is_file() for p in c.path.split("|"))]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
