"""``make bench-papers``: papers as PDF against the same text as plain files, in one run.

Data: ``../shared/data/pdfgold/scifact`` (or ``$ARR_PDFGOLD``): 1,500 SciFact abstracts typeset
by pdflatex into 150 two-column PDFs (``volumes/``), the same text as plain files (``text/``),
gold at file level for the text and at page level for the PDFs (``x.pdf#page=8``).

1. Extraction: pages/s on one core of PDFium as shipped (arr.readers.pdf_text, cleaning
   included, in-process and through the worker), pypdf, pdfminer.six and poppler's
   ``pdftotext`` on the same 150 files; the shipped extractor's time over pdftotext's.
2. ``arr index`` of a workspace holding only the 150 volumes (a fresh process): seconds until
   the lexical channels are ready, until complete, and the peak RSS of the whole run.
3. Quality, side by side: nDCG@10 / R@10 / MRR@10 of the default pipeline and of bm25 alone
   on the text (file level) and on the PDFs (page level), each a workspace of its own.
4. Notebooks (every ``.ipynb`` inside the installed packages, and one written here with
   outputs, a plot and an error): vector passages of the raw JSON cut by lines (before the
   readers) against one unit per cell, with the shipped embedder's token counts, and the
   base64 bytes left in the indexed text.
5. A real folder of PDFs nobody here made (:mod:`benchmarks.papers.real_folder`), and 6. real
   notebooks (:mod:`benchmarks.papers.real_notebooks`): known-item questions, ARR beside the
   simplest script (bm25s over ``pdftotext`` pages, over nbformat cells).

Indexes live under ``outputs/bench/papers`` (rebuilt when stale, as ``arr index`` decides).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from arr.compose.library import PROJECT_ROOT
from benchmarks.common.core import bench_out
from benchmarks.common.workspace import bench_index, paper_workspace

GOAL_PAGES_PER_S = 50.0
GOAL_VS_PDFTOTEXT = 1.5


def pdfgold_dir() -> Path:
    found = os.environ.get("ARR_PDFGOLD")
    return Path(found) if found else PROJECT_ROOT.parent / "shared" / "data" / "pdfgold" / "scifact"


def _time(fn, files: list[Path]) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    pages = sum(fn(path) for path in files)
    return time.perf_counter() - started, pages


def _pdfium(path: Path) -> int:
    from arr.readers.pdf_text import extract

    return len(extract(path.read_bytes(), 10_000, 600.0)[1])


def _worker(guard):  # type: ignore[no-untyped-def]
    return lambda path: len(guard.read(".pdf", path.read_bytes()).units)


def _pypdf(path: Path) -> int:
    import pypdf

    reader = pypdf.PdfReader(str(path))
    for page in reader.pages:
        page.extract_text()
    return len(reader.pages)


def _pdfminer(path: Path) -> int:
    from pdfminer.high_level import extract_text

    return extract_text(str(path)).count("\f") or 1


def _pdftotext(path: Path) -> int:
    out = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], capture_output=True, check=True
    ).stdout
    return out.count(b"\f")


def bench_extraction(volumes: list[Path]) -> dict[str, float]:
    from arr.readers.guard import Guard

    reader = Guard()
    rows: dict[str, float] = {}
    tools = [
        ("pdfium (shipped, in-process)", _pdfium),
        ("pdfium (shipped, worker)", _worker(reader)),
    ]
    tools += [("pypdf", _pypdf), ("pdfminer.six", _pdfminer)]
    if shutil.which("pdftotext"):
        tools.append(("pdftotext (poppler)", _pdftotext))
    print(f"1. extraction, {len(volumes)} PDFs, one core")
    for name, fn in tools:
        some = volumes if name.startswith(("pdfium", "pdftotext")) else volumes[:30]
        try:
            seconds, pages = _time(fn, some)
        except Exception as exc:  # a baseline missing here: said, not fatal
            print(f"   {name:<30} failed: {exc}")
            continue
        rows[name] = pages / seconds
        print(f"   {name:<30} {pages:>5} pages  {seconds:6.2f} s  {pages / seconds:8.1f} pages/s")
    reader.close()
    shipped = rows.get("pdfium (shipped, worker)", 0.0)
    base = rows.get("pdftotext (poppler)")
    verdict = "met" if shipped >= GOAL_PAGES_PER_S else "NOT met"
    print(f"   goal >= {GOAL_PAGES_PER_S:g} pages/s: {verdict}")
    if base:
        ratio = base / shipped if shipped else float("inf")
        print(f"   shipped time / pdftotext time: {ratio:.2f}x (goal <= {GOAL_VS_PDFTOTEXT}x)")
    return rows


def evaluate(folder: Path, gold: Path, overrides: list[str]) -> dict[str, float]:
    import arr
    from arr.eval.runner import judged_places
    from benchmarks.common.core import ndcg_at_10

    router = arr.load_router(
        overrides=["planner.top_k=100", "fusion.top_k=100", *overrides], workspace=folder
    )
    ndcg = recall = mrr = 0.0
    cases = [json.loads(line) for line in gold.read_text().splitlines() if line.strip()]
    for case in cases:
        relevant = {r: 1 for r in case["relevant"]}
        result = router.search(case["query"], "papers")
        ranked = judged_places(result.evidence, relevant)[:10]
        ndcg += ndcg_at_10(ranked, relevant)
        recall += len(set(ranked) & set(relevant)) / len(relevant)
        mrr += next((1 / (i + 1) for i, r in enumerate(ranked) if r in relevant), 0.0)
    n = len(cases)
    return {"ndcg@10": ndcg / n, "recall@10": recall / n, "mrr@10": mrr / n}


def plotted_notebook(plots: int = 12, plot_bytes: int = 48_000) -> bytes:
    """A notebook as analyses leave them: markdown, code, printed metrics, plots (PNG and
    HTML outputs of ``plot_bytes`` each) and one error."""
    import base64
    import random

    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    rng = random.Random(3)
    cells = [new_markdown_cell("# Sweep of the warmup length\n\nEach run logs its loss.")]
    for n in range(plots):
        png = base64.b64encode(b"\x89PNG" + rng.randbytes(plot_bytes)).decode()
        cells.append(new_markdown_cell(f"## Run {n}: warmup {100 * n} steps"))
        cells.append(
            new_code_cell(
                f"loss = train(warmup={100 * n})\nprint(loss[-1])\nplot(loss)",
                outputs=[
                    new_output("stream", name="stdout", text=f"final loss {0.4 + n / 100:.4f}\n"),
                    new_output("display_data", data={"image/png": png, "text/plain": "<Figure>"}),
                ],
            )
        )
    cells.append(
        new_code_cell(
            "evaluate(model)",
            outputs=[new_output("error", ename="ValueError", evalue="nan in loss", traceback=[])],
        )
    )
    return nbformat.writes(new_notebook(cells=cells)).encode()


def bench_notebooks() -> None:
    import site

    from arr.readers.notebook import NotebookReader
    from arr.tools.passages import split_all
    from arr.workspace.documents import unit_documents
    from arr.workspace.sources import chunk_lines
    from benchmarks.common.core import shipped_embedder

    embedder, _ = shipped_embedder()
    count, budget = embedder.token_counts, int(embedder.max_tokens)  # type: ignore[attr-defined]
    found = sorted({p for folder in site.getsitepackages() for p in Path(folder).rglob("*.ipynb")})
    samples = [(p.name, p.read_bytes()) for p in found]
    samples.append(("written (12 plots of 48 KB)", plotted_notebook()))
    print(f"4. notebooks ({len(samples)}): vector passages, raw JSON by lines vs one per cell")
    for name, raw in samples:
        before, _ = split_all(
            list(chunk_lines(name, raw.decode("utf-8", "replace"), 40)), count, budget
        )
        view = NotebookReader().read(raw)
        after, _ = split_all(unit_documents(name, view, 40), count, budget)
        base64_left = sum("iVBORw0KGgo" in d.text for d in after)
        ratio = len(before) / max(1, len(after))
        print(
            f"   {name:<34} {len(raw) / 1024:7.0f} KB  raw {len(before):>5}  cells {len(after):>4}"
            f"  ({ratio:.1f}x fewer; goal >= 5x)  base64 in cells: {base64_left}"
        )


def main() -> int:
    from benchmarks.papers.real_notebooks import bench_real_notebooks

    data = pdfgold_dir()
    if not (data / "volumes").is_dir():
        print(f"bench-papers: {data} not found (set ARR_PDFGOLD); the typeset volumes not measured")
        bench_notebooks()
        from benchmarks.papers.real_folder import bench_real_folder

        bench_real_folder(bench_out() / "papers")  # a real folder needs no ../shared
        bench_real_notebooks(bench_out() / "papers")
        return 0
    volumes = sorted((data / "volumes").glob("*.pdf"))
    limit = int(os.environ.get("ARR_BENCH_PAPERS_LIMIT", "0"))
    bench_extraction(volumes[:limit] if limit else volumes)
    out = bench_out() / "papers"
    pdf_ws, text_ws = out / "pdf", out / "text"
    for folder, source, name in (
        (pdf_ws, data / "volumes", "volumes"),
        (text_ws, data / "text", "text"),
    ):
        folder.mkdir(parents=True, exist_ok=True)
        paper_workspace(folder, source, name)
    print("2. arr index of the 150 volumes (fresh index, own process)")
    bench_index(pdf_ws, fresh=True)
    print("   arr index of the 1,500 text files (for the comparison; cached when fresh)")
    bench_index(text_ws, fresh=False)
    print("3. quality (the gold claims): text at file level vs PDFs at page level")
    print(f"   {'pipeline':<10} {'set':<6} {'nDCG@10':>8} {'R@10':>6} {'MRR@10':>7}")
    for label, overrides in (("default", []), ("bm25", ["tools=[bm25]"])):
        scores = {}
        for set_name, folder, gold in (
            ("text", text_ws, data / "gold.text.jsonl"),
            ("pdf", pdf_ws, data / "gold.pages.jsonl"),
        ):
            scores[set_name] = found = evaluate(folder, gold, overrides)
            print(
                f"   {label:<10} {set_name:<6} {found['ndcg@10']:8.3f} {found['recall@10']:6.3f}"
                f" {found['mrr@10']:7.3f}"
            )
        gap = scores["pdf"]["ndcg@10"] - scores["text"]["ndcg@10"]
        verdict = "met" if gap >= -0.01 else "NOT met"
        print(f"   {label}: pdf - text = {gap:+.3f} (goal >= -0.010: {verdict})")
    bench_notebooks()
    from benchmarks.papers.real_folder import bench_real_folder

    bench_real_folder(out)
    bench_real_notebooks(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
