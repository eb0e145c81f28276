"""Paths a query names (arr.query.named_paths): the line a path names is read in the forms tools
print, and the Router puts the named place first, moving only items it was given."""

from __future__ import annotations

from arr.models import EvidenceChunk, Location
from arr.query.named_paths import WHOLE, NamedPath, named_first, named_paths, names
from tests.conftest import SCOPE_A


def item(path: str | None, start: int = 1, end: int = 40) -> EvidenceChunk:
    where = Location(path=path, start_line=start, end_line=end) if path else Location(memory_id="m")
    return EvidenceChunk(
        id=f"doc:{path}#L{start}" if path else "mem:m",
        scope=SCOPE_A,
        channel="bm25",
        location=where,
        snippet="x",
        score=1.0,
    )


def test_path_shaped_tokens_without_a_leading_dot_slash() -> None:
    def tokens(query: str) -> list[str]:
        return [named.token for named in named_paths(query)]

    assert tokens("httpx/_transports/default.py") == ["httpx/_transports/default.py"]
    assert tokens("why does ./conf/x.yaml fail") == ["conf/x.yaml"]
    assert tokens("the loss spikes at step 3.5") == []


def test_named_paths_read_the_line_a_path_names() -> None:
    assert named_paths("src/pkg/rules.py:120") == [NamedPath("src/pkg/rules.py", 120)]
    assert named_paths("rules.py:120:7: E501 line too long") == [NamedPath("rules.py", 120)]
    assert named_paths("see pkg/rules.py#L42") == [NamedPath("pkg/rules.py", 42)]
    traceback = 'File "/home/ci/proj/pkg/rules.py", line 120, in match'
    assert named_paths(traceback) == [NamedPath("home/ci/proj/pkg/rules.py", 120)]
    assert named_paths("pkg\\rules.py:9") == [NamedPath("pkg/rules.py", 9)]  # Windows
    assert named_paths("conf/x.yaml and a.py") == [NamedPath("conf/x.yaml"), NamedPath("a.py")]
    assert named_paths("a.py:0") == [NamedPath("a.py")]  # no line 0
    assert named_paths("the loss spikes at step 3.5, see the log") == []


def test_names_prefers_the_more_specific_reading() -> None:
    assert names("src/pkg/rules.py", "pkg/rules.py") == WHOLE + 2  # the end of the path
    assert names("src/pkg/rules.py", "rules.py") == WHOLE + 1  # less specific
    assert names("pkg/rules.py", "home/ci/proj/pkg/rules.py") == 5  # a longer path ending so
    # a root's folder the token lacks (shown "src/pkg/...", a traceback from elsewhere): less
    assert names("src/pkg/rules.py", "home/ci/proj/pkg/rules.py") == 4
    assert names("a/src/pkg/rules.py", "ci/src/pkg/rules.py") == 6  # more shared: more specific
    assert names("rules.py", "other/rules.py") == 0  # a top-level file needs its own name
    assert names("src/rules.py", "other/rules.py") == 0  # the name alone is not enough
    assert names("pkg/xrules.py", "rules.py") == 0  # at a folder boundary only


def test_the_item_holding_the_named_line_comes_first_and_the_rest_keeps_its_order() -> None:
    found = [
        item("pkg/other.py"),
        item(None),
        item("pkg/rules.py", 1, 40),
        item("pkg/rules.py", 41, 80),
    ]
    ranked = named_first("pkg/rules.py:50", found)
    assert [r.id for r in ranked] == [found[i].id for i in (3, 0, 1, 2)]
    # no line named, or no item holds it: the file's best item
    assert named_first("rules.py", found)[0] is found[2]
    assert named_first("rules.py:500", found)[0] is found[2]


def test_nothing_moves_without_a_named_file_among_the_items() -> None:
    found = [item("pkg/other.py"), item(None), item("pkg/rules.py")]
    for query in ("why does the loss spike", "missing.py:3", "x/rules.py"):
        assert named_first(query, found) == found
    # two named paths: in the query's order, each once
    ranked = named_first("rules.py and other.py", found)
    assert [r.location.path for r in ranked] == ["pkg/rules.py", "pkg/other.py", None]


def test_the_more_specific_name_wins() -> None:
    found = [item("vendor/pkg/rules.py"), item("pkg/rules.py")]
    # "/ci/proj/pkg/rules.py" ends with the whole of pkg/rules.py; vendor/ contradicts it
    assert named_first("/ci/proj/pkg/rules.py", found)[0] is found[1]
    # "pkg/rules.py" is the end of both paths (equally specific): the better ranked one
    assert named_first("pkg/rules.py", found)[0] is found[0]


def test_a_path_from_elsewhere_names_the_shown_path_it_ends_like() -> None:
    """A traceback from another machine lacks the root's folder ARR shows (``src/``): the
    item holding the named line still comes first; a mere same file name does not."""
    found = [item("src/pkg/other.py"), item("src/pkg/rules.py", 1, 40)]
    ranked = named_first('File "/elsewhere/pkg/rules.py", line 3, in f', found)
    assert ranked[0] is found[1]
    assert named_first("/elsewhere/lib/rules.py:3", found) == found
