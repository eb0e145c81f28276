"""Build a small code-search test collection (BEIR layout) from an installed package's source.

The CodeSearchNet recipe: each documented function becomes a document (its source with the
docstring removed) and the first sentence of its docstring becomes a natural-language query
whose one relevant document is that function. Lexical and semantic channels differ widely on
such a collection, which is what fusion robustness is measured on::

    python -m benchmarks.retrieval.codesearch [package] [max_docs] [queries]
    # -> outputs/bench/codesearch (networkx) or outputs/bench/codesearch-<package>
    arr eval eval=scifact workspace.root=outputs/bench/codesearch \\
        workspace.index_dir=outputs/index/codesearch pipeline=...

Deterministic (sorted files, fixed sampling seed); nothing is copied into the repository.
"""

from __future__ import annotations

import ast
import json
import random
import re
import sys
import sysconfig
from pathlib import Path

from benchmarks.common.core import bench_out

_SENTENCE = re.compile(r"^(.+?[.!?])(\s|$)", re.S)


def first_sentence(doc: str) -> str:
    text = " ".join(doc.strip().split("\n\n")[0].split())
    match = _SENTENCE.match(text)
    return (match.group(1) if match else text).strip()


def functions(package_dir: Path) -> list[tuple[str, str, str]]:
    """(id, query, code) for every function with a usable docstring."""
    found = []
    for path in sorted(package_dir.rglob("*.py")):
        if "tests" in path.parts:
            continue
        try:
            source = path.read_text(encoding="utf-8")
            tree = ast.parse(source)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        lines = source.splitlines()
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            doc = ast.get_docstring(node)
            if not doc or node.name.startswith("_"):
                continue
            query = first_sentence(doc)
            if not 4 <= len(query.split()) <= 40:
                continue
            body = node.body[1:]  # without the docstring
            if not body:
                continue
            code = "\n".join([lines[node.lineno - 1]] + lines[body[0].lineno - 1 : node.end_lineno])
            rel = path.relative_to(package_dir.parent).with_suffix("").as_posix()
            found.append((f"{rel.replace('/', '.')}:{node.name}:{node.lineno}", query, code))
    return found


def codesearch_dir(package: str) -> Path:
    """Where the collection of ``package`` is written (networkx's, the first, kept its place)."""
    base = bench_out() / "codesearch"
    return base if package == "networkx" else base.with_name(f"codesearch-{package}")


def build(package: str = "networkx", max_docs: int = 3000, queries: int = 300) -> Path:
    package_dir = Path(sysconfig.get_paths()["purelib"]) / package
    items = functions(package_dir)
    rng = random.Random(13)
    rng.shuffle(items)
    items = items[:max_docs]
    out = codesearch_dir(package)
    (out / "qrels").mkdir(parents=True, exist_ok=True)
    with (out / "corpus.jsonl").open("w", encoding="utf-8") as corpus:
        for doc_id, _, code in items:
            corpus.write(json.dumps({"_id": doc_id, "title": "", "text": code}) + "\n")
    chosen = items[:queries]
    with (out / "queries.jsonl").open("w", encoding="utf-8") as handle:
        for i, (_, query, _) in enumerate(chosen):
            handle.write(json.dumps({"_id": f"q{i}", "text": query}) + "\n")
    with (out / "qrels" / "test.tsv").open("w", encoding="utf-8") as handle:
        handle.write("query-id\tcorpus-id\tscore\n")
        for i, (doc_id, _, _) in enumerate(chosen):
            handle.write(f"q{i}\t{doc_id}\t1\n")
    print(f"{len(items)} functions of {package}, {len(chosen)} queries -> {out}")
    return out


if __name__ == "__main__":
    args = sys.argv[1:]
    build(
        args[0] if args else "networkx",
        int(args[1]) if len(args) > 1 else 3000,
        int(args[2]) if len(args) > 2 else 300,
    )
