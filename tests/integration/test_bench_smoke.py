"""Every ``make bench-*`` runs here on tiny inputs (seconds): a bench that breaks fails the
suite, not a user. Caches and trees go to a temporary ``$ARR_BENCH_OUT``, never over a real
benchmark's; SciFact is replaced by a generated 40-document BEIR folder."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
# make target -> (module, a line its output must hold)
SMOKE = {
    "bench": ("benchmarks", "BM25 through the Router"),
    "bench-wsgold": ("benchmarks.retrieval.wsgold", ""),
    "bench-papers": ("benchmarks.papers.papers", "pdf - text"),
    "bench-llm": ("benchmarks.llm.bench", "x the deadline"),
    "bench-index": ("benchmarks.speed.index", "estimate for 10,000 such files"),
    "bench-eta": ("benchmarks.speed.eta", "worst remaining"),
    "bench-grep": ("benchmarks.speed.grep", "matches: channel"),
    "bench-vector": ("benchmarks.speed.vector", "ratio p50 Router/raw"),
    "bench-concurrency": ("benchmarks.speed.concurrency", "client thread(s)"),
    "bench-scale": ("benchmarks.speed.scale", "T   files"),
    "bench-scaleout": ("benchmarks.speed.scaleout", "speed-up with two indexing processes"),
    "bench-secrets": ("benchmarks.safety.secrets", "withheld per 10,000 text files"),
    "bench-freshness": ("benchmarks.speed.freshness", "edit-to-answer best"),
    # without an indexed real folder it says so (test_cold_bench_runs_on_a_tiny_folder runs it)
    "bench-cold": ("benchmarks.speed.cold", "no indexed real folder"),
    "bench-identity": ("benchmarks.papers.identity", "ARR citation right"),
    # without pdflatex it says so; with it, one paper a class (ARR_TEMPLATES_PER_CLASS=1)
    "bench-templates": ("benchmarks.papers.templates", "paper identity per template"),
    "bench-bib": ("benchmarks.papers.bibdev", "shipped    all"),
    # without pdftotext (poppler-utils) it says so; with it, a tiny folder is asked
    "bench-known": ("benchmarks.papers.known_items", "known items"),
    # a tiny folder of papers (with its manuscript) and a tiny tree, every system
    "bench-breadth": ("benchmarks.breadth", "| plain script (bm25s) |"),
    # ARR's judge and Kingfisher's on two samples (the other judges are an extra)
    "bench-judges": ("benchmarks.safety.judges", "us/file"),
}


def tiny_papers(folder: Path) -> Path:
    """Two typeset papers with their publisher's records (``gold.jsonl``), as papersdev."""
    from tests.readers_fixtures import headed_pdf_bytes

    body = [f"Line {n} of the method, its proofs and experiments on data." for n in range(25)]
    gold = []
    for number, (title, given, family) in enumerate(
        [("Sparse Recovery with Few Samples", "Ada", "Lovelace"),
         ("Bandits under Knapsack Constraints", "Alan", "Turing")]
    ):  # fmt: skip
        name = f"v1/paper{number}.pdf"
        lines = [f"{given} {family}", "Abstract", f"We study {title.lower()} carefully.", *body,
                 "Appearing in Proceedings of the Conference on Learning 2015."]  # fmt: skip
        (folder / "v1").mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(headed_pdf_bytes([(title, lines), (None, body), (None, body)]))
        gold.append({"path": name, "title": title, "year": 2015,
                     "authors": [{"given": given, "family": family}]})  # fmt: skip
    (folder / "gold.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gold))
    return folder


def tiny_samples(path: Path) -> Path:
    """Two credential samples in gitleaks' form (secrets-dev), made up here."""
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    rows = [{"rule": "github-pat", "line": f'token = "{token}"', "secret": token},
            {"rule": "generic-api-key", "line": 'api_key = "Zx81KqPw02LmNv77TrQe"',
             "secret": "Zx81KqPw02LmNv77TrQe"}]  # fmt: skip
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


WORDS = (
    "warmup schedule loss spike gradient clipping batch size memory attention mask tokenizer "
    "vocabulary learning rate decay optimizer momentum dropout layer norm embedding vector "
    "index query ranking fusion channel scope router trace"
)


def tiny_beir(folder: Path, documents: int = 40, queries: int = 8) -> Path:
    words = WORDS.split()
    rng = random.Random(7)
    (folder / "qrels").mkdir(parents=True)
    with (folder / "corpus.jsonl").open("w") as out:
        for i in range(documents):
            text = " ".join(rng.choice(words) for _ in range(30))
            out.write(json.dumps({"_id": f"d{i}", "title": f"doc {i}", "text": text}) + "\n")
    lines, qrels = [], ["query-id\tcorpus-id\tscore"]
    for q in range(queries):
        lines.append(json.dumps({"_id": f"q{q}", "text": " ".join(rng.sample(words, 4))}))
        qrels.append(f"q{q}\td{rng.randrange(documents)}\t1")
    for name in ("queries.jsonl", "queries.test.jsonl"):
        (folder / name).write_text("\n".join(lines) + "\n")
    for split in ("test", "dev"):
        (folder / "qrels" / f"{split}.tsv").write_text("\n".join(qrels) + "\n")
    return folder


def test_every_bench_target_has_a_smoke_run() -> None:
    targets = re.findall(r"^(bench[\w-]*):", (REPO / "Makefile").read_text(), re.M)
    assert set(targets) == set(SMOKE)
    for target, (module, _) in SMOKE.items():
        assert f"-m {module}\n" in (REPO / "Makefile").read_text().split(f"\n{target}:")[1]


@pytest.mark.model
@pytest.mark.parametrize(
    "target", sorted(set(SMOKE) - {"bench-grep", "bench-wsgold", "bench-papers", "bench-llm"})
)
def test_bench_runs_on_tiny_inputs(target: str, tmp_path: Path) -> None:
    tree = tmp_path / "tree" / "pkg"
    tree.mkdir(parents=True)
    for i in range(3):
        (tree / f"m{i}.py").write_text(f"class M{i}:\n    def f(self):\n        raise ValueError\n")
    env = {
        **os.environ,
        "ARR_BENCH_OUT": str(tmp_path / "out"),
        "ARR_SCIFACT": str(tiny_beir(tmp_path / "scifact")),
        "ARR_GREP_TREE": str(tree.parent),
        "ARR_BENCH_VECTOR_DOCS": "10",
        "ARR_SCALE_SIZES": "T",
        "ARR_SCALEOUT_EMBEDDER": "hashing",
        "ARR_SECRETS_PACKAGES": "tqdm",
        "ARR_BENCH_PACKAGES": "tqdm",
        "ARR_BENCH_INDEX_TREE": str(tree.parent),
        "ARR_BENCH_INDEX_DOCS": "20",
        "ARR_BENCH_ETA_TREE": str(tree.parent),
        "ARR_COSQA": str(tmp_path / "scifact"),
        "ARR_BENCH_IDENTITY": str(tiny_papers(tmp_path / "papers")),
        "ARR_WSGOLD": str(tmp_path / "sets"),
        "ARR_SECRETS_SAMPLES": str(tiny_samples(tmp_path / "samples.jsonl")),
        "ARR_JUDGES": "arr,kingfisher",
        "ARR_TEMPLATES_PER_CLASS": "1",
        # no Debian manuals: a folder with no PDF (bench-breadth and bench-papers say so)
        "ARR_BENCH_REAL_FOLDER": str(tmp_path / "no-pdfs"),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    tiny_set(tmp_path / "sets" / "tiny", 3)
    env.pop("ARR_WORKSPACE", None)
    module, expected = SMOKE[target]
    done = run_bench([module], env)
    assert "Traceback" not in done.stderr and expected in done.stdout, done.stdout[-2000:]


TINY_TREE = {
    "reloader.py": "class Reloader:\n    def restart(self):\n        split_path(self.path)\n",
    "cookies.py": "def parse_cookie(header):\n    return header.split(';')\n",
    "routing.py": "def match_rule(path):\n    return path.strip('/')\n",
}
TINY_GOLD = [
    {"id": "q1", "query": "fix reloader restart", "relevant": ["pkg/reloader.py"]},
    {"id": "q2", "query": "don't strip cookie header", "relevant": ["pkg/cookies.py"]},
    {"id": "q3", "query": "handle rule path slashes", "relevant": ["pkg/routing.py"]},
]


def tiny_set(folder: Path, questions: int) -> None:
    """A workspace gold set (``tree/`` and ``gold.jsonl``) of three files and the first
    ``questions`` questions."""
    tree = folder / "tree" / "pkg"
    tree.mkdir(parents=True)
    for name, body in TINY_TREE.items():
        (tree / name).write_text(body)
    lines = "".join(json.dumps(case) + "\n" for case in TINY_GOLD[:questions])
    (folder / "gold.jsonl").write_text(lines)


def run_bench(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``python -m ARGS`` in the checkout with ``env``; it must exit 0."""
    done = subprocess.run(
        [sys.executable, "-m", *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
        env=env,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return done


def test_grep_bench_runs_on_a_small_tree(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    for i in range(5):
        (tree / "pkg" / f"m{i}.py").write_text(
            f"class M{i}:\n    def __init__(self):\n        raise ValueError('x{i}')\n"
        )
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.speed.grep"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
        env={**os.environ, "ARR_GREP_TREE": str(tree)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "matches: channel 5, rg 5" in done.stdout, done.stdout


@pytest.mark.model
def test_workspace_gold_bench_runs_on_a_tiny_set(tmp_path: Path) -> None:
    """The whole bench (recording through the Router, every pipeline, the tests, the region
    count) on a three-file tree with three questions."""
    tiny_set(tmp_path / "sets" / "tiny", 3)
    env = {
        **os.environ,
        "ARR_BENCH_OUT": str(tmp_path / "out"),
        "ARR_WSGOLD": str(tmp_path / "sets"),
        "HF_HUB_OFFLINE": "1",
    }
    out = run_bench(["benchmarks.retrieval.wsgold", "tiny"], env).stdout
    assert "## tiny (3 questions, file level)" in out, out[-2000:]
    for row in ("| bm25 |", "| plain RRF (all three) |", "| default (planned, fused, reranked) |"):
        assert row in out
    assert (
        "smallest delta this set can show" in out and "pairs of items from one file region" in out
    )


def test_workspace_gold_bench_says_when_its_data_is_absent(tmp_path: Path) -> None:
    from benchmarks.retrieval import wsgold

    if (wsgold.wsgold_dir("werkzeug") / "gold.jsonl").is_file():
        ranked = wsgold.PlainRg(wsgold.wsgold_dir("werkzeug") / "tree").rank("form parser")
        assert ranked and all(isinstance(p, str) for p in ranked[:5])
    else:
        assert wsgold.main(["werkzeug"]) == 0  # prints "skipped ...", never crashes


@pytest.mark.model
def test_papers_bench_runs_on_a_tiny_set(tmp_path: Path) -> None:
    """Extraction, arr index and the side-by-side scores on two PDFs of two papers each."""
    from tests.readers_fixtures import pdf_bytes

    data = tmp_path / "pdfgold"
    (data / "volumes").mkdir(parents=True)
    (data / "text").mkdir()
    papers = {
        "d1": ["Warmup stabilises large batch training", "Loss spikes vanish with warmup."],
        "d2": ["Dropout regularises attention", "Attention dropout lowers overfitting."],
        "d3": ["Tokenizer vocabulary size", "Larger vocabularies shorten sequences."],
        "d4": ["Gradient clipping bounds updates", "Clipping prevents exploding gradients."],
    }
    ids = list(papers)
    for number, pair in enumerate((ids[:2], ids[2:])):
        pages = [papers[i] for i in pair]
        (data / "volumes" / f"vol{number:03d}.pdf").write_bytes(pdf_bytes(pages))
    for doc, lines in papers.items():
        (data / "text" / f"{doc}.txt").write_text("\n".join(lines) + "\n")
    queries = {"d1": "warmup loss spikes", "d4": "exploding gradients clipping"}
    where = {"d1": "volumes/vol000.pdf#page=1", "d4": "volumes/vol001.pdf#page=2"}
    for name, relevant in (("text", lambda d: f"text/{d}.txt"), ("pages", where.get)):
        (data / f"gold.{name}.jsonl").write_text(
            "".join(
                json.dumps({"id": d, "query": q, "relevant": [relevant(d)]}) + "\n"
                for d, q in queries.items()
            )
        )
    # the real folder's section on 20 small PDFs of four pages (not /usr/share/doc's 300)
    folder, rng = tmp_path / "real", random.Random(5)
    for n in range(20):
        topic = f"topic{n} " + " ".join(rng.sample(WORDS.split(), 6))
        pages = [[f"Manual {n}: {topic}"]] + [
            [f"Page {p} of manual {n}. The {topic} is described here in words.", "More text."]
            for p in range(2, 5)
        ]
        (folder / f"m{n}.pdf").parent.mkdir(parents=True, exist_ok=True)
        (folder / f"m{n}.pdf").write_bytes(pdf_bytes(pages))
    # the real notebooks' section on 10 small notebooks written here
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    books = tmp_path / "books"
    books.mkdir()
    for n in range(10):
        topic = " ".join(rng.sample(WORDS.split(), 4))
        cells = [new_markdown_cell(f"# Notebook {n} on {topic}"),
                 new_code_cell(f"model_{n} = fit_model(data, order=({n}, 1))"),
                 new_markdown_cell(f"Here the {topic} is fitted again with another order, "
                                   f"number {n}, and the residuals are compared by eye."),
                 new_code_cell(f"resid_{n} = model_{n}.resid.plot(figsize=(12, 8))")]  # fmt: skip
        nbformat.write(new_notebook(cells=cells), str(books / f"nb{n}.ipynb"))
    env = {
        **os.environ,
        "ARR_BENCH_OUT": str(tmp_path / "out"),
        "ARR_PDFGOLD": str(data),
        "ARR_BENCH_REAL_FOLDER": str(folder),
        "ARR_BENCH_REAL_NOTEBOOKS": str(books),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    out = run_bench(["benchmarks.papers.papers"], env).stdout
    assert "pdfium (shipped, worker)" in out and "arr index: lexical ready" in out, out[-3000:]
    rows = re.findall(r"^   (default|bm25)\s+(text|pdf)\s+([0-9.]+)", out, re.M)
    assert len(rows) == 4 and all(float(score) > 0.5 for _, _, score in rows), out[-3000:]
    if shutil.which("pdftotext"):  # the baseline needs poppler
        assert re.search(r"ARR default\s+phrase\s+[0-9.]+", out), out[-3000:]
        assert "bm25s over pdftotext pages" in out
    section = out.split("6. real notebooks", 1)[-1]
    notebooks = re.findall(r"^   ARR default\s+(code|phrase|title)\s+([0-9.]+)", section, re.M)
    assert len(notebooks) == 3 and all(float(r1) > 0.5 for _, r1 in notebooks), out[-3000:]


@pytest.mark.model
def test_llm_bench_runs_on_a_tiny_set(tmp_path: Path) -> None:
    """Scenarios, rule against llm-planned retrieval and the deadline, against the packaged
    model on its own llama.cpp server, on one scenario and two questions per set."""
    from tests.llama_fixtures import require_llama

    require_llama()
    tiny_set(tmp_path / "sets" / "werkzeug", 2)
    env = {
        **os.environ,
        "ARR_BENCH_OUT": str(tmp_path / "out"),
        "ARR_WSGOLD": str(tmp_path / "sets"),
        "ARR_BENCH_LLM_SCENARIOS": "1",
        "ARR_BENCH_LLM_QUERIES": "2",
        "ARR_BENCH_LLM_DEMO": "2",
        "ARR_BENCH_LLM_DEADLINE_MS": "1000",
        "HF_HUB_OFFLINE": "1",
    }
    env.pop("ARR_BENCH_LLM", None)
    out = run_bench(["benchmarks.llm.bench"], env).stdout
    for line in ("| arr-router-v2 | 1 |", "demo gold (2 questions)", "werkzeug (2 questions)"):
        assert line in out, out[-2000:]
    assert "x the deadline" in out and (tmp_path / "out" / "llm" / "figures.json").is_file()


def test_cold_bench_runs_on_a_tiny_folder(tmp_path: Path) -> None:
    from benchmarks.common.workspace import paper_workspace
    from tests.readers_fixtures import pdf_bytes

    source = tmp_path / "src"
    source.mkdir()
    for n in range(4):
        page = [f"paper {n} sets the page margins with fancyhead and pdfpageheight"]
        (source / f"p{n}.pdf").write_bytes(pdf_bytes([page, page]))
    folder = tmp_path / "real"
    paper_workspace(folder, source, "docs")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env.pop("ARR_WORKSPACE", None)
    cli = [sys.executable, "-m", "arr.cli"]
    subprocess.run([*cli, "index"], cwd=folder, env=env, check=True, capture_output=True)
    env |= {"ARR_BENCH_OUT": str(tmp_path / "out"), "ARR_BENCH_COLD_FOLDER": str(folder)}
    (tmp_path / "out").mkdir()
    done = run_bench(["benchmarks.speed.cold"], env)
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    lines = ("1. cold `arr search`", "prose", "1b. the same", "python -c pass", "imports of a cold")
    for line in (*lines, "2. library mode", "4x", "4. the folder 2x"):
        assert line in done.stdout, done.stdout


def test_adversarial_bench_runs_and_prints_its_figures() -> None:
    """Part of make bench-secrets (figures, not timed assertions: docs/benchmarks.md has them)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env.pop("ARR_WORKSPACE", None)
    done = run_bench(["benchmarks.safety.adversarial"], env)
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert re.search(r"slowest: [\d.]+ s", done.stdout), done.stdout
    assert len(re.findall(r"\([\d.]+x the deadline\)", done.stdout)) == 3, done.stdout
