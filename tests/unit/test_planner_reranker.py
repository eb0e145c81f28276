from __future__ import annotations

import pytest

from arr.planner.rule import RuleQueryPlanner
from arr.query.shape import query_shape
from arr.reranker.rule import RuleReranker, symbol_tokens
from tests.conftest import chunk

TOOLS = {"grep": "", "bm25": "", "vector": "", "memory": ""}


@pytest.mark.parametrize(
    "query, shape",
    [
        pytest.param("RuntimeError: CUDA out of memory", "lexical", id="error-text"),
        pytest.param("cosine_with_warmup", "lexical", id="snake-symbol"),
        pytest.param("buildTransforms", "lexical", id="camel-symbol"),
        pytest.param("src/train.py", "lexical", id="path"),
        pytest.param("scheduler.warmup_steps=2000", "lexical", id="config-key"),
        pytest.param("--grad-checkpointing", "lexical", id="flag"),
        pytest.param("why does warmup help large batch training", "semantic", id="question"),
        # Lexical-only routing needs strong evidence: prose stays hybrid.
        pytest.param("a trade-off--one that matters", "semantic", id="dash-not-flag"),
        pytest.param("the /input-output/ ratio of the model", "semantic", id="slashes-not-path"),
        pytest.param("and/or both", "semantic", id="and-or"),
        pytest.param("why does the loss become nan?", "semantic", id="question-error-word"),
        pytest.param("loss nan", "lexical", id="short-error-text"),
        pytest.param("train --epochs 3", "lexical", id="flag-after-space"),
        pytest.param("configs/model/vit.yaml", "lexical", id="nested-path"),
        pytest.param("./run.sh", "lexical", id="relative-path"),
        pytest.param("_prepare_4d_causal_attention_mask", "lexical", id="leading-underscore"),
        pytest.param("LlamaAttention", "lexical", id="class-name"),
        pytest.param("where is LlamaAttention defined", "mixed", id="class-in-question"),
        pytest.param("FoxO3a activation in neuronal death is inhibited", "mixed", id="gene"),
        pytest.param("rotary", "lexical", id="single-word"),
        pytest.param("Does IL-6 drive inflammation in COVID patients", "semantic", id="prose"),
        # A code token inside a sentence: hybrid plus grep, not lexical-only.
        pytest.param("Add all the edges in ebunch_to_add.", "mixed", id="snake-in-sentence"),
        pytest.param(
            "Return the density of the graph with this creation_sequence.", "mixed", id="doc-line"
        ),
        pytest.param("How is config.model.hidden_size used in training?", "mixed", id="key-in-q"),
        pytest.param("model.fit(x, y) raises KeyError: 'lr' on resume", "lexical", id="code-line"),
        pytest.param("batch_size=256 CUDA out of memory", "lexical", id="oom-with-key"),
        pytest.param(
            "ValueError: could not broadcast input array from shape (3,) into (4,)",
            "lexical",
            id="long-error-text",
        ),
    ],
)
def test_query_shape(query: str, shape: str) -> None:
    assert query_shape(query) == shape


def test_mixed_queries_keep_hybrid_and_add_grep() -> None:
    plan = RuleQueryPlanner().plan("where is LlamaAttention defined", TOOLS).plan
    assert [c.tool for c in plan.tool_rounds[0].calls] == ["vector", "bm25", "memory", "grep"]


def test_rule_plan_channels() -> None:
    planner = RuleQueryPlanner()
    lexical = planner.plan("KeyError: 'lr'", TOOLS).plan.tool_rounds[0].calls
    assert [c.tool for c in lexical] == ["grep", "bm25"]
    semantic = planner.plan("why does warmup help", TOOLS).plan.tool_rounds[0].calls
    assert [c.tool for c in semantic] == ["vector", "bm25", "memory"]
    only_memory = planner.plan("ValueError", {"memory": ""}).plan.tool_rounds[0].calls
    assert [c.tool for c in only_memory] == ["memory"]


def test_reranker_is_deterministic_and_documented() -> None:
    evidence = [
        chunk("a", snippet="nothing relevant"),
        chunk("b", snippet="we set warmup_steps to 2000"),
        chunk("c", snippet="also nothing"),
    ]
    reranker = RuleReranker()
    first = reranker.rerank("warmup_steps", evidence)
    assert [c.id for c in first] == ["b", "a", "c"]
    assert first == reranker.rerank("warmup_steps", evidence)
    assert [c.score for c in first] == [evidence[1].score, evidence[0].score, evidence[2].score]
    assert symbol_tokens("set scheduler.warmup_steps and lr") == ["scheduler.warmup_steps"]


def test_reranker_agreement_bonus() -> None:
    agreed = chunk("z").model_copy(update={"ranks": {"bm25": 2, "memory": 1}})
    ranked = RuleReranker(agreement_weight=0.25).rerank("question", [chunk("a"), agreed])
    assert [c.id for c in ranked] == ["z", "a"] and ranked[0].rerank_score == 0.25
    # off by default (measured: it cost nDCG on every gold set, README "Fusion")
    assert [c.id for c in RuleReranker().rerank("question", [chunk("a"), agreed])] == ["a", "z"]


def test_reranker_symbol_bonus_only_for_look_ups() -> None:
    """In a sentence of prose an identifier is context, not the target: no symbol bonus."""
    evidence = [chunk("a", snippet="def f(G): pass"), chunk("b", snippet="for e in ebunch_to_add:")]
    look_up = RuleReranker().rerank("ebunch_to_add", evidence)
    assert [c.id for c in look_up] == ["b", "a"]
    prose = RuleReranker().rerank("Add all the edges in ebunch_to_add.", evidence)
    assert [c.id for c in prose] == ["a", "b"] and {c.rerank_score for c in prose} == {None}


def test_phrase_bonus_is_an_option() -> None:
    evidence = [chunk("a", snippet="other"), chunk("b", snippet="the loss spikes at step 10")]
    assert [c.id for c in RuleReranker().rerank("loss spikes", evidence)] == ["a", "b"]
    with_phrase = RuleReranker(phrase_weight=1.0).rerank("loss spikes", evidence)
    assert [c.id for c in with_phrase] == ["b", "a"]


def test_the_llm_rerankers_fallback_weights_are_the_rule_rerankers() -> None:
    from omegaconf import OmegaConf

    from arr.workspace.locations import CONF_DIR

    rule = OmegaConf.to_container(OmegaConf.load(CONF_DIR / "reranker" / "rule.yaml"))
    llm = OmegaConf.load(CONF_DIR / "reranker" / "llm.yaml")
    assert OmegaConf.to_container(llm.rule) == {k: v for k, v in rule.items() if k != "_target_"}
