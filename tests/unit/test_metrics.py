from __future__ import annotations

import math
import random

import pytest

from arr.eval.metrics import (
    average_precision,
    mrr_at,
    ndcg_at,
    precision_at,
    query_metrics,
    recall_at,
)
from arr.eval.stats import paired_t_test, randomization_test

QRELS = {"a": 2, "b": 1, "z": 1}
RANKED = ["x", "a", "y", "b"]


def test_metrics_by_hand() -> None:
    assert recall_at(RANKED, QRELS, 2) == pytest.approx(1 / 3)
    assert precision_at(RANKED, QRELS, 4) == pytest.approx(2 / 4)
    assert mrr_at(RANKED, QRELS, 10) == pytest.approx(1 / 2)
    assert mrr_at(RANKED, QRELS, 1) == 0.0
    # trec_eval's ndcg: gain = grade
    dcg = 2 / math.log2(3) + 1 / math.log2(5)
    idcg = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at(RANKED, QRELS, 10) == pytest.approx(dcg / idcg)
    # Burges' exponential gain 2^grade - 1
    dcg = (2**2 - 1) / math.log2(3) + (2**1 - 1) / math.log2(5)
    idcg = (2**2 - 1) / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at(RANKED, QRELS, 10, exponential=True) == pytest.approx(dcg / idcg)
    both = query_metrics(RANKED, QRELS, [10])
    assert both["ndcg@10"] != both["ndcg_burges@10"]
    binary = {"a": 1, "b": 1}
    assert ndcg_at(RANKED, binary, 10) == ndcg_at(RANKED, binary, 10, exponential=True)
    assert average_precision(RANKED, QRELS) == pytest.approx((1 / 2 + 2 / 4) / 3)


def test_no_relevant_documents_score_zero() -> None:
    assert query_metrics(["a"], {"a": 0}, [10])["ndcg@10"] == 0.0


def test_matches_ranx_on_random_runs() -> None:
    ranx = pytest.importorskip("ranx")
    rng = random.Random(7)
    docs = [f"d{i}" for i in range(40)]
    qrels, run, ours = {}, {}, {}
    for q in range(25):
        qid = f"q{q}"
        qrels[qid] = {d: rng.choice([0, 1, 2, 3]) for d in rng.sample(docs, rng.randint(1, 6))}
        ranked = rng.sample(docs, 30)
        run[qid] = {d: float(30 - i) for i, d in enumerate(ranked)}
        ours[qid] = query_metrics(ranked, qrels[qid], [5, 10])
    names = {
        "ndcg@10": "ndcg@10",
        "ndcg_burges@10": "ndcg_burges@10",
        "ndcg@5": "ndcg@5",
        "recall@10": "recall@10",
        "precision@5": "precision@5",
        "mrr@10": "mrr@10",
        "map": "map",
    }
    ranx_qrels = ranx.Qrels(qrels)
    reference = ranx.evaluate(ranx_qrels, ranx.Run(run), list(names.values()), return_mean=False)
    order = list(ranx_qrels.keys())  # ranx's own query order
    for ours_name, ranx_name in names.items():
        for i, qid in enumerate(order):
            assert ours[qid][ours_name] == pytest.approx(reference[ranx_name][i], abs=1e-9), (
                ours_name,
                qid,
            )


def test_randomization_test() -> None:
    same = [0.5, 0.2, 0.9, 0.4]
    assert randomization_test(same, same) == 1.0
    better = [x + 0.3 for x in same * 10]
    assert randomization_test(better, same * 10) < 0.01
    noisy = random.Random(1)
    a = [noisy.random() for _ in range(50)]
    b = [x + noisy.uniform(-0.01, 0.01) for x in a]
    assert randomization_test(a, b) > 0.05
    assert randomization_test(a, b) == randomization_test(a, b)  # fixed seed: reproducible
    assert paired_t_test(better, same * 10) < 0.01
    with pytest.raises(ValueError, match="differ in length"):
        randomization_test([1.0], [1.0, 2.0])


def test_trec_ids_are_one_field_and_read_back() -> None:
    from urllib.parse import unquote

    from arr.eval.report import trec_id, trec_lines

    for raw in ["doc:notes/a.md#L1", "doc:notes/my run.md#L41", "tab\there", "50%\u00a0off", "q 1"]:
        escaped = trec_id(raw)
        assert not any(c.isspace() for c in escaped) and unquote(escaped) == raw
    assert trec_id("doc:notes/a.md#L1") == "doc:notes/a.md#L1"
    lines = trec_lines([("q 1", ["doc:my file.md#L1", "mem:x"])], "arr")
    assert [line.split() for line in lines] == [
        ["q%201", "Q0", "doc:my%20file.md#L1", "1", "2", "arr"],
        ["q%201", "Q0", "mem:x", "2", "1", "arr"],
    ]


def test_grep_line_hits_are_judged_as_their_chunk() -> None:
    from arr.eval.runner import judged_ids
    from arr.models import EvidenceChunk, Location
    from tests.conftest import SCOPE_A

    def chunk(id_: str, channel: str, path: str | None = None, line: int | None = None):
        return EvidenceChunk(
            id=id_, scope=SCOPE_A, channel=channel, snippet="s", score=1.0,
            location=Location(path=path, start_line=line, end_line=line),
        )  # fmt: skip

    evidence = [
        chunk("grep:notes/a.md#L45", "grep", "notes/a.md", 45),
        chunk("doc:notes/a.md#L41", "bm25", "notes/a.md", 41),
        chunk("grep:notes/a.md#L3", "grep", "notes/a.md", 3),
        chunk("mem:x", "memory"),
    ]
    assert judged_ids(evidence, 40) == ["doc:notes/a.md#L41", "doc:notes/a.md#L1", "mem:x"]
    assert judged_ids(evidence, None)[0] == "grep:notes/a.md#L45"
