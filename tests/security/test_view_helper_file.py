"""``known.json`` (which cached view stands for each reader file) lies in the index folder; an
edited entry or a view swapped for a link never makes ripgrep open a file outside the cache."""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from pathlib import Path

import pytest

from arr.readers import Readers
from arr.tools.grep.views import KNOWN_FILE, ViewFiles, trusted_view

BIB = "@article{k,\n  title = {Cosine schedules for warmup},\n  year = {2020},\n}\n"


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path, dict[str, tuple[int, int]]]:
    root, cache = tmp_path / "root", tmp_path / "idx" / "text"
    root.mkdir()
    (root / "refs.bib").write_text(BIB)
    (tmp_path / "outside.txt").write_text("the private outside text\n")
    info = (root / "refs.bib").stat()
    return root, cache, {"refs.bib": (info.st_size, info.st_mtime_ns)}


def views_of(root: Path, cache: Path, files: dict[str, tuple[int, int]]) -> dict[str, str]:
    views = ViewFiles(Readers(cache_dir=cache))
    found = views.for_roots([root], (files,), 10_000_000, time.monotonic() + 60, Counter())
    return found[0].files


def test_an_edited_entry_pointing_outside_is_not_used(tree) -> None:
    root, cache, files = tree
    made = views_of(root, cache, files)["refs.bib"]
    saved = json.loads((cache / KNOWN_FILE).read_text())
    for row in saved["rows"]:
        row[4] = "../../outside.txt"
    (cache / KNOWN_FILE).write_text(json.dumps(saved))
    assert views_of(root, cache, files)["refs.bib"] == made


def test_a_view_swapped_for_a_link_is_made_again(tree) -> None:
    root, cache, files = tree
    made = views_of(root, cache, files)["refs.bib"]
    (cache / made).unlink()
    os.symlink(root.parent / "outside.txt", cache / made)
    assert not trusted_view(cache, made)
    again = views_of(root, cache, files)["refs.bib"]
    assert again == made and trusted_view(cache, again)
    assert "Cosine" in (cache / again).read_text()


@pytest.mark.parametrize(
    "name",
    ["../outside.txt", "/etc/passwd", "ab/cd.txt", "ab/" + "0" * 64 + ".txt", "ab/ab" + "0" * 62],
)
def test_names_not_written_by_the_readers_are_refused(tmp_path: Path, name: str) -> None:
    assert not trusted_view(tmp_path, name)


def test_a_cached_view_swapped_for_a_link_is_read_again(tmp_path: Path) -> None:
    cache, raw = tmp_path / "text", BIB.encode()
    first = Readers(cache_dir=cache)
    assert "Cosine" in "\n".join(first.view("refs.bib", raw).lines)
    (stored,) = cache.glob("*/*.json")
    forged = tmp_path / "forged.json"
    forged.write_text(stored.read_text().replace("Cosine", "Forged"))
    stored.unlink()
    os.symlink(forged, stored)
    again = Readers(cache_dir=cache).view("refs.bib", raw)  # a new process: nothing in memory
    assert "Cosine" in "\n".join(again.lines) and "Forged" not in "\n".join(again.lines)
