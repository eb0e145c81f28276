"""``arr search`` takes its options as rg and git users type them, in any position; ``key=value``
overrides still work and a Hydra flag's value is never taken for the query (issue 54)."""

from __future__ import annotations

import pytest

from arr.cli.arguments import search_options
from arr.errors import ArrError


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["paxos", "-n", "3", "--json"], ["query=paxos", "top_k=3", "output=json"]),
        (["--json", "paxos", "--limit", "3"], ["output=json", "query=paxos", "top_k=3"]),
        (["-n", "3", "paxos"], ["top_k=3", "query=paxos"]),
        (["--limit=5", "--scope", "papers", "x y"], ["top_k=5", "scope=papers", "query=x y"]),
        (["--scope=code", "paxos"], ["scope=code", "query=paxos"]),
        (["query=lr=3e-4", "top_k=2"], ["query=lr=3e-4", "top_k=2"]),
        (["--cfg", "job", "paxos"], ["--cfg", "job", "query=paxos"]),
        (["paxos", "fusion=rrf"], ["query=paxos", "fusion=rrf"]),
        (["-n2", "paxos"], ["top_k=2", "query=paxos"]),
        (["paxos", "-n=2"], ["query=paxos", "top_k=2"]),
        # a query holding "=" is the query unless its key is the config's (issue 63)
        (["x=1 loss", "-n", "3"], ["query=x=1 loss", "top_k=3"]),
        (["lr=3e-4"], ["query=lr=3e-4"]),
        (["batch_size=256 CUDA out of memory"], ["query=batch_size=256 CUDA out of memory"]),
        (["top_k=3", "paxos"], ["top_k=3", "query=paxos"]),
        (["fusion.norm=zmuv", "paxos"], ["fusion.norm=zmuv", "query=paxos"]),
        (
            ["paxos", "+tools=[grep]", "~router.deadline_ms"],
            ["query=paxos", "+tools=[grep]", "~router.deadline_ms"],
        ),
        # after --, the words are the query whatever they look like
        (["-n", "1", "--", "top_k=3", "-x"], ["top_k=1", "query=top_k=3 -x"]),
        # with the query given, a mistyped override stays one (Hydra names it, did you mean)
        (["paxos", "routr.max_calls=3"], ["query=paxos", "routr.max_calls=3"]),
    ],
)
def test_options_in_any_position(args: list[str], expected: list[str]) -> None:
    assert search_options(args) == expected


@pytest.mark.parametrize("args", [["paxos", "-n"], ["paxos", "-n", "three"], ["--scope"]])
def test_a_flag_without_its_value_says_so(args: list[str]) -> None:
    with pytest.raises(ArrError, match="needs"):
        search_options(args)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(
            ["paxos", "-x"],
            r"unknown option '-x' for arr search; its options: TEXT, -n N",
            id="unknown-flag",
        ),
        pytest.param(["-nx", "paxos"], r"unknown option '-nx'", id="n-without-a-number"),
        pytest.param(
            ["paxos", "loss"],
            r"one query per search, got 'paxos' and 'loss': quote",
            id="two-bare-words",
        ),
        pytest.param(["query=a", "b"], r"one query per search, got 'a' and 'b'", id="query-twice"),
        pytest.param(["paxos", "--", "loss"], r"one query per search", id="query-and-dashes"),
        pytest.param(["paxos", "--"], r"-- needs the query after it", id="dashes-alone"),
        pytest.param(
            ["routr.max_calls=3", "paxos"],
            r"'routr.max_calls=3' is no override: no config key is named 'routr'",
            id="mistyped-override-first",
        ),
    ],
)
def test_a_bad_option_is_named_with_the_right_form(args: list[str], message: str) -> None:
    with pytest.raises(ArrError, match=message):
        search_options(args)
