"""Formats are declared once (arr.readers.registry): the worker's reader, the view cache's
versions, the caps and grep's engine glob all follow the one list, so a new format is one
entry."""

from __future__ import annotations

import pytest

from arr import readers
from arr.readers import Readers, registry, suffix_of
from arr.readers.view import View, build_view
from arr.readers.worker import read_view
from arr.tools.grep.engine import READER_GLOB


class PlainLines:
    """A reader a new format would bring: every line a unit."""

    def read(self, raw: bytes) -> View:
        lines = raw.decode().split("\n")
        return build_view([(f"line={i + 1}", None, [t]) for i, t in enumerate(lines)], True)


def test_every_place_follows_the_one_list() -> None:
    declared = registry.suffixes()
    assert declared == readers.SUFFIXES and set(readers.VERSIONS) == set(declared)
    assert "--iglob=!*.{" + ",".join(s[1:] for s in declared) + "}" == READER_GLOB
    assert set(Readers().caps) == {f.suffix for f in registry.FORMATS if f.cap}
    for found in registry.FORMATS:
        reader = registry.reader_for(found.suffix, 10, 5.0)
        assert callable(reader.read), found
        assert suffix_of("X" + found.suffix.upper()) == found.suffix


def test_the_worker_reads_by_the_registry_and_refuses_what_it_lacks() -> None:
    bib = b"@article{k,\n  title = {A title},\n  year = {2020},\n}\n"
    assert '"lines"' in read_view({"suffix": ".bib", "max_pages": 1, "budget_s": 5.0}, bib)
    with pytest.raises(ValueError, match="no reader"):
        registry.reader_for(".docx", 1, 1.0)


def test_a_new_format_is_one_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    entry = registry.Format(".lines", f"{__name__}:PlainLines", "lines-1", text=True)
    monkeypatch.setattr(registry, "FORMATS", (*registry.FORMATS, entry))
    assert ".lines" in registry.suffixes() and "lines" in registry.engine_glob()
    view = registry.reader_for(".lines", 1, 1.0).read(b"a\nb")
    assert [u.anchor for u in view.units] == ["line=1", "line=2"]
