"""Token-aware passages: nothing longer than the budget, every word kept, ids map back."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arr.tools.passages import passage_id, split_unit, unit_of
from arr.workspace.sources import Document


def words(texts: list[str]) -> list[int]:
    """A stand-in tokenizer: one word piece per whitespace-separated word."""
    return [len(t.split()) for t in texts]


def doc(text: str, start: int | None = 1) -> Document:
    return Document(id="doc:a.py#L1", text=text, path="a.py", start_line=start, end_line=start)


def test_a_unit_that_fits_is_kept_as_it_is() -> None:
    unit = doc("one two three\nfour")
    assert split_unit(unit, words, budget=4) == [unit]


def test_long_units_become_passages_that_fit_at_line_boundaries() -> None:
    lines = [f"w{i} x{i} y{i}" for i in range(10)]  # 3 pieces a line, 30 in all
    parts = split_unit(doc("\n".join(lines)), words, budget=7, overlap=3)
    assert all(sum(words([p.text])) <= 7 for p in parts)
    assert [p.id for p in parts][:2] == ["doc:a.py#L1~p1", "doc:a.py#L1~p2"]
    assert parts[0].start_line == 1 and parts[0].end_line == 2
    assert parts[1].start_line == 2  # one line (3 pieces) carried over as overlap
    covered = {line for p in parts for line in p.text.split("\n")}
    assert covered == set(lines)
    assert {unit_of(p.id) for p in parts} == {"doc:a.py#L1"}


def test_a_line_longer_than_the_budget_is_cut_at_spaces() -> None:
    text = " ".join(f"t{i}" for i in range(25))
    parts = split_unit(doc(text, start=None), words, budget=10)
    assert [len(p.text.split()) for p in parts] == [10, 10, 5]
    assert " ".join(p.text for p in parts) == text


def test_unit_of_only_strips_passage_suffixes() -> None:
    assert unit_of(passage_id("12345", 3)) == "12345"
    assert unit_of("doc:notes/a~pb.md#L1") == "doc:notes/a~pb.md#L1"
    assert unit_of("12345") == "12345"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(["a", "bb", "ccc", "dd dd"]), max_size=30), max_size=40),
    st.integers(min_value=1, max_value=25),
    st.integers(min_value=0, max_value=10),
)
def test_no_passage_exceeds_the_budget_and_no_word_is_lost(
    rows: list[list[str]], budget: int, overlap: int
) -> None:
    text = "\n".join(" ".join(r) for r in rows)
    parts = split_unit(doc(text), words, budget, overlap)
    assert all(sum(words(p.text.split("\n"))) <= budget for p in parts)
    assert set(text.split()) <= {w for p in parts for w in p.text.split()}


@pytest.mark.model
def test_real_tokenizer_passages_fit_the_model() -> None:
    """With all-MiniLM-L6-v2's own tokenizer: every passage of long code and prose <= 254."""
    from arr.embedder.onnx import OnnxEmbedder

    embedder = OnnxEmbedder(quantize=False)
    rng = random.Random(4)
    vocab = ["attention_mask", "softmax(", "Transformer", "δ", "über", "x=1;", "naïve", "日本語"]
    text = "\n".join(
        " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 60))) for _ in range(80)
    )
    parts = split_unit(doc(text), embedder.token_counts, embedder.max_tokens, overlap=32)
    assert len(parts) > 1
    assert max(embedder.token_counts([p.text for p in parts])) <= embedder.max_tokens == 254
