"""The grep word index narrows a scan without ever losing a line a full scan finds."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from arr.models import ToolCall
from arr.tools.grep import GrepTool
from arr.tools.grep.word_index import WordIndex, walk
from arr.workspace.workspace import Workspace
from tests.conftest import SCOPE_A

ALPHABET = "abcDEFxyz_0912 .-:()/\tK\u212a\u017fé"  # incl. the Kelvin sign and the long s
WORDS = ["alpha", "Beta_gamma", "torch.nn", "adam-w", "x1", "SEED", "sort_by", "kel", "sss"]


def make_tree(root: Path, rng: random.Random, files: int = 60) -> None:
    for number in range(files):
        lines = []
        for _ in range(rng.randint(1, 12)):
            parts = [
                rng.choice(WORDS) if rng.random() < 0.4 else
                "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 8)))
                for _ in range(rng.randint(1, 6))
            ]  # fmt: skip
            lines.append(" ".join(parts))
        folder = (
            root / ("deep/er" if number % 3 == 0 else "") / (".hidden" if number % 7 == 0 else "")
        )
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{number}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def probes(root: Path, rng: random.Random, count: int) -> list[str]:
    """Literals cut from the files at random places (across word boundaries), case flipped."""
    texts = [p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.txt"))]
    found = []
    while len(found) < count:
        text = rng.choice(texts)
        start = rng.randrange(len(text))
        piece = text[start : start + rng.randint(2, 14)].split("\n")[0]
        if piece.strip():
            found.append(piece.swapcase() if rng.random() < 0.5 else piece)
    return found + ["kelvin", "KEL", "s", "ss", "zzz_absent", "torch.nn with adam-w"]


def workspaces(tmp_path: Path) -> tuple[Workspace, Workspace]:
    spec = {
        "name": "t",
        "root": tmp_path / "ws",
        "index_dir": tmp_path / "idx",
        "memory_db": tmp_path / "m.sqlite3",
        "scopes": {"a": {"key": SCOPE_A, "roots": ["a"]}},
    }
    watched = Workspace(**spec)
    watched.watch_changes(verify_s=60.0)
    return watched, Workspace(**spec)


def answers(tool: GrepTool, query: str) -> list[tuple[str, str]]:
    found = tool.retrieve(ToolCall(tool="grep", query=query, top_k=100), SCOPE_A)
    return [(e.id, e.snippet) for e in found.evidence]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_narrowed_scan_finds_exactly_what_a_full_scan_finds(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    make_tree(tmp_path / "ws" / "a", rng)
    watched, plain = workspaces(tmp_path)
    narrowed = GrepTool("grep", watched, max_matches_per_file=500, max_narrowed_share=1.0)
    full = GrepTool("grep", plain, max_matches_per_file=500)
    narrowed.build(SCOPE_A)
    narrowing_used = 0
    for query in probes(tmp_path / "ws" / "a", rng, 80):
        got = narrowed.retrieve(ToolCall(tool="grep", query=query, top_k=100), SCOPE_A)
        narrowing_used += "files_narrowed" in got.counters
        assert [(e.id, e.snippet) for e in got.evidence] == answers(full, query), query
    assert narrowing_used > 40  # the index was used, not bypassed
    watched.close_watches()


def test_files_changed_or_added_after_the_build_are_always_scanned(tmp_path: Path) -> None:
    root = tmp_path / "ws" / "a"
    root.mkdir(parents=True)
    for number in range(30):
        (root / f"n{number}.md").write_text(f"plain note {number}\n")
    (root / ".github" / "deep").mkdir(parents=True)
    (root / ".github" / "deep" / "ci.yml").write_text("run: pytest\n")
    watched, plain = workspaces(tmp_path)
    tool = GrepTool("grep", watched)
    tool.build(SCOPE_A)
    assert answers(tool, "QuantumFlux") == []
    (root / "n3.md").write_text("plain note 3 now about quantumflux\n")
    (root / "sub").mkdir()
    (root / "sub" / "new.md").write_text("QuantumFlux capacitor\n")
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and len(answers(tool, "QuantumFlux")) < 2:
        time.sleep(0.05)  # the watch delivers the events
    assert [i for i, _ in answers(tool, "QuantumFlux")] == [
        i for i, _ in answers(GrepTool("grep", plain), "QuantumFlux")
    ]
    assert len(answers(tool, "QuantumFlux")) == 2
    # Hidden folders are searched by ripgrep but not watched: a file changed there is found
    # at once, with no event and no walk (the walk above is remembered: nothing changed since).
    assert (
        "files_narrowed"
        in tool.retrieve(ToolCall(tool="grep", query="QuantumFlux"), SCOPE_A).counters
    )
    (root / ".github" / "deep" / "ci.yml").write_text("run: quantumflux --check\n")
    assert "grep:.github/deep/ci.yml#L1" in [i for i, _ in answers(tool, "QuantumFlux")]
    watched.close_watches()


def test_the_index_is_the_files_ripgrep_would_read(tmp_path: Path) -> None:
    root = tmp_path / "ws" / "a"
    (root / "src").mkdir(parents=True)
    (root / "src" / "model.py").write_text("class PositionalIndexer2D:\n    pass\n")
    (root / "blob.bin").write_bytes(b"\x00PositionalIndexer2D")
    (root / ".env").write_text("PositionalIndexer2D=1\n")
    (root / ".config" / "sub").mkdir(parents=True)
    (root / ".config" / "sub" / "x.md").write_text("PositionalIndexer2D in a hidden folder\n")
    watched, _ = workspaces(tmp_path)
    tool = GrepTool("grep", watched, max_narrowed_share=1.0)
    tool.build(SCOPE_A)
    index = WordIndex(next((tmp_path / "idx" / "grep" / SCOPE_A.fingerprint()).glob("gen-*")))
    assert [e[1] for e in index.entries] == ["src/model.py"]

    def rows(literal: str) -> list[int]:
        return index.rows_for(literal).tolist()  # type: ignore[union-attr]

    assert rows("positionalindexer2d") == [0]
    assert rows("sitionalIndex") == [0]  # inside a word
    assert rows("class Positional") == [0]
    assert rows("lass Positional") == [0]  # the first run ends a word
    assert rows("class Positionalx") == []
    assert index.rows_for("é") is None and index.rows_for("::") is None  # no narrowing
    tree = walk([root], 1_000_000)
    assert tree.withheld == {"skipped_binary": 1, "skipped_sensitive_name": 1}
    assert tree.hidden == [[".config"]] and ".config/sub/x.md" not in tree.files[0]
    found = tool.retrieve(ToolCall(tool="grep", query="PositionalIndexer2D"), SCOPE_A)
    assert [e.id for e in found.evidence] == ["grep:.config/sub/x.md#L1", "grep:src/model.py#L1"]
    assert "files_narrowed" in found.counters
    watched.close_watches()


def test_narrowed_files_are_scanned_in_batches_with_the_same_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many narrowed files go to ripgrep in several runs (a command line has a limit); the
    lines, their order and the scan counters are those of a full scan."""
    import arr.tools.grep.engine as grep_engine

    rng = random.Random(11)
    make_tree(tmp_path / "ws" / "a", rng)
    watched, plain = workspaces(tmp_path)
    narrowed = GrepTool("grep", watched, max_matches_per_file=500, max_narrowed_share=1.0)
    narrowed.build(SCOPE_A)
    monkeypatch.setattr(grep_engine, "ENGINE_BATCH_FILES", 4)
    full = GrepTool("grep", plain, max_matches_per_file=500)
    for query in ["alpha", "torch.nn", "SEED", "sort_by x1", "beta_gamma adam-w"]:
        got = narrowed.retrieve(ToolCall(tool="grep", query=query, top_k=100), SCOPE_A)
        assert got.counters["files_narrowed"] > 4  # more than one batch
        assert [(e.id, e.snippet) for e in got.evidence] == answers(full, query), query
    watched.close_watches()


def test_word_look_ups_agree_with_a_scan_of_the_vocabulary(tmp_path: Path) -> None:
    """Start-of-word and whole-word runs are found by a binary search of the sorted words,
    the rows of many words gathered at once: both agree with scanning every word."""
    rng = random.Random(7)
    vocabulary = sorted(
        {"a", "a_", "ab", "abc", "abd", "b", "b0", "zz", "z_z"}
        | {"".join(rng.choice("ab_z0") for _ in range(rng.randint(1, 5))) for _ in range(300)}
    )
    root = tmp_path / "ws" / "a"
    root.mkdir(parents=True)
    for number in range(40):
        held = rng.sample(vocabulary, rng.randint(1, 40))
        (root / f"f{number}.txt").write_text(" ".join(held) + "\n", encoding="utf-8")
    watched, _ = workspaces(tmp_path)
    GrepTool("grep", watched).build(SCOPE_A)
    index = WordIndex(next((tmp_path / "idx" / "grep" / SCOPE_A.fingerprint()).glob("gen-*")))
    words = index.blob.split(b"\n")[1:-1]
    holders = {
        word: {r for r, e in enumerate(index.entries) if word.decode() in _words_of(root, e[1])}
        for word in words
    }
    for prefix in [w[:cut] for w in words for cut in range(1, len(w) + 1)] + [b"q", b"zzz"]:
        starting = index._words_starting(prefix, whole=False)
        assert starting is not None
        assert [words[n - 1] for n in starting.tolist()] == [
            w for w in words if w.startswith(prefix)
        ]
        whole = index._words_starting(prefix, whole=True)
        assert whole is not None
        assert [words[n - 1] for n in whole.tolist()] == [w for w in words if w == prefix]
        expected = set().union(*(holders[w] for w in words if w.startswith(prefix)))
        assert set(index._files_of(starting).tolist()) == expected
    watched.close_watches()


def _words_of(root: Path, relative: str) -> set[str]:
    return set((root / relative).read_text(encoding="utf-8").split())


def test_the_walk_keeps_the_index_verdicts_of_unchanged_files_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files without a text suffix are probed for a NUL once, at the build; a later walk opens
    only those whose size or mtime changed, and a changed file gets a fresh verdict."""
    import arr.tools.grep.word_index as prefilter

    root = tmp_path / "ws" / "a"
    root.mkdir(parents=True)
    (root / "header.h").write_text("int f(void);\n")
    (root / "blob.dat").write_bytes(b"\x00\x01binary")
    watched, _ = workspaces(tmp_path)
    GrepTool("grep", watched).build(SCOPE_A)
    index = WordIndex(next((tmp_path / "idx" / "grep" / SCOPE_A.fingerprint()).glob("gen-*")))
    probed: list[str] = []
    real = prefilter._looks_binary
    monkeypatch.setattr(
        prefilter, "_looks_binary", lambda path: probed.append(Path(path).name) or real(path)
    )
    tree = walk([root], 1_000_000, index.known)
    assert probed == [] and set(tree.files[0]) == {"header.h"}
    assert tree.withheld == {"skipped_binary": 1}
    (root / "blob.dat").write_text("now it is text\n")  # new size and mtime
    tree = walk([root], 1_000_000, index.known)
    assert probed == ["blob.dat"] and set(tree.files[0]) == {"header.h", "blob.dat"}
    assert tree.withheld == {}
    watched.close_watches()


def test_a_word_stage_reads_the_files_with_the_rarest_words_first(tmp_path: Path) -> None:
    """When the phrase is nowhere, the words are searched; with more candidate files than
    ``max_word_stage_files``, the files holding the rarest words are read, the rest counted
    (``files_ranked_out``) and the answer marked cut - within a sub-path too."""
    root = tmp_path / "ws" / "a"
    (root / "sub").mkdir(parents=True)
    for number in range(10):
        (root / f"c{number}.md").write_text(f"common line {number}\n")
    for number in range(4):
        (root / "sub" / f"s{number}.md").write_text(f"common in sub {number}\n")
    for number in range(2):
        (root / f"z{number}.md").write_text(f"zyzzyva alone {number}\n")
    (root / "both.md").write_text("common and zyzzyva together\n")
    watched, plain = workspaces(tmp_path)
    capped = GrepTool("grep", watched, max_word_stage_files=3, max_narrowed_share=1.0)
    capped.build(SCOPE_A)
    query = "common zyzzyva absentword"
    found = capped.retrieve(ToolCall(tool="grep", query=query, top_k=50), SCOPE_A)
    assert [e.location.path for e in found.evidence] == ["both.md", "z0.md", "z1.md"]
    assert found.counters["files_ranked_out"] == 14 and found.cut == "cap"
    # without a cap (or without an index) every file holding a word answers
    full = GrepTool("grep", plain).retrieve(ToolCall(tool="grep", query=query, top_k=50), SCOPE_A)
    assert len(full.evidence) == 17 and "files_ranked_out" not in full.counters
    # a sub-path is applied before the cap: three of the four files below it are read
    inside = capped.retrieve(ToolCall(tool="grep", query=query, top_k=50, path="sub"), SCOPE_A)
    assert len(inside.evidence) == 3 and inside.counters["files_ranked_out"] == 1
    assert all(e.location.path.startswith("sub/") for e in inside.evidence)
    watched.close_watches()


def test_the_word_stage_cap_is_a_positive_limit(tmp_path: Path) -> None:
    watched, _ = workspaces(tmp_path)
    with pytest.raises(ValueError, match="max_word_stage_files must be >= 1"):
        GrepTool("grep", watched, max_word_stage_files=0)
    watched.close_watches()


@pytest.mark.parametrize("seed", [4, 5])
def test_ranking_a_frequent_phrase_from_counts_answers_as_reading_every_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """Many lines of one phrase are ranked from per-file counts, and only the top files'
    lines read: the same evidence, cut and counters as reading every line - with per-file and
    engine caps, several roots, a sub-path, and lines that hold the phrase only under Unicode
    case folding (the Kelvin sign), which rank after all others."""
    import arr.tools.grep.query as grep_query
    from arr.tools.grep.lines import LineSearch

    rng = random.Random(seed)
    for root in ("a", "b"):
        for number in range(40):
            lines = []
            for _ in range(rng.randint(0, 14)):
                kind = rng.random()
                lines.append(
                    "x = Kelvin_scale(1)" if kind < 0.5 else
                    "x = \u212aelvin_scale(2)" if kind < 0.55 else
                    "nothing here"
                )  # fmt: skip
            folder = tmp_path / "ws" / root / ("sub" if number % 4 == 0 else "")
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"f{number}.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    workspace = Workspace(
        name="t",
        root=tmp_path / "ws",
        index_dir=tmp_path / "idx",
        memory_db=tmp_path / "m.sqlite3",
        scopes={"a": {"key": SCOPE_A, "roots": ["a", "b"]}},
    )

    def answer(tool: GrepTool, **call: object) -> tuple[object, ...]:
        found = tool.retrieve(ToolCall(tool="grep", query="kelvin", **call), SCOPE_A)
        counters = {k: v for k, v in found.counters.items() if k != "files_scanned"}
        return [(e.id, e.snippet) for e in found.evidence], found.cut, counters

    used = 0
    real_by_counts = LineSearch.by_counts
    for top_k in (1, 3, 10, 60, 100):
        for per_file in (1, 2, 5):
            for path in (None, "sub"):
                tool = GrepTool(
                    "grep", workspace, max_matches_per_file=per_file, max_engine_matches_per_file=6
                )
                call = {"top_k": top_k, "path": path}
                monkeypatch.setattr(grep_query, "COUNT_FIRST_ROWS", 10**9)
                every_line = answer(tool, **call)
                monkeypatch.setattr(grep_query, "COUNT_FIRST_ROWS", 3)
                calls: list[int] = []

                def counted(*args: object, _real=real_by_counts, _calls=calls) -> str:
                    _calls.append(1)
                    return _real(*args)

                monkeypatch.setattr(LineSearch, "by_counts", counted)
                assert answer(tool, **call) == every_line, (top_k, per_file, path)
                used += bool(calls)
    assert used >= 25  # the count path answered (nearly) every case


def test_the_walk_told_the_sources_walk_counts_as_it_does_alone(tmp_path: Path) -> None:
    """Files the indexes' walk just saw skip their checks and lstat in grep's walk: the
    counts, files, hidden folders and binary verdicts are those of a walk on its own."""
    import os

    root = tmp_path / "ws" / "a"
    (root / "src" / "deep").mkdir(parents=True)
    (root / ".hidden").mkdir()
    (root / "src" / "m.py").write_text("x = 1\n")
    (root / "src" / "deep" / "h.h").write_text("int f(void);\n")
    (root / "src" / "big.txt").write_text("y" * 5000)
    (root / "src" / "blob.dat").write_bytes(b"\x00\x01")
    (root / "src" / "image.png").write_bytes(b"png, no nul")
    (root / "src" / "id_rsa").write_text("key\n")
    (root / ".hidden" / "c.md").write_text("hidden\n")
    (root / "src" / "link.py").symlink_to(root / "src" / "m.py")
    os.mkfifo(root / "src" / "pipe")
    watched, _ = workspaces(tmp_path)
    files = watched.source_files(SCOPE_A)
    assert files  # the indexes' walk saw the plain files
    sources = {f.path: (f.size, f.mtime_ns) for f in files}
    alone = walk([root.resolve()], 4096)
    told = walk([root.resolve()], 4096, None, sources)
    assert told == alone
    assert alone.withheld == {
        "skipped_oversize": 1,
        "skipped_binary": 1,
        "skipped_sensitive_name": 1,
        "skipped_link": 1,
        "skipped_special_file": 1,
    }
    watched.close_watches()
