"""What the Router asks of a planner beyond ``plan``: one that plans after seeing evidence
offers ``next_round``; a stage that calls a model holds its ``client``, whose call budget is per
run (``new_run``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

from arr.models import Degradation, EvidenceChunk, ToolRound


@runtime_checkable
class PlansRounds(Protocol):
    def next_round(
        self, query: str, tools: Mapping[str, str], evidence: Sequence[EvidenceChunk]
    ) -> tuple[ToolRound | None, Degradation | None]: ...


@runtime_checkable
class RunBudget(Protocol):
    def new_run(self) -> None: ...


@runtime_checkable
class CallsModel(Protocol):
    client: RunBudget
