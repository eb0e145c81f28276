"""Every option of every config group, every recipe and every primary config composes and builds."""

from __future__ import annotations

from pathlib import Path

import pytest

from arr.compose.library import CONF_DIR, PIPELINES_DIR, PROJECT_ROOT, compose, load_router
from arr.compose.runner import build_router, check_targets, config_container
from arr.errors import ConfigError
from arr.router.router import RetrievalRouter

REPO = PROJECT_ROOT
STAGE_GROUPS = (
    "workspace",
    "planner",
    "tools",
    "fusion",
    "reranker",
    "router",
    "embedder",
    "vector_store",
    "eval",
)
MINI_BEIR = Path(__file__).resolve().parents[1] / "data" / "mini_beir"
MINI_TREE = Path(__file__).resolve().parents[1] / "data" / "mini_tree"
# Options whose scopes are not the demo's.
SCOPE_FOR = {
    "workspace=beir": "collection",
    "eval=beir": "collection",
    "workspace=local": "notes",
    "workspace=tree": "tree",
    "eval=tree": "tree",
}
PRIMARY = sorted(p.stem for p in CONF_DIR.glob("*.yaml") if p.stem != "base")


def options(group: str, root: Path = CONF_DIR) -> list[str]:
    return sorted(p.stem for p in (root / group).glob("*.yaml"))


CASES = [
    pytest.param(f"{g}={[o] if g == 'tools' else o}".replace("'", ""), id=f"{g}={o}")
    for g in STAGE_GROUPS
    for o in options(g)
]
CASES += [
    pytest.param(f"pipeline={o}", id=f"pipeline={o}") for o in options("pipeline", PIPELINES_DIR)
]


@pytest.mark.parametrize("override", CASES)
def test_every_option_composes_and_instantiates(
    override: str, demo_overrides: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # LLM stages need their key at config load; building them makes no request.
    monkeypatch.setenv("SILICONFLOW_API_KEY", "test-key-not-real")
    if "scifact" in override and not (REPO.parent / "shared" / "data" / "scifact").is_dir():
        pytest.skip("the SciFact collection (../shared/data/scifact) is not on this machine")
    primary = (
        "eval" if override.startswith(("eval=", "workspace=beir", "workspace=tree")) else "search"
    )
    extra = [f"scope={SCOPE_FOR.get(override, 'vision-main')}", *demo_overrides]
    if override in ("eval=beir", "workspace=beir"):
        extra += ["eval=beir", f"eval.collection={MINI_BEIR}"]
    if override in ("eval=tree", "workspace=tree"):
        extra += ["eval=tree", f"eval.collection={MINI_TREE}"]
    if override == "workspace=local":
        from arr.workspace.file import add_scope, init_workspace

        folder = tmp_path / "ws"
        (folder / "notes").mkdir(parents=True)
        init_workspace(folder, {})
        add_scope(folder, "notes", [str(folder / "notes")], {})
        extra += [f"paths.workspace_dir={folder}"]
    cfg = compose(primary, [override, *extra])
    router = build_router(config_container(cfg))
    assert isinstance(router, RetrievalRouter) and router.tools


@pytest.mark.parametrize("name", PRIMARY)
def test_every_primary_config_composes(name: str, demo_overrides: list[str]) -> None:
    container = config_container(compose(name, [*demo_overrides, "scope=vision-main"]))
    assert container["task_name"] == name
    build_router(container)


def test_recipe_changes_the_tool_set(demo_overrides: list[str]) -> None:
    router = load_router([*demo_overrides, "pipeline=bm25_only"], warm=False)
    assert sorted(router.tools) == ["bm25"]
    router = load_router([*demo_overrides, "tools=[memory]", "fusion.norm=zmuv"], warm=False)
    assert sorted(router.tools) == ["memory"] and router.fusion.norm == "zmuv"
    router = load_router(
        [*demo_overrides, "pipeline=hybrid_rrf", "fusion.rank_constant=30"], warm=False
    )
    assert router.fusion.name == "rrf" and router.fusion.rank_constant == 30


def test_default_fusion_and_reranker_are_the_measured_ones(demo_overrides: list[str]) -> None:
    """README "Fusion": floored min-max CombSUM, standout weights, the code-gap weight fitted
    on CoSQA dev (and said so); reranker with the symbol bonus only."""
    router = load_router(demo_overrides, warm=False)
    fusion = router.fusion
    assert (fusion.name, fusion.norm, fusion.weighting, fusion.code_gap_weight) == (
        "wsum",
        "min-max-floor",
        "standout",
        0.2,
    )
    assert "CoSQA dev" in fusion.fitted_on
    # on a tree: file support and file names, both chosen on the workspace gold sets
    assert (fusion.file_support, fusion.path_weight) == (0.5, 0.6)
    assert "path_weight 0.6: wsgold Sphinx" in fusion.fitted_on
    reranker = router.reranker
    assert (reranker.phrase_weight, reranker.symbol_weight, reranker.agreement_weight) == (
        0.0,
        0.5,
        0.0,
    )


@pytest.mark.parametrize(
    "overrides, message",
    [
        pytest.param(["planner=oracle"], "planner", id="unknown-option"),
        pytest.param(["tools=[bm25,teleport]"], "teleport", id="unknown-tool"),
        pytest.param(["router.max_calls=13"], "max_calls", id="budget-raised"),
        pytest.param(["fusion=rrf", "fusion.rank_constant=-5"], "rank_constant", id="bad-value"),
        pytest.param(["fusion.norm=softmax"], "norm must be one of", id="bad-norm"),
        pytest.param(
            ["fusion.path_weight=abc"],
            r"fusion.path_weight='abc' is not a number; write it as fusion.path_weight=0.6",
            id="text-for-a-number",
        ),
        pytest.param(
            ["router.deadline_ms=abc"],
            r"router.deadline_ms='abc' is not a whole number; write it as router.deadline_ms=10 "
            r"\(or router.deadline_ms=null\)",
            id="text-for-a-deadline",
        ),
        pytest.param(
            ["router.merge_places=maybe"],
            r"router.merge_places='maybe' is not true or false",
            id="text-for-a-flag",
        ),
        pytest.param(
            ["fusion.path_weight=11"], r"path_weight must be a number in \[0, 10\]", id="bad-path"
        ),
        pytest.param(
            ["fusion.file_support=-1"], r"file_support must be a number in \[0, 1\]", id="bad-sup"
        ),
        pytest.param(["nonsense_key=1"], "nonsense_key", id="unknown-key"),
        pytest.param(["tools=[]"], "no tools", id="no-tools"),
        pytest.param(["planner=llm"], "SILICONFLOW_API_KEY", id="llm-without-key"),
        pytest.param(["prompt=arr-router-v9"], "prompt", id="unknown-prompt-version"),
        pytest.param(
            ["planner=llm", "llm.base_url=http://api.example.com/v1"], "https", id="llm-plain-http"
        ),
        pytest.param(
            ["planner=llm", "llm.base_url=https://user:pw@api.example.com/v1"],
            "userinfo",
            id="llm-userinfo",
        ),
        pytest.param(
            ["planner=llm", "llm.base_url=https://10.0.0.7/v1"], "IP literal", id="llm-ip-literal"
        ),
    ],
)
def test_bad_config_is_one_clear_error(
    overrides: list[str],
    message: str,
    demo_overrides: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SILICONFLOW_API_KEY", raising=False)
    with pytest.raises(ConfigError, match=message) as info:
        load_router([*demo_overrides, *overrides], warm=False)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "target", ["os.system", "subprocess.Popen", "builtins.eval", "arrx.evil.Thing"]
)
def test_targets_outside_arr_are_refused(target: str, demo_overrides: list[str]) -> None:
    with pytest.raises(ConfigError, match="outside the arr package"):
        check_targets({"tools": {"bm25": {"_target_": target}}})
    cfg = compose("search", [*demo_overrides, f"tools.bm25._target_={target}"])
    with pytest.raises(ConfigError, match="outside the arr package"):
        build_router(config_container(cfg))


def test_a_stage_that_fails_to_build_is_named_with_its_first_meaningful_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An error whose message starts with blank lines (numpy's import errors do) still says
    what went wrong, never an empty detail."""
    import arr.fusion.rrf as rrf
    from arr.compose.runner import instantiate_stage

    class Loud(Exception):
        def __str__(self) -> str:
            return "\n\n  the real cause\nmore"

    def refuse(**_: object) -> None:
        raise Loud

    monkeypatch.setattr(rrf, "RRFFusion", refuse)
    with pytest.raises(ConfigError, match=r"cannot build fusion \(.*\): the real cause$"):
        instantiate_stage({"_target_": "arr.fusion.rrf.RRFFusion"}, "fusion")


@pytest.mark.parametrize("gold", ["eval=tree", "eval=scifact"])
def test_the_llm_planner_builds_under_every_eval_set(gold: str, tmp_path: Path) -> None:
    """The eval sets give every planner a depth (planner.top_k=100): the LLM planner takes it
    for calls the model gave none and for its fallback (it was a TypeError before)."""
    from arr.compose.runner import instantiate_stage

    extra = [f"eval.collection={tmp_path}"] if gold == "eval=tree" else []
    container = config_container(compose("eval", [gold, *extra, "planner=llm"]))
    planner = instantiate_stage(container["planner"], "planner", client=object())
    assert planner.top_k == 100
    plan = planner._fallback.plan("warmup loss spikes", {"bm25": "", "vector": ""}).plan
    assert {c.top_k for r in plan.tool_rounds for c in r.calls} == {100}
