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
    ],
)
def test_options_in_any_position(args: list[str], expected: list[str]) -> None:
    assert search_options(args) == expected


@pytest.mark.parametrize("args", [["paxos", "-n"], ["paxos", "-n", "three"], ["--scope"]])
def test_a_flag_without_its_value_says_so(args: list[str]) -> None:
    with pytest.raises(ArrError, match="needs"):
        search_options(args)
