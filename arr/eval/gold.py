"""Gold sets: ARR's own JSONL, and BEIR test collections (corpus, queries, qrels).

ARR JSONL, one case per line::

    {"id": "q01", "scope": "vision-main" | {five fields}, "query": "...",
     "relevant": {"doc:notes/a.md#L1": 2, "mem:x": 1} | ["doc:...", ...],
     "candidates": ["..."]}          # optional: the pool the relevant ids must belong to

File level (``eval.level: file``, e.g. ``eval=tree``): the relevant ids are paths relative to
the scope's root, optionally with a line range (``src/a.py``, ``src/a.py#L10-20``); a case may
leave ``scope`` out when the eval names one (``eval.scope``). Every evidence item is mapped to
its place (the range it overlaps, else its file; a memory stays ``mem:<id>``), each place at
the rank of its first item (arr.eval.runner.judged_places).

BEIR: ``queries.jsonl`` (``_id``, ``text``; any ``metadata`` is dropped here and never reaches
the system), ``qrels/<split>.tsv`` with the header ``query-id corpus-id score``. Every problem
is an EvalError naming the file and line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from arr.errors import ArrError, ScopeError
from arr.models import ScopeKey, resolve_scope


class EvalError(ArrError):
    """A gold file, qrels file or collection is malformed."""


class GoldCase(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, max_length=200)
    scope: ScopeKey
    query: str = Field(min_length=1)
    relevant: dict[str, int]
    candidates: tuple[str, ...] | None = None

    @field_validator("relevant")
    @classmethod
    def _grades(cls, value: dict[str, int]) -> dict[str, int]:
        if not value:
            raise ValueError("needs at least one relevant id")
        if any(g < 0 for g in value.values()):
            raise ValueError("grades must be >= 0")
        return value


def _parse_line(
    raw: str, named: Mapping[str, ScopeKey], default_scope: ScopeKey | None = None
) -> GoldCase:
    record = json.loads(raw)
    if not isinstance(record, dict):
        raise ValueError("a case must be a JSON object")
    if "scope" not in record and default_scope is not None:
        record["scope"] = default_scope
    if "scope" not in record:
        raise ValueError("missing field 'scope'")
    record["scope"] = resolve_scope(record["scope"], named)
    if isinstance(record.get("relevant"), list):
        record["relevant"] = {doc: 1 for doc in record["relevant"]}
    case = GoldCase.model_validate(record)
    if case.candidates is not None:
        missing = sorted(set(case.relevant) - set(case.candidates))
        if missing:
            raise ValueError(f"relevant ids not among the candidates: {missing[:3]}")
    return case


def load_arr_gold(
    path: Path, named: Mapping[str, ScopeKey], default_scope: ScopeKey | None = None
) -> list[GoldCase]:
    if not path.is_file():
        raise EvalError(f"gold file {str(path)!r} does not exist")
    cases: list[GoldCase] = []
    seen: set[str] = set()
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        try:
            case = _parse_line(raw, named, default_scope)
        except (ValueError, ScopeError) as exc:
            message = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
            where = ""
            if isinstance(exc, ValidationError):
                where = ".".join(str(p) for p in exc.errors()[0]["loc"]) + ": "
            raise EvalError(f"{path}:{number}: {where}{message}") from None
        if case.id in seen:
            raise EvalError(f"{path}:{number}: duplicate case id {case.id!r}")
        seen.add(case.id)
        cases.append(case)
    if not cases:
        raise EvalError(f"gold file {str(path)!r} has no cases")
    return cases


def load_beir_queries(path: Path) -> dict[str, str]:
    """Query id -> text. Metadata (BEIR's evidence labels) is deliberately dropped."""
    queries: dict[str, str] = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
            qid, text = str(record["_id"]), str(record["text"])
        except (ValueError, KeyError, TypeError) as exc:
            raise EvalError(f"{path}:{number}: not a BEIR query ({exc})") from None
        if qid in queries:
            raise EvalError(f"{path}:{number}: duplicate query id {qid!r}")
        queries[qid] = text
    return queries


def load_qrels(path: Path) -> dict[str, dict[str, int]]:
    if not path.is_file():
        raise EvalError(f"qrels file {str(path)!r} does not exist")
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines or lines[0].split("\t") != ["query-id", "corpus-id", "score"]:
        raise EvalError(f"{path}:1: expected the header 'query-id<TAB>corpus-id<TAB>score'")
    qrels: dict[str, dict[str, int]] = {}
    for number, raw in enumerate(lines[1:], 2):
        if not raw.strip():
            continue
        parts = raw.split("\t")
        if len(parts) != 3 or not parts[2].lstrip("-").isdigit():
            raise EvalError(f"{path}:{number}: expected 'query-id<TAB>corpus-id<TAB>score'")
        qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
    return qrels


def check_unique_corpus_ids(path: Path) -> int:
    """Number of documents; a duplicate or malformed id is an EvalError naming its line."""
    seen: set[str] = set()
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        try:
            doc_id = str(json.loads(raw)["_id"])
        except (ValueError, KeyError, TypeError) as exc:
            raise EvalError(f"{path}:{number}: not a BEIR corpus record ({exc})") from None
        if doc_id in seen:
            raise EvalError(f"{path}:{number}: duplicate corpus id {doc_id!r}")
        seen.add(doc_id)
    return len(seen)


def load_beir_gold(directory: Path, split: str, scope: ScopeKey) -> list[GoldCase]:
    """Judged queries of one split as gold cases of the benchmark scope."""
    check_unique_corpus_ids(directory / "corpus.jsonl")
    queries = load_beir_queries(directory / "queries.jsonl")
    qrels = load_qrels(directory / "qrels" / f"{split}.tsv")
    missing = sorted(set(qrels) - set(queries))
    if missing:
        raise EvalError(
            f"{directory / 'qrels' / (split + '.tsv')}: query ids without a query "
            f"in queries.jsonl: {missing[:3]}"
        )
    return [
        GoldCase(id=qid, scope=scope, query=queries[qid], relevant=qrels[qid])
        for qid in sorted(qrels, key=lambda q: (len(q), q))
        if any(g > 0 for g in qrels[qid].values())
    ]
