"""Secret-rule precision (``make bench-secrets``): what the name and content rules withhold on
real source trees, every withheld file listed.

Trees: the installed packages named in ``PACKAGES`` (``$ARR_SECRETS_PACKAGES``, comma-separated,
to choose others), read in place. Every regular file up to the grep channel's size cap is
checked as grep and the indexes check it: sensitive name, binary (NUL byte), credential content.
Printed: files and bytes per package, files withheld by name and by content (each listed with
the rule that fired, to be checked by hand), the rate per 10,000 text files against the goal
(at most 1 per 10,000 that a person would not call a credential), and the detection time.
"""

from __future__ import annotations

import os
import sys
import sysconfig
import time
from pathlib import Path

from arr.safety.rules import credential_kind, is_sensitive_name
from benchmarks.speed.freshness import DEFAULT_PACKAGES

PACKAGES = ("torch", *DEFAULT_PACKAGES)  # the freshness bench's packages and torch
MAX_FILE_BYTES = 2_000_000  # the grep channel's default cap


def packages() -> list[Path]:
    chosen = os.environ.get("ARR_SECRETS_PACKAGES")
    names = chosen.split(",") if chosen else list(PACKAGES)
    site = Path(sysconfig.get_paths()["purelib"])
    return [site / name for name in names if (site / name).is_dir()]


def scan(root: Path) -> tuple[dict[str, int], list[tuple[str, str, str]], float]:
    """Counts (files, text files, text bytes), withheld (path, reason, rule), detection seconds."""
    counts = {"files": 0, "text_files": 0, "text_bytes": 0}
    withheld: list[tuple[str, str, str]] = []
    detecting = 0.0
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            relative = path.relative_to(root.parent).as_posix()
            if path.is_symlink() or not path.is_file():
                continue
            counts["files"] += 1
            if is_sensitive_name(relative):
                withheld.append((relative, "sensitive_name", ""))
                continue
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
            content = path.read_bytes()
            if b"\x00" in content:
                continue  # binary: never a snippet, not a text file
            counts["text_files"] += 1
            counts["text_bytes"] += len(content)
            started = time.perf_counter()
            kind = credential_kind(content)
            detecting += time.perf_counter() - started
            if kind is not None:
                withheld.append((relative, "credential", kind))
    return counts, withheld, detecting


def main() -> int:
    roots = packages()
    if not roots:
        print("none of the packages is installed", file=sys.stderr)
        return 1
    totals = {"files": 0, "text_files": 0, "text_bytes": 0}
    listed: list[tuple[str, str, str]] = []
    seconds = 0.0
    print(f"{'package':<14}{'files':>8}{'text':>8}{'MB':>8}{'withheld':>10}")
    for root in roots:
        counts, withheld, detecting = scan(root)
        for key in totals:
            totals[key] += counts[key]
        listed += withheld
        seconds += detecting
        print(
            f"{root.name:<14}{counts['files']:>8,}{counts['text_files']:>8,}"
            f"{counts['text_bytes'] / 1e6:>8.1f}{len(withheld):>10}"
        )
    rate = 10_000 * len(listed) / max(1, totals["text_files"])
    print(
        f"{'all':<14}{totals['files']:>8,}{totals['text_files']:>8,}"
        f"{totals['text_bytes'] / 1e6:>8.1f}{len(listed):>10}"
    )
    print(f"\nwithheld per 10,000 text files: {rate:.2f} (goal: <= 1 that is not a credential)")
    print(f"content detection: {seconds:.1f} s for {totals['text_bytes'] / 1e6:.0f} MB")
    print("\nevery withheld file (check each by hand):")
    for relative, reason, rule in listed:
        print(f"  {reason:<20}{rule:<28}{relative}")
    if not listed:
        print("  (none)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
