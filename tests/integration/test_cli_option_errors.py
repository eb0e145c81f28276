"""Every option and override error of the ``arr`` command is one line naming the bad token and
the right form, never Hydra's parser exception or a constructor's type error; a query holding
``=`` is a query unless its key is the config's (issue 63). In process: ``arr.cli.main``."""

from __future__ import annotations

import json

import pytest

from arr.cli.main import main


@pytest.mark.parametrize(
    ("args", "says"),
    [
        pytest.param(["search", "paxos", "-x"], "unknown option '-x' for arr search", id="flag"),
        pytest.param(["search", "-nx", "paxos"], "unknown option '-nx'", id="n-no-number"),
        pytest.param(
            ["index", "-x"],
            "unknown option '-x' for arr index; its options: --lexical",
            id="index-flag",
        ),
        pytest.param(["llm", "check", "-x"], "unknown option '-x'", id="llm-check-flag"),
        pytest.param(
            ["index", "foo"], "'foo' is not an override: an override is key=value", id="bare-word"
        ),
        pytest.param(["search", "paxos", "loss"], "one query per search", id="two-words"),
        pytest.param(
            ["search", "paxos", "tools=[grep"],
            "cannot read the override 'tools=[grep'",
            id="unclosed-list",
        ),
        pytest.param(
            ["search", "paxos", "router.deadline_ms=abc"],
            "router.deadline_ms='abc' is not a whole number; write it as router.deadline_ms=10",
            id="text-deadline",
        ),
    ],
)
def test_one_line_naming_the_token(
    args: list[str], says: str, demo_overrides: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*args, "scope=vision-main", *demo_overrides]) == 2
    err = capsys.readouterr().err
    assert err.startswith("arr: error: ") and says in err, err
    assert len(err.strip().splitlines()) == 1
    assert "Exception" not in err and "not supported between" not in err


def test_a_query_with_an_equals_sign_is_the_query(
    demo_overrides: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    tools = "tools=[memory,grep]"  # no index needed
    assert main(["search", "x=1 loss", "scope=vision-main", tools, "--json", *demo_overrides]) == 0
    assert json.loads(capsys.readouterr().out)["query"] == "x=1 loss"
    assert (
        main(
            ["search", "-n2", "--json", "scope=vision-main", tools, *demo_overrides]
            + ["--", "top_k=3"]
        )
        == 0
    )
    answer = json.loads(capsys.readouterr().out)
    assert answer["query"] == "top_k=3" and len(answer["evidence"]) <= 2
