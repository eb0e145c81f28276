"""On the demo's real indexes and the real embedding model: a Chinese query on an English
folder gets the vector channel's nearest passages and says that no index holds its words
(``query_words_unknown``, a note in the text output); an English query does not."""

from __future__ import annotations

import json

import pytest

from arr.cli.main import main

pytestmark = [pytest.mark.slow, pytest.mark.model]
# "why did the loss suddenly rise", in words: the rule plan asks vector, bm25 and memory
QUERY = "为什么 损失 突然 上升"


@pytest.fixture
def indexed(demo_overrides: list[str]) -> list[str]:
    from arr.compose.indexing import index_workspace
    from arr.compose.library import compose
    from arr.compose.runner import build_tools, build_workspace, config_container

    overrides = [*demo_overrides, "embedder=onnx"]  # hashing vectors find nothing for it
    container = config_container(compose("index", overrides))
    workspace = build_workspace(container)
    tools = build_tools(container, workspace)
    index_workspace(workspace, tools, workspace.named_scopes(), progress=False)
    return overrides


def search(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["search", *args, "scope=vision-main"]) == 0
    return capsys.readouterr().out


def test_a_query_in_another_script_says_no_index_holds_its_words(
    indexed: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    answer = json.loads(search([QUERY, "--json", *indexed], capsys))
    assert answer["evidence"], "the vector channel still shows its nearest passages"
    (unknown,) = [d for d in answer["degradations"] if d["code"] == "query_words_unknown"]
    assert "(bm25 found none)" in unknown["detail"]
    assert "note: no index holds a word of the query" in search([QUERY, *indexed], capsys)
    english = json.loads(search(["warmup loss spike", "--json", *indexed], capsys))
    assert english["evidence"]
    assert [d for d in english["degradations"] if d["code"] == "query_words_unknown"] == []
