"""Known-item questions on real published papers, every question kind with each known-item rule
on and off (``make bench-known``).

The folder: ``../shared/data/papersdev`` (193 PMLR papers with their publisher's records), or
the folder ``ARR_BENCH_IDENTITY`` names (``<folder>/gold.jsonl`` beside its PDFs). Questions
come from the publisher's records and from ``pdftotext``'s text, never from ARR's reading:

- ``title``: the publisher's title, TeX markup dropped;
- ``author_year``: the first author's family name and the year (``Acharya 2015``), asked only
  where no other paper of the folder has that first author and year;
- ``described``: the paper described in other words: the first sentences of its abstract with
  every word of its title left out (a researcher remembers what a paper did, not what it is
  called);
- ``phrase``: 8-12 words copied from a sentence on page 3 or later, held by no other paper.

Each system answers with its 10 best places; scored as R@1 / R@10 of the right PDF, with the
question count beside each kind. Systems, in the same run: bm25s over ``pdftotext`` pages (the
plain script), ARR's bm25 alone and vector alone, ARR's default, and the default with each
known-item rule off (``ordering=none``; exact matches off; file names by every word).

papersdev is a *development* folder: the identity rules were written while its misses were
read; its figures say so.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import sys
from collections import Counter
from pathlib import Path

from benchmarks.papers.identity import DEFAULT

SEED = 11
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "for",
        "and",
        "in",
        "on",
        "to",
        "with",
        "by",
        "from",
        "via",
        "is",
        "are",
        "we",
        "this",
        "that",
        "our",
        "as",
        "at",
        "be",
    ]
)


def _tex_free(text: str) -> str:
    text = re.sub(r"\$[^$]*\$", " ", text)
    text = re.sub(r"\\[a-zA-Z]+\{([^}]*)\}", r"\1", text)
    return " ".join(re.sub(r"[{}\\]", "", text).split())


def described(pages: list[str], title: str) -> str | None:
    """The abstract's first sentences without the title's words (and without stop words at
    the ends), 12 to 30 words; None when page 1 has no abstract."""
    text = " ".join(pages[0].split()) if pages else ""
    at = text.lower().find("abstract")
    if at < 0:
        return None
    body = text[at + len("abstract") :].lstrip(" .:-\u2014")
    titled = {w.lower() for w in _WORD.findall(title)} - _STOP
    kept: list[str] = []
    for sentence in _SENTENCE.split(body)[:3]:
        for word in sentence.split():
            bare = word.strip(".,;:()[]\"'").lower()
            if not bare or bare in titled or not _WORD.fullmatch(bare):
                continue
            kept.append(bare)
        if len(kept) >= 30:
            break
    kept = kept[:30]
    while kept and kept[-1] in _STOP:
        kept.pop()
    return " ".join(kept) if len(kept) >= 12 else None


def questions(folder: Path, gold: list[dict], texts: dict[str, list[str]]) -> list[dict]:
    rng = random.Random(SEED)
    firsts = Counter(
        (row["authors"][0]["family"], row["year"]) for row in gold if row["authors"]
    )  # fmt: skip
    flat = {name: " ".join(" ".join(pages).split()).lower() for name, pages in texts.items()}
    out: list[dict] = []
    for row in gold:
        name, pages = row["path"], texts.get(row["path"]) or []
        if not pages:
            continue
        title = _tex_free(row["title"])
        out.append({"kind": "title", "query": title, "pdf": name, "page": None})
        if row["authors"] and firsts[(row["authors"][0]["family"], row["year"])] == 1:
            query = f"{row['authors'][0]['family']} {row['year']}"
            out.append({"kind": "author_year", "query": query, "pdf": name, "page": None})
        if (about := described(pages, title)) is not None:
            out.append({"kind": "described", "query": about, "pdf": name, "page": None})
        for _ in range(6):
            if len(pages) < 3:
                break
            page = rng.randrange(3, len(pages) + 1)
            sentences = [
                s for s in _SENTENCE.split(" ".join(pages[page - 1].split()))
                if 10 <= len(_WORD.findall(s)) <= 40 and not re.search(r"[\\{}$%_^=]", s)
            ]  # fmt: skip
            if not sentences:
                continue
            chosen = rng.choice(sentences).split()
            start = rng.randrange(0, max(1, len(chosen) - 10))
            phrase = " ".join(chosen[start : start + rng.randrange(8, 13)])
            held = phrase.lower()
            if len(_WORD.findall(phrase)) < 6 or any(
                held in text for other, text in flat.items() if other != name
            ):
                continue
            out.append({"kind": "phrase", "query": phrase, "pdf": name, "page": page})
            break
    # only what a researcher can type (pdftotext gives a broken font's control characters)
    return [case for case in out if case["query"].isprintable()]


def _step_index(name: str) -> int:
    """Where a step stands in the shipped list (conf/ordering/known_items.yaml)."""
    from arr.ordering.known_items import default_steps

    return [step.name for step in default_steps()].index(name)


EXACT = _step_index("exact_first")
SYSTEMS = (
    ("ARR default", []),
    ("ARR ordering=none (no known-item rule)", ["ordering=none"]),
    ("ARR exact_first off", [f"ordering.rules.{EXACT}.{rule}=false" for rule in
                             ("titles", "authors", "citations", "phrases", "code_lines")]),
    ("ARR file names by every word", ["fusion.path_words=all"]),
    ("ARR file names off", ["fusion.path_weight=0"]),
    ("ARR bm25 alone", ["tools=[bm25]"]),
    ("ARR vector alone", ["tools=[vector]"]),
)  # fmt: skip


def bench_known_items(out: Path) -> None:
    from benchmarks.common.baselines import arr_search, bm25s_pages, pdftotext_pages
    from benchmarks.common.scoring import score
    from benchmarks.common.workspace import bench_index, paper_workspace

    source = Path(os.environ.get("ARR_BENCH_IDENTITY", DEFAULT))
    if not (source / "gold.jsonl").is_file() or shutil.which("pdftotext") is None:
        print(f"known items: no gold.jsonl under {source} or no pdftotext; not measured")
        return
    gold = [json.loads(line) for line in (source / "gold.jsonl").read_text("utf-8").splitlines()]
    gold = [row for row in gold if (source / row["path"]).is_file()]
    folder = out / f"known-{source.name}"
    paper_workspace(folder, source, "src")
    texts = {row["path"]: pdftotext_pages(source / row["path"]) for row in gold}
    print(f"known items on {source} ({len(gold)} PDFs; a development folder: its misses were read)")
    bench_index(folder, fresh=False)
    cases = questions(folder, gold, texts)
    counts = Counter(case["kind"] for case in cases)
    print("   questions: " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items())))
    print(f"   {'system':<40} " + " ".join(f"{k + ' R@1/R@10':>22}" for k in sorted(counts)))
    plain = bm25s_pages({name.replace("/", "/"): pages for name, pages in texts.items()})
    systems = [("bm25s over pdftotext pages", plain)]
    systems += [(label, _by_path(arr_search(folder, overrides))) for label, overrides in SYSTEMS]
    for label, search in systems:
        figures = score(cases, search)
        shown = " ".join(
            f"{figures[k][0]:>15.2f} / {figures[k][1]:.2f}" for k in sorted(counts)
        )  # fmt: skip
        print(f"   {label:<40} {shown}", flush=True)


def _by_path(search):  # type: ignore[no-untyped-def]
    """ARR's places named as the gold names them (``v38/x.pdf``: the path under ``src/``)."""

    def found(query: str) -> list[tuple[str, int]]:
        return [(path.split("src/", 1)[-1], n) for path, n in search(query)]

    return found


if __name__ == "__main__":
    from benchmarks.common.core import bench_out

    sys.exit(bench_known_items(bench_out() / "papers") or 0)
