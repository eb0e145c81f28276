from __future__ import annotations

import json
from pathlib import Path

import pytest

from arr.eval.gold import EvalError, load_arr_gold, load_beir_gold, load_qrels
from tests.conftest import SCOPE_A

MINI = Path(__file__).resolve().parent.parent / "data" / "mini_beir"
NAMED = {"a": SCOPE_A}
GOOD = {"id": "q1", "scope": "a", "query": "warmup", "relevant": {"doc:x#L1": 2}}


def write(tmp_path: Path, *records: object) -> Path:
    path = tmp_path / "gold.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records))
    return path


def test_good_gold_and_list_form(tmp_path: Path) -> None:
    cases = load_arr_gold(
        write(tmp_path, GOOD, {**GOOD, "id": "q2", "relevant": ["a", "b"]}), NAMED
    )
    assert cases[0].scope == SCOPE_A and cases[1].relevant == {"a": 1, "b": 1}


@pytest.mark.parametrize(
    "bad, message",
    [
        pytest.param("{not json", "gold.jsonl:2", id="not-json"),
        pytest.param({k: v for k, v in GOOD.items() if k != "query"}, "query", id="missing-field"),
        pytest.param({**GOOD, "scope": "nowhere"}, "unknown scope", id="unknown-scope"),
        pytest.param(
            {**GOOD, "scope": {**SCOPE_A.model_dump(), "branch": " x"}}, "branch", id="bad-scope"
        ),
        pytest.param({**GOOD, "relevant": {}}, "at least one", id="no-relevant"),
        pytest.param(
            {**GOOD, "candidates": ["other"]},
            "not among the candidates",
            id="relevant-not-candidate",
        ),
        pytest.param({**GOOD, "surprise": 1}, "surprise", id="unknown-field"),
        pytest.param(GOOD, "duplicate case id", id="duplicate-id"),
    ],
)
def test_bad_gold_lines_name_file_and_line(tmp_path: Path, bad: object, message: str) -> None:
    with pytest.raises(EvalError, match=message) as info:
        load_arr_gold(write(tmp_path, GOOD, bad), NAMED)
    assert "gold.jsonl:2" in str(info.value)


def test_beir_loader_drops_metadata_and_unjudged_queries() -> None:
    cases = load_beir_gold(MINI, "test", SCOPE_A)
    assert [(c.id, c.relevant) for c in cases] == [("1", {"d1": 1}), ("2", {"d2": 1})]
    assert all("SECRET_LABEL" not in c.model_dump_json() for c in cases)
    assert "CONTRADICT" not in "".join(c.query for c in cases)


def test_bad_qrels_header_and_duplicate_corpus_ids(tmp_path: Path) -> None:
    bad = tmp_path / "qrels.tsv"
    bad.write_text("query\tdoc\n1\td1\t1\n")
    with pytest.raises(EvalError, match="qrels.tsv:1: expected the header"):
        load_qrels(bad)
    collection = tmp_path / "beir"
    (collection / "qrels").mkdir(parents=True)
    (collection / "corpus.jsonl").write_text('{"_id": "d1"}\n{"_id": "d1"}\n')
    (collection / "queries.jsonl").write_text('{"_id": "1", "text": "q"}\n')
    (collection / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n1\td1\t1\n")
    with pytest.raises(EvalError, match="corpus.jsonl:2: duplicate corpus id 'd1'"):
        load_beir_gold(collection, "test", SCOPE_A)


def test_judged_places_map_items_to_files_and_ranges() -> None:
    from arr.eval.runner import judged_places
    from arr.models import EvidenceChunk, Location
    from tests.conftest import SCOPE_A

    def at(cid: str, path: str | None, start: int = 0, end: int = 0, memory: str | None = None):
        return EvidenceChunk(
            id=cid, scope=SCOPE_A, channel="x", snippet="", score=1.0,
            location=Location(path=path, start_line=start or None, end_line=end or None,
                              memory_id=memory),
        )  # fmt: skip

    evidence = [
        at("doc:a.py#L1", "a.py", 1, 40),
        at("grep:a.py#L90", "a.py", 90, 90),
        at("mem:m", None, memory="m"),
        at("doc:b.py#L41", "b.py", 41, 80),
        at("doc:b.py#L1", "b.py", 1, 40),
    ]
    relevant = {"b.py#L10-12": 1, "a.py": 1}
    assert judged_places(evidence, relevant) == ["a.py", "mem:m", "b.py", "b.py#L10-12"]
