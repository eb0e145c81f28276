"""The bm25 channel on a real bm25s index in a temporary workspace."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from arr import codes
from arr.models import SCOPE_FIELDS, QueryPlan, ScopeKey, ToolCall
from arr.tools.bm25 import BM25Tool, make_tokenizer
from arr.tools.partition import current_generation
from arr.workspace.workspace import Workspace
from tests.conftest import SCOPE_A, file_workspace, make_router

TEXT = "Linear warmup over 2000 steps removed the loss spikes.\nscheduler.warmup_steps: 2000\n"


def workspace(tmp_path: Path, scopes: dict[str, ScopeKey], chunk_lines: int = 40) -> Workspace:
    return file_workspace(
        tmp_path,
        scopes,
        {"notes/warmup.md": TEXT, "notes/other.md": "nothing about schedules here\n"},
        chunk_lines,
    )


def call(query: str) -> ToolCall:
    return ToolCall(tool="bm25", query=query)


def test_tokenizer_keeps_and_splits_identifiers() -> None:
    tokens = make_tokenizer(None)("scheduler.warmup_steps gradCheckpointing")
    assert {
        "warmup_steps",
        "warmup",
        "steps",
        "gradcheckpointing",
        "grad",
        "checkpointing",
        "scheduler",
    } <= set(tokens)


def test_build_search_and_freshness(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = BM25Tool("bm25", ws)
    assert tool.freshness(SCOPE_A).code == codes.INDEX_MISSING
    manifest = tool.build(SCOPE_A)
    assert manifest["documents"] == 2 and manifest["arr_version"]
    assert tool.freshness(SCOPE_A).fresh
    hits = tool.retrieve(call("warmup loss spikes"), SCOPE_A)
    assert [h.id for h in hits] == ["doc:notes/warmup.md#L1"]
    assert hits[0].location.path == "notes/warmup.md" and hits[0].location.end_line == 2
    assert hits[0].scope == SCOPE_A and hits[0].score > 0
    assert tool.retrieve(call("zebra unicorn"), SCOPE_A) == []
    # An edit makes the index stale; a rebuild makes it fresh again.
    target = ws.root / "a" / "notes" / "warmup.md"
    target.write_text(TEXT + "new line\n")
    os.utime(target, ns=(time.time_ns() + 10**9, time.time_ns() + 10**9))
    assert tool.freshness(SCOPE_A).code == codes.INDEX_STALE
    tolerant = BM25Tool("bm25", ws, freshness_tolerance_s=3600)
    assert tolerant.freshness(SCOPE_A).fresh
    tool.build(SCOPE_A)
    assert tool.freshness(SCOPE_A).fresh


def test_stale_index_without_refresh_is_a_degradation_with_its_fix(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = BM25Tool("bm25", ws)
    tool.build(SCOPE_A)
    (ws.root / "a" / "notes" / "added.md").write_text("warmup again\n")
    result = make_router(tool, refresh_max_files=0, scopes={"a": SCOPE_A}).search("warmup", SCOPE_A)
    assert [r.code for r in result.rejections] == [codes.INDEX_STALE]
    assert result.evidence == ()
    assert result.partial is True
    stale = [d for d in result.degradations if d.code == codes.INDEX_STALE]
    assert stale and stale[0].stage == "bm25"
    assert "arr index scope=a" in stale[0].detail


def test_stale_index_is_refreshed_incrementally_before_the_search(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = BM25Tool("bm25", ws)
    first = tool.build(SCOPE_A)
    assert first["files_reread"] == first["files"]
    (ws.root / "a" / "notes" / "added.md").write_text("zanzibar appears only here\n")
    result = make_router(tool).search("zanzibar", SCOPE_A)
    assert result.rejections == () and result.partial is False
    assert [e.id for e in result.evidence] == ["doc:notes/added.md#L1"]
    assert (tool.index_dir / SCOPE_A.fingerprint() / "overlay.json").is_file()
    manifest = tool.build(SCOPE_A)  # folds the overlay in: only the new file is read
    assert manifest["files_reread"] == 1
    assert not (tool.index_dir / SCOPE_A.fingerprint() / "overlay.json").exists()
    assert tool.build(SCOPE_A)["files_reread"] == 0
    trace = next(t for t in result.traces if t.tool == "bm25")
    assert trace.counters.get("refresh_us", 0) > 0


def test_refresh_is_refused_when_too_many_files_changed(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = BM25Tool("bm25", ws)
    tool.build(SCOPE_A)
    for number in range(3):
        (ws.root / "a" / "notes" / f"new{number}.md").write_text("zanzibar\n")
    result = make_router(tool, refresh_max_files=2).search("zanzibar", SCOPE_A)
    assert [r.code for r in result.rejections] == [codes.INDEX_STALE]
    assert "more than 2 files" in result.rejections[0].detail
    assert result.partial is True


def dense_files(ws: Workspace, count: int) -> None:
    """Files of distinct words (~0.3 s each to tokenize here)."""
    import random

    draw = random.Random(7)
    for number in range(count):
        lines = (" ".join(f"w{draw.getrandbits(40):x}" for _ in range(100)) for _ in range(600))
        (ws.root / "a" / "notes" / f"dump{number}.md").write_text("\n".join(lines) + "\n")


def test_a_refresh_longer_than_the_deadline_stops_at_it_beside_the_search(tmp_path: Path) -> None:
    """Files too many or too large to read and tokenize in a search's time (issue 62: 12.5x
    the deadline): the search answers by its deadline without the channel, saying so; the
    refresh, which checks the deadline, stops at it and writes nothing (it would take the
    interpreter from the search's calls); a search without a deadline refreshes it."""
    from tests.machine_speed import slowness

    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = BM25Tool("bm25", ws)
    tool.build(SCOPE_A)
    dense_files(ws, 6)
    deadline_ms = 200
    router = make_router(tool, deadline_ms=deadline_ms)
    started = time.perf_counter()
    result = router.search("warmup", SCOPE_A)
    took = time.perf_counter() - started
    stale = [d for d in result.degradations if d.code == codes.INDEX_STALE]
    assert stale and "deadline" in stale[0].detail and result.partial
    assert took < deadline_ms / 1000 * 1.1 + 0.2 * slowness()
    time.sleep(0.5)  # the refresh beside it has stopped: nothing written
    assert not (tool.index_dir / SCOPE_A.fingerprint() / "overlay.json").exists()
    fresh = make_router(tool).search("warmup", SCOPE_A)  # no deadline: refreshed inline
    assert fresh.partial is False and fresh.evidence
    assert (tool.index_dir / SCOPE_A.fingerprint() / "overlay.json").is_file()


def test_a_refresh_inside_a_deadline_stops_at_it_and_writes_nothing(tmp_path: Path) -> None:
    from arr.deadline import OutOfTime, within

    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = BM25Tool("bm25", ws)
    tool.build(SCOPE_A)
    dense_files(ws, 3)
    with within(time.perf_counter() + 0.05), pytest.raises(OutOfTime, match="changed files"):
        tool.refresh(SCOPE_A, 200)
    assert not (tool.index_dir / SCOPE_A.fingerprint() / "overlay.json").exists()
    assert tool.refresh(SCOPE_A, 200)  # no deadline: to the end
    assert (tool.index_dir / SCOPE_A.fingerprint() / "overlay.json").is_file()


@pytest.mark.parametrize("field", SCOPE_FIELDS)
def test_identical_text_never_crosses_scopes(tmp_path: Path, field: str) -> None:
    other = ScopeKey(**{**SCOPE_A.model_dump(), field: getattr(SCOPE_A, field) + "2"})
    ws = workspace(tmp_path, {"a": SCOPE_A, "b": other})
    tool = BM25Tool("bm25", ws)
    tool.build(SCOPE_A)
    tool.build(other)
    for scope in (SCOPE_A, other):
        hits = make_router(tool).search("warmup loss spikes", scope).evidence
        assert hits and all(h.scope == scope for h in hits)
    # A scope with no partition of its own sees nothing, never a neighbour's index.
    stranger = ScopeKey(**{**SCOPE_A.model_dump(), field: "stranger"})
    result = make_router(tool).search("warmup", stranger)
    assert result.evidence == () and [r.code for r in result.rejections] == [codes.INDEX_MISSING]


def test_corrupt_index_is_a_degradation(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = BM25Tool("bm25", ws)
    tool.build(SCOPE_A)
    generation = current_generation(tool.index_dir, SCOPE_A)
    (generation / "documents.jsonl").write_text("{not json")
    fresh_tool = BM25Tool("bm25", ws)
    result = make_router(fresh_tool).search(
        "warmup",
        SCOPE_A,
        plan=QueryPlan.model_validate(
            {"tool_rounds": [{"calls": [{"tool": "bm25", "query": "warmup"}]}]}
        ),
    )
    assert [d.code for d in result.degradations] == [codes.INDEX_CORRUPT]


def test_rebuild_swaps_generations_and_cleans_up(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = BM25Tool("bm25", ws)
    tool.build(SCOPE_A)
    first = current_generation(tool.index_dir, SCOPE_A)
    tool.retrieve(call("warmup"), SCOPE_A)  # loaded (memory-mapped) from the first generation
    tool.build(SCOPE_A)
    second = current_generation(tool.index_dir, SCOPE_A)
    assert first != second and first.exists()  # kept one more build for late readers
    (second.parent / "gen-1-99999").mkdir()  # an orphan left by a crashed build
    tool.build(SCOPE_A)
    third = current_generation(tool.index_dir, SCOPE_A)
    generations = sorted(p.name for p in third.parent.iterdir() if p.name.startswith("gen-"))
    assert generations == sorted([second.name, third.name])
    assert tool.retrieve(call("warmup"), SCOPE_A)[0].id == "doc:notes/warmup.md#L1"


def test_chunking_keeps_line_ranges(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A}, chunk_lines=1)
    tool = BM25Tool("bm25", ws)
    tool.build(SCOPE_A)
    hit = tool.retrieve(call("scheduler.warmup_steps"), SCOPE_A)[0]
    assert (hit.id, hit.location.start_line, hit.location.end_line) == (
        "doc:notes/warmup.md#L2",
        2,
        2,
    )


def test_symlinks_and_sensitive_files_are_not_indexed(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    secret = tmp_path / "outside.md"
    secret.write_text("warmup secret outside the root\n")
    (ws.root / "a" / "link.md").symlink_to(secret)
    (ws.root / "a" / ".env").write_text("WARMUP_TOKEN=abc\n")
    (ws.root / "a" / "id_rsa.txt").write_text("warmup key material\n")
    tool = BM25Tool("bm25", ws)
    tool.build(SCOPE_A)
    ids = [h.id for h in tool.retrieve(call("warmup secret key token"), SCOPE_A)]
    assert ids == ["doc:notes/warmup.md#L1"]


def test_overlay_answers_like_a_rebuild(tmp_path: Path) -> None:
    """Edits, additions and deletions served from the overlay rank as a full rebuild does."""
    ws = workspace(tmp_path, {"a": SCOPE_A})
    notes = ws.root / "a" / "notes"
    for number in range(8):
        (notes / f"n{number}.md").write_text(f"alpha beta note {number}\n" + "gamma\n" * number)
    tool = BM25Tool("bm25", ws)
    tool.build(SCOPE_A)
    (notes / "n3.md").write_text("alpha alpha delta epsilon\n")
    (notes / "n5.md").unlink()
    (notes / "new.md").write_text("epsilon zeta alpha\n")
    router = make_router(tool)
    queries = ["alpha", "epsilon", "gamma beta", "zeta", "note 5"]
    served = {q: [(e.id, e.score) for e in router.search(q, SCOPE_A).evidence] for q in queries}
    assert (tool.index_dir / SCOPE_A.fingerprint() / "overlay.json").is_file()
    assert not any("n5.md" in i for hits in served.values() for i, _ in hits)
    tool.build(SCOPE_A)
    rebuilt = {q: [(e.id, e.score) for e in router.search(q, SCOPE_A).evidence] for q in queries}
    for query in queries:
        # Same ranking; scores differ a little until the rebuild (the generation's own rows
        # keep the statistics they were built with).
        assert [i for i, _ in served[query]] == [i for i, _ in rebuilt[query]], query


def test_overlay_is_seen_by_another_process_and_ignored_when_stale(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = BM25Tool("bm25", ws)
    tool.build(SCOPE_A)
    (ws.root / "a" / "notes" / "late.md").write_text("wombat\n")
    assert tool.refresh(SCOPE_A, max_changed_files=10)
    other = BM25Tool("bm25", ws)  # a new process reads the overlay from disk
    assert other.freshness(SCOPE_A).fresh
    assert [e.id for e in other.retrieve(call("wombat"), SCOPE_A)] == ["doc:notes/late.md#L1"]
    (ws.root / "a" / "notes" / "later.md").write_text("wombat again\n")
    assert other.freshness(SCOPE_A).code == codes.INDEX_STALE  # the overlay is behind
    overlay_file = tool.index_dir / SCOPE_A.fingerprint() / "overlay.json"
    overlay_file.write_text("{damaged")
    assert BM25Tool("bm25", ws).freshness(SCOPE_A).code == codes.INDEX_STALE  # never wrong


def test_scores_are_bm25s_own_with_repeated_query_terms(tmp_path: Path) -> None:
    """A long query that repeats a term is scored as bm25s scores it (term frequency kept)."""
    ws = workspace(tmp_path, {"a": SCOPE_A})
    notes = ws.root / "a" / "notes"
    for number in range(6):
        (notes / f"n{number}.md").write_text(("alpha " * number) + f"beta gamma {number}\n")
    tool = BM25Tool("bm25", ws)
    tool.build(SCOPE_A)
    query = "alpha alpha alpha beta gamma gamma"
    ours = {e.id: e.score for e in tool.retrieve(call(query), SCOPE_A)}
    partition = tool.loaded(SCOPE_A)
    tokens = [t for t in tool.tokenize(query) if t in partition.retriever.vocab_dict]
    rows, scores = partition.retriever.retrieve([tokens], k=6, show_progress=False, n_threads=0)
    reference = {
        partition.documents[r].id: s
        for r, s in zip(rows[0].tolist(), scores[0].tolist(), strict=True)
        if s > 0
    }
    assert ours.keys() == reference.keys()
    for key, value in reference.items():
        assert ours[key] == pytest.approx(value, rel=1e-5)


def test_score_kernel_equals_bm25s_bit_for_bit(tmp_path: Path) -> None:
    """The channel's scoring (ndarray views, one add.at) gives bm25s' float32 scores exactly,
    for every document, on queries with repeated, rare, common and unknown terms."""
    import random

    import numpy as np

    ws = workspace(tmp_path, {"a": SCOPE_A})
    notes = ws.root / "a" / "notes"
    rng = random.Random(7)
    words = [f"w{i}" for i in range(300)]
    for number in range(120):
        text = " ".join(rng.choice(words[: rng.randint(5, 300)]) for _ in range(rng.randint(1, 80)))
        (notes / f"d{number}.md").write_text(text + "\n")
    tool = BM25Tool("bm25", ws)
    tool.build(SCOPE_A)
    partition = tool.loaded(SCOPE_A)
    vocab = partition.retriever.vocab_dict
    for _ in range(200):
        query = " ".join(rng.choice(words + ["unknownterm"]) for _ in range(rng.randint(1, 12)))
        ids = [vocab[t] for t in tool.tokenize(query) if t in vocab]
        ours = partition.scores(ids)
        reference = partition.retriever.get_scores_from_ids(ids)
        assert ours.dtype == reference.dtype
        assert np.array_equal(ours, reference), query


def test_caches_stay_bounded_over_many_rebuilds(tmp_path: Path) -> None:
    """A long-lived router sees a generation per rebuild; its caches keep only the newest."""
    from arr.tools.bm25 import MAX_CACHED_GENERATIONS

    ws = workspace(tmp_path, {"a": SCOPE_A})
    tool = BM25Tool("bm25", ws)
    target = ws.root / "a" / "notes" / "warmup.md"
    for number in range(60):
        target.write_text(f"warmup note {number}\n")
        tool.build(SCOPE_A)
        assert tool.freshness(SCOPE_A).fresh
        assert tool.retrieve(call(f"note {number}"), SCOPE_A)
    assert len(tool._cache.manifests) <= MAX_CACHED_GENERATIONS
    assert len(tool._cache.entries) <= MAX_CACHED_GENERATIONS
    assert len(tool._loaded) == 1 and len(tool._cache.pointers) == 1


def test_chunks_are_read_by_row_not_loaded_whole(tmp_path: Path) -> None:
    """A loaded partition reads only the rows a search ranks (by byte offset); a row damaged
    in place is index_corrupt for the search that needs it; a generation without the offsets
    file (older builds) still loads whole."""
    from arr.tools.bm25.documents import DOCS_OFFSETS_FILE, LazyDocuments

    ws = workspace(tmp_path, {"a": SCOPE_A})
    notes = ws.root / "a" / "notes"
    for number in range(50):
        (notes / f"n{number}.md").write_text(f"topic{number} shared words here\n")
    tool = BM25Tool("bm25", ws)
    tool.build(SCOPE_A)
    documents = tool.loaded(SCOPE_A).documents
    assert isinstance(documents, LazyDocuments) and len(documents) == 52
    assert len(documents._cache) == 0  # nothing parsed at load
    found = tool.retrieve(call("topic7"), SCOPE_A)
    assert [e.location.path for e in found] == ["notes/n7.md"]
    assert 0 < len(documents._cache) < 52

    generation = current_generation(tool.index_dir, SCOPE_A)
    raw = (generation / "documents.jsonl").read_bytes()
    start = raw.index(b'"notes/n9.md"')
    damaged = raw[:start] + b"#" * 13 + raw[start + 13 :]  # same length: offsets still fit
    (generation / "documents.jsonl").write_bytes(damaged)
    result = make_router(BM25Tool("bm25", ws)).search(
        "topic9",
        SCOPE_A,
        plan=QueryPlan.model_validate(
            {"tool_rounds": [{"calls": [{"tool": "bm25", "query": "topic9"}]}]}
        ),
    )
    assert [d.code for d in result.degradations] == [codes.INDEX_CORRUPT]

    (generation / "documents.jsonl").write_bytes(raw)
    (generation / DOCS_OFFSETS_FILE).unlink()
    whole = BM25Tool("bm25", ws)
    assert isinstance(whole.loaded(SCOPE_A).documents, list)
    assert [e.location.path for e in whole.retrieve(call("topic7"), SCOPE_A)] == ["notes/n7.md"]


def test_incremental_build_equals_a_full_build(tmp_path: Path) -> None:
    """Unchanged files' rows are copied from the previous generation as bytes (streamed, never
    parsed whole); the result must be the index a full build of the same tree makes."""
    files = {f"notes/n{i}.md": f"topic{i % 5} warmup note {i}\n" * (i % 7 + 1) for i in range(30)}
    files["notes/empty.md"] = "\n\n"  # no tokens: bm25s' padding token
    ws = file_workspace(tmp_path, {"a": SCOPE_A}, files, chunk_lines=3)
    incremental = BM25Tool("bm25", ws)
    incremental.build(SCOPE_A)
    root = ws.root / "a" / "notes"
    (root / "n3.md").write_text("changed text about zanzibar warmup\n")
    (root / "n4.md").unlink()
    (root / "new.md").write_text("a new note on topic2 and zanzibar\n")
    manifest = incremental.build(SCOPE_A)
    assert manifest["files_reread"] == 2  # the changed and the added file only
    full_ws = ws.model_copy(update={"index_dir": tmp_path / "full-idx"})
    full = BM25Tool("bm25", full_ws)
    full_manifest = full.build(SCOPE_A)
    assert full_manifest["files_reread"] == full_manifest["files"]
    for key in ("documents", "avg_doc_len", "source_fingerprint"):
        assert manifest[key] == full_manifest[key]
    for query in ("zanzibar warmup", "topic2", "warmup note 17", "topic4 topic1"):
        got = [(e.id, e.score) for e in incremental.retrieve(call(query), SCOPE_A)]
        want = [(e.id, e.score) for e in full.retrieve(call(query), SCOPE_A)]
        assert got == want and got


def test_sorted_vocabulary_answers_like_the_dict(tmp_path: Path) -> None:
    """The memory-mapped vocabulary (no JSON parse at load) maps every token as bm25s' dict
    does, UTF-8 byte order included, and knows nothing else."""
    import random

    from arr.tools.bm25.vocab import SortedVocabulary, write_vocabulary

    rng = random.Random(7)
    alphabet = "abcxyz_09éßΩ中"
    vocab = {"": 0}
    while len(vocab) < 3000:
        token = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 9)))
        vocab.setdefault(token, len(vocab))
    write_vocabulary(tmp_path, vocab)
    looked_up = SortedVocabulary(tmp_path)
    assert len(looked_up) == len(vocab)
    assert all(looked_up[token] == number for token, number in vocab.items())
    for _ in range(2000):
        probe = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 10)))
        assert looked_up.get(probe) == vocab.get(probe)
        assert (probe in looked_up) == (probe in vocab)


def test_evidence_keeps_the_whole_chunk_for_the_reranker(tmp_path: Path) -> None:
    """The snippet is a window around the best line; the reranker reads the whole chunk,
    which the JSON never carries."""
    body = ["weight_mask = build_mask(batch)"] + [
        f"step_{i} = schedule.advance({i})" for i in range(30)
    ]
    body.append("attention_bias = weight_mask.sum()")
    ws = file_workspace(tmp_path, {"a": SCOPE_A}, {"model.py": "\n".join(body) + "\n"}, 40)
    tool = BM25Tool("bm25", ws)
    tool.build(SCOPE_A)
    (hit,) = tool.retrieve(call("attention_bias"), SCOPE_A)
    assert "weight_mask = build_mask" not in hit.snippet  # 31 lines above the match
    assert hit.full_text().startswith("weight_mask = build_mask(batch)")
    assert "attention_bias = weight_mask.sum()" in hit.full_text()
    assert "build_mask" not in hit.model_dump_json()
