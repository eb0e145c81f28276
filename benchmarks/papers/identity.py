"""Paper identity on real PDFs against their publisher's records (``make bench-identity``).

For every PDF of a folder with a ``gold.jsonl`` (``../shared/data/papersdev``: 193 PMLR papers,
AISTATS 2015 and COLT 2016; or the folder ``ARR_BENCH_IDENTITY`` names), what a search shows
for page 1 - the title, the first author and the year of the citation to paste - is compared
with the publisher's title, first author's family name and year. A citation is *right* when its
first surname and its year are the gold's, *missing* when none is shown, *wrong* otherwise.

Beside ARR, in the same run, three baselines for the title: the PDF's ``/Title`` alone (what a
file manager shows), the ``pdftitle`` package (largest type of page 1, pdfminer) when it is
installed, and the first line of ``pdftotext -l 1`` (poppler) when it is on the PATH.

papersdev is a *development* folder: its misses were read while the identity rules were
written, and its figures say so. Other publishers' PDFs stay held out.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from pathlib import Path

DEFAULT = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "papersdev"


def words(text: str) -> list[str]:
    """Letters and digits only, case folded, markup dropped (``$\\ell_1$`` -> ``ell 1``)."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = re.sub(r"\\[a-zA-Z]+", " ", text)  # TeX commands in the publisher's titles
    return re.findall(r"[^\W_]+", text.lower())


def title_right(shown: str | None, gold: str) -> bool:
    """The publisher's title, letters and digits alike (case, spacing, punctuation and TeX markup
    aside), or it followed by a footnote mark (``*``, ``1``)."""
    have, want = "".join(words(shown or "")), "".join(words(gold))
    if not want:
        return False
    return have == want or (have.startswith(want) and len(have) - len(want) <= 2)


def family(name: str) -> str:
    return "".join(words(name))


_CITE = re.compile(r"^(?P<who>.+?)(?: (?P<year>\d{4}))?(?:, p\. \d+)?$")


def judge_citation(citation: str | None, gold: dict) -> str:
    """``right`` / ``missing`` / ``wrong`` for a shown citation (``Acharya et al. 2015, p. 1``)."""
    if not citation:
        return "missing"
    if gold.get("year") is None:  # page 1 prints no year: any citation shown is a guess
        return "wrong"
    match = _CITE.match(citation)
    if not match or not match["year"]:
        return "wrong"
    who = match["who"].replace(" et al.", "").split(" & ")[0]
    first = gold["authors"][0]["family"] if gold["authors"] else ""
    # the same surname, or its last word (``Maibing`` for ``Frejstrup Maibing``, ``van de
    # Meent`` for ``Meent``): the person is named; a shown particle is not a mistake
    shown, want = words(who), words(first)
    same = bool(shown) and bool(want) and shown[-1] == want[-1]
    return "right" if same and int(match["year"]) == int(gold["year"]) else "wrong"


def first_line_pdftotext(path: Path) -> str | None:
    if shutil.which("pdftotext") is None:
        return None
    done = subprocess.run(
        ["pdftotext", "-l", "1", "-enc", "UTF-8", str(path), "-"], capture_output=True, timeout=60
    )
    text = done.stdout.decode("utf-8", "replace")
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def pdftitle_of(path: Path) -> str | None:
    try:
        from pdftitle import GetTitleParameters, get_title_from_file  # type: ignore
    except ImportError:
        return None
    try:
        return get_title_from_file(str(path), GetTitleParameters())
    except Exception:  # the baseline failing on a file counts as a miss, not a crash
        return ""


def metadata_title(path: Path) -> str:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(path))
    try:
        return str(document.get_metadata_dict().get("Title", ""))
    finally:
        document.close()


def judge_view(title: str | None, first: object, row: dict) -> dict:
    """One PDF's page 1 as a search shows it, judged against its gold row: ``title_ok``,
    ``verdict`` (right / missing / wrong), where each field came from, and its misses."""
    citation = getattr(first, "citation", None)
    verdict = judge_citation(citation, row)
    ok_title = title_right(title, row["title"])
    sources = []
    # where each field came from, as a search shows it (location.identity)
    for part in (getattr(first, "identity", None) or "").split("; "):
        field, _, where = part.partition(": ")
        if field in ("title", "authors", "year"):
            sources.append(f"{field}:{where}")
    misses = []
    if not ok_title:
        misses.append(f"{row['path']}: title {title!r} (gold {row['title']!r})")
    if verdict != "right" and not (verdict == "missing" and row.get("year") is None):
        who = row["authors"][0]["family"] if row["authors"] else "?"
        misses.append(f"{row['path']}: cite {citation!r} (gold {who} {row['year']})")
    return {"title_ok": ok_title, "verdict": verdict, "sources": sources, "misses": misses,
            "citation": citation, "title": title}  # fmt: skip


def bench_identity(folder: Path, limit: int | None = None, baselines: bool = True) -> dict:
    from arr.readers import Readers
    from arr.readers.view import Unreadable

    gold = [json.loads(line) for line in (folder / "gold.jsonl").read_text("utf-8").splitlines()]
    gold = [row for row in gold if (folder / row["path"]).is_file()][:limit]
    counts: Counter[str] = Counter()
    misses: list[str] = []
    sources: Counter[str] = Counter()
    rows: list[dict] = []  # each PDF's verdicts, for a report by group (a template)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as cache:
        readers = Readers(Path(cache))
        try:
            for row in gold:
                path = folder / row["path"]
                try:
                    view = readers.view(row["path"], path.read_bytes())
                except Unreadable as exc:
                    counts["unreadable"] += 1
                    misses.append(f"{row['path']}: unreadable {exc}")
                    rows.append({**row, "verdict": "missing", "title_ok": False, "meta_ok": False})
                    continue
                first = view.units[0] if view.units else None
                judged = judge_view(view.title, first, row)
                verdict = judged["verdict"]
                counts[f"cite_{verdict}"] += 1
                counts["title"] += judged["title_ok"]
                for where in judged["sources"]:
                    sources[where] += 1
                misses += judged["misses"]
                meta_ok = title_right(metadata_title(path), row["title"])
                counts["meta"] += meta_ok
                rows.append({**row, "verdict": verdict, "title_ok": judged["title_ok"],
                             "meta_ok": meta_ok, "citation": judged["citation"],
                             "shown_title": judged["title"]})  # fmt: skip
                if not baselines:  # only /Title, which costs nothing
                    continue
                line = first_line_pdftotext(path)
                if line is not None:
                    counts["pdftotext"] += title_right(line, row["title"])
                    counts["pdftotext_n"] += 1
                found = pdftitle_of(path)
                if found is not None:
                    counts["pdftitle"] += title_right(found, row["title"])
                    counts["pdftitle_n"] += 1
        finally:
            readers.close()
    counts["n"] = len(gold)
    return {
        "counts": dict(counts),
        "sources": dict(sources),
        "misses": misses,
        "rows": rows,
        "seconds": time.perf_counter() - started,
    }


def report(result: dict, folder: Path) -> str:
    c = result["counts"]
    n = max(c["n"], 1)

    def share(key: str, of: int = n) -> str:
        return f"{c.get(key, 0)}/{of} ({c.get(key, 0) / max(of, 1):.0%})"

    lines = [
        f"paper identity on {folder} ({c['n']} PDFs; a development folder: its misses were read)",
        f"  ARR title right           {share('title')}",
        f"  ARR citation right        {share('cite_right')}",
        f"  ARR citation missing      {share('cite_missing')}",
        f"  ARR citation wrong        {share('cite_wrong')}",
        f"  baseline /Title alone     {share('meta')}",
    ]
    if c.get("pdftitle_n"):
        lines.append(f"  baseline pdftitle         {share('pdftitle', c['pdftitle_n'])}")
    else:
        lines.append("  baseline pdftitle         not installed (pip install pdftitle)")
    if c.get("pdftotext_n"):
        lines.append(f"  baseline pdftotext line 1 {share('pdftotext', c['pdftotext_n'])}")
    else:
        lines.append("  baseline pdftotext line 1 not on PATH (poppler-utils)")
    lines.append(f"  where fields came from    {json.dumps(result['sources'], sort_keys=True)}")
    lines.append(f"  {result['seconds']:.1f} s in all")
    return "\n".join(lines)


def main() -> None:
    folder = Path(os.environ.get("ARR_BENCH_IDENTITY", DEFAULT))
    if not (folder / "gold.jsonl").is_file():
        print(f"skipped: no gold.jsonl under {folder} (set ARR_BENCH_IDENTITY)")
        return
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else None
    result = bench_identity(folder, limit)
    print(report(result, folder))
    if os.environ.get("ARR_BENCH_MISSES"):
        print("\n".join("    " + m for m in result["misses"]))


if __name__ == "__main__":
    main()
