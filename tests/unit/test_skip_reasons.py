"""One vocabulary of skip reasons: what the code counts is what the docs list."""

from __future__ import annotations

import re
from pathlib import Path

from arr.workspace.skip_reasons import SKIP_REASONS

REPO = Path(__file__).resolve().parents[2]


def test_the_docs_list_exactly_the_reasons_the_code_counts() -> None:
    text = (REPO / "docs" / "channels.md").read_text()
    listed = text.split("Skip reasons counted in the trace", 1)[1].split("\n\n", 1)[0]
    named = re.findall(r"`([a-z_0-9]+)`", listed.split(":", 1)[1])
    assert [n for n in named if n != "skipped_"] == list(SKIP_REASONS)


def test_every_skip_the_code_writes_by_name_is_in_the_vocabulary() -> None:
    written: set[str] = set()
    for path in (REPO / "arr").rglob("*.py"):
        source = path.read_text()
        written |= set(re.findall(r"[\"']skipped_([a-z_0-9]+)[\"']", source))
        written |= set(re.findall(r"count_skipped\(skipped, [\"']([a-z_0-9]+)[\"']", source))
    written.discard("files")  # ``skipped_files``: the list of skipped files, not a reason
    assert written and written <= set(SKIP_REASONS), written - set(SKIP_REASONS)


def test_every_reason_has_words_a_researcher_reads() -> None:
    from arr.workspace.skip_reasons import REASON_WORDS

    assert set(REASON_WORDS) == set(SKIP_REASONS)
