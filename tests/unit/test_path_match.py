"""File names as evidence (arr.fusion.path_match, ``fusion.path_weight``): a query's rarer
words that name a candidate file lift that file's items; words every candidate holds, items
without a path and a weight of 0 change nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from arr.fusion.path_match import path_matches, path_words, query_words, stem
from arr.fusion.wsum import WSumFusion
from arr.models import EvidenceChunk, Location
from arr.planner.rule import RuleQueryPlanner
from arr.reranker.rule import RuleReranker
from arr.router.router import RetrievalRouter
from arr.tools.bm25 import BM25Tool
from arr.tools.grep import GrepTool
from arr.workspace.workspace import Workspace
from benchmarks.common.core import shipped_stage
from tests.conftest import SCOPE_A, file_workspace


def chunk(path: str | None, score: float, channel: str = "bm25") -> EvidenceChunk:
    where = Location(path=path, start_line=1, end_line=40) if path else Location(memory_id="m")
    return EvidenceChunk(
        id=f"doc:{path}#L1" if path else "mem:m",
        scope=SCOPE_A,
        channel=channel,
        location=where,
        snippet="x",
        score=score,
    )


def test_words_are_split_at_separators_and_humps_and_stemmed() -> None:
    assert path_words("src/werkzeug/datastructures/csp.py") >= {"csp", "datastructur"}
    assert path_words("sphinx/ext/autodoc/TypeComments.py") >= {"type", "comment", "autodoc"}
    assert stem("parsing") == stem("parser") == "pars"
    assert stem("csp") == "csp"  # too short to lose an ending
    # the task words of a fix description name no place
    assert query_words("Fix handling of the reloader") == {"handl", "reload"}


def test_a_word_only_one_candidate_holds_weighs_one_and_a_shared_word_nothing() -> None:
    paths = ["src/pkg/reloader.py", "src/pkg/http.py", "src/pkg/routing.py", "src/pkg/test.py"]
    matches = path_matches("fix reloader path split in src pkg", paths)
    # "src" and "pkg" are in every candidate: no other path matches
    assert matches == {"src/pkg/reloader.py": pytest.approx(1.0)}
    half = path_matches("routing and http", paths)
    assert half["src/pkg/routing.py"] == pytest.approx(half["src/pkg/http.py"])
    assert half["src/pkg/http.py"] > 0
    assert path_matches("reloader", ["only/reloader.py"]) == {}  # one candidate: nothing to weigh


def test_path_weight_lifts_the_named_file_and_leaves_paths_less_items_alone() -> None:
    # the named file lies mid-list in both channels (fused 1.01 against the head's 2.0)
    bm25 = [chunk(f"pkg/m{i}.py", 10.0 - i) for i in range(6)] + [chunk("pkg/reloader.py", 7.5)]
    vector = [chunk(f"pkg/m{i}.py", 0.9 - i / 10, "vector") for i in range(6)]
    vector.append(chunk("pkg/reloader.py", 0.65, "vector"))
    memory = [chunk(None, 1.0, "memory")]
    rankings = {"bm25": bm25, "vector": vector, "memory": memory}
    query = "reloader breaks on Windows"
    off = WSumFusion(norm="min-max-floor", path_weight=0.0).fuse_for_query(query, rankings)
    on = WSumFusion(norm="min-max-floor", path_weight=0.6).fuse_for_query(query, rankings)
    assert [c.id for c in off].index("doc:pkg/reloader.py#L1") > 2
    assert on[0].id == "doc:pkg/reloader.py#L1"
    # the others keep their scores and order; the memory (no path) is untouched
    assert [c.id for c in on[1:]] == [c.id for c in off if c.id != on[0].id]
    assert {c.id: c.score for c in on if c.id != on[0].id} == {
        c.id: c.score for c in off if c.id != on[0].id
    }
    # without a query (fuse()) nothing is matched
    assert [c.id for c in WSumFusion(path_weight=0.6).fuse(rankings)] == [
        c.id for c in WSumFusion().fuse(rankings)
    ]


@pytest.mark.parametrize("bad", ["0.6", True, -0.1, 11, float("nan"), None])
def test_a_bad_path_weight_is_refused_naming_the_option(bad: object) -> None:
    with pytest.raises(ValueError, match="path_weight must be a number in"):
        WSumFusion(path_weight=bad)  # type: ignore[arg-type]


def test_the_shipped_fusion_matches_file_names() -> None:
    fusion = shipped_stage("fusion", "wsum")
    assert isinstance(fusion, WSumFusion) and fusion.path_weight > 0


def tree(base: Path) -> Workspace:
    """A tree where the words of the question fill a decoy file, and the file the question
    names says them once."""
    decoy = "def split_windows_path(path):\n    # windows path split, path split on windows\n"
    named = "class Reloader:\n    def run(self):\n        parts = self.path.split(sep)\n"
    files = {"pkg/util.py": decoy * 6, "pkg/reloader.py": named}
    for name in ("http", "routing", "wsgi", "test", "serving"):
        files[f"pkg/{name}.py"] = f"def {name}(path):\n    return path\n"
    return file_workspace(base, {"a": SCOPE_A}, files)


def test_through_the_router_the_named_file_comes_first_and_the_trace_says_why(
    tmp_path: Path,
) -> None:
    """Real bm25 and grep channels on a real tree: the decoy holds the question's words six
    times over; the file the question names ranks first once file names count."""
    workspace = tree(tmp_path)
    bm25, grep = BM25Tool("bm25", workspace), GrepTool("grep", workspace)
    bm25.build(SCOPE_A)
    query = "reloader fails to split a windows path"

    def search(path_weight: float):  # type: ignore[no-untyped-def]
        router = RetrievalRouter(
            tools={"bm25": bm25, "grep": grep},
            planner=RuleQueryPlanner(
                lexical_tools=["bm25", "grep"], semantic_tools=["bm25", "grep"]
            ),
            fusion=WSumFusion(norm="min-max-floor", file_support=0.5, path_weight=path_weight),
            reranker=RuleReranker(),
        )
        return router.search(query, SCOPE_A)

    before, after = search(0.0), search(0.6)
    assert {t.tool for t in after.traces if t.candidates} == {"bm25", "grep"}
    assert before.evidence[0].location.path == "pkg/util.py"
    assert after.evidence[0].location.path == "pkg/reloader.py"
    notes = [t.note for t in after.traces if t.tool in ("bm25", "grep")]
    assert all("file names matched: pkg/reloader.py" in n for n in notes)
    assert not any("file names matched" in t.note for t in before.traces)
    assert after.scope_leak_count == 0


def test_prose_words_a_longer_file_name_shares_do_not_name_it() -> None:
    """Issue 52: "file system" in a description of a lock service lifted a file-system paper's
    file, "state" and "machines" a file named for replicated state machines. A file name is
    named by an identifier, a name, a word that is not ordinary English, or its whole stem."""
    from arr.fusion.path_match import naming_words, path_matches

    paths = ["papers/gfs-file-system.pdf", "papers/replicated-state-machines.pdf",
             "papers/chubby.pdf", "src/rules.py", "src/_reloader.py",
             "papers/chen15.pdf"]  # fmt: skip
    assert (
        path_matches("a lock service with a file system interface for state machines", paths) == {}
    )
    assert set(path_matches("the routing rules are wrong", paths)) == {"src/rules.py"}
    assert set(path_matches("reloader path split on Windows", paths)) == {"src/_reloader.py"}
    assert set(path_matches("Chen 2015", paths)) == {"papers/chen15.pdf"}
    # the rule before stays selectable (fusion.path_words=all)
    assert set(path_matches("a file system interface", paths, "all")) == {
        "papers/gfs-file-system.pdf"
    }
    named, prose = naming_words("fix FormParser and `csp` in form_parser")
    assert {"form", "pars", "csp"} <= named and "fix" not in named | prose


def test_a_prose_word_names_a_module_by_its_whole_stem_but_not_a_document() -> None:
    """Issue 60: "the paper that introduced the Eiger system" lifted every entry of a
    manuscript's ``paper.bib`` (``paper``: the file's whole stem). A source file's name is a
    module's name (``rules`` names ``rules.py``); a document's is a generic word."""
    paths = ["manuscript/paper.bib", "manuscript/paper.tex", "notes/rules.md", "src/rules.py",
             "papers/lloyd11.pdf"]  # fmt: skip
    assert path_matches("the paper that introduced the Eiger system", paths) == {}
    assert set(path_matches("the routing rules are wrong", paths)) == {"src/rules.py"}
    # a name still names any file that holds it
    assert set(path_matches("Lloyd 2011", paths)) == {"papers/lloyd11.pdf"}
