"""Domain models that cross stage boundaries: scopes, evidence, memories, plans, traces, results.

All are pydantic v2 models, frozen and ``extra="forbid"`` (STYLE principle 5): stages never mutate
what they receive, and anything that comes from outside (a plan, a gold file, a scope) is
validated field by field. Scope fields are compared byte-exactly and never normalised: a
``branch`` of ``"main "`` is refused rather than silently stripped.
"""

from __future__ import annotations

import functools
import hashlib
import json
import unicodedata
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, computed_field, field_validator

from arr.errors import ScopeError

SCOPE_FIELDS: tuple[str, ...] = (
    "team_id",
    "project_id",
    "repository",
    "branch",
    "experiment_environment",
)
MAX_SCOPE_FIELD_CHARS = 128
PLAN_VERSIONS: tuple[str, ...] = ("arr-router-v1", "arr-router-v2")
MAX_TOP_K = 100


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


_M = TypeVar("_M", bound=BaseModel)
_set = object.__setattr__


def trusted(cls: type[_M], values: dict[str, Any], private: dict[str, Any] | None = None) -> _M:
    """An instance built from values the program itself produced, every field given and of the
    right type (an index's own rows, a copy with one field changed): no validation, and none of
    ``model_construct``'s per-field default handling, which costs more than the search it serves
    on the hot path. Never for anything that comes from outside (plans, files, requests).
    ``private``: values kept on the instance and never serialised (an evidence chunk's whole
    text); replaced as a whole, never changed in place, so copies may share it."""
    obj = _new(cls)
    _set(obj, "__dict__", values)
    _set(obj, "__pydantic_fields_set__", set(values))
    _set(obj, "__pydantic_extra__", None)
    _set(obj, "__pydantic_private__", private)
    return obj


_new = object.__new__


def replaced(model: _M, **changes: Any) -> _M:
    """A copy of a trusted model with some fields changed (``model_copy(update=...)`` without
    its deep-copy machinery); the values must already have the fields' types. Private values
    (an evidence chunk's whole text, its query) travel with the copy."""
    return trusted(type(model), {**model.__dict__, **changes}, model.__pydantic_private__)


def _check_scope_value(value: str) -> str:
    if not value:
        raise ValueError("must be a non-empty string")
    if len(value) > MAX_SCOPE_FIELD_CHARS:
        raise ValueError(f"must be at most {MAX_SCOPE_FIELD_CHARS} characters, got {len(value)}")
    if value != value.strip():
        raise ValueError("must not start or end with whitespace")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs") for ch in value):
        raise ValueError("must not contain control, format or surrogate characters")
    return value


@functools.lru_cache(maxsize=4096)
def _fingerprint(fields: tuple[str, ...]) -> str:
    canonical = json.dumps(list(fields), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:24]


class ScopeKey(Frozen):
    """The five-field isolation key every request and every indexed item carries."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    team_id: str
    project_id: str
    repository: str
    branch: str
    experiment_environment: str

    @field_validator(*SCOPE_FIELDS)
    @classmethod
    def _valid_field(cls, value: str) -> str:
        return _check_scope_value(value)

    def fields(self) -> tuple[str, str, str, str, str]:
        return (
            self.team_id,
            self.project_id,
            self.repository,
            self.branch,
            self.experiment_environment,
        )

    # Byte-exact equality on the five fields, without pydantic's generic comparison: the
    # Router compares every candidate's scope with the request's, so this is a hot path.
    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        if other.__class__ is ScopeKey:
            return self.__dict__ == other.__dict__  # the five str fields, compared in C
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.fields())

    def fingerprint(self) -> str:
        """Stable, collision-resistant name for per-scope partitions (index folders)."""
        return _fingerprint(self.fields())

    def label(self) -> str:
        return "/".join(getattr(self, f) for f in SCOPE_FIELDS)


def resolve_scope(
    scope: ScopeKey | str | Mapping[str, str], named: Mapping[str, ScopeKey]
) -> ScopeKey:
    """A ScopeKey, the name of a configured scope, or a five-field mapping -> ScopeKey."""
    if isinstance(scope, ScopeKey):
        return scope
    if isinstance(scope, str):
        if scope not in named:
            more = f"... ({len(scope)} characters)" if len(scope) > 100 else ""
            shown = repr(scope[:100]) + more
            raise ScopeError(f"unknown scope {shown}; known scopes: {sorted(named)[:50]}")
        return named[scope]
    try:
        return ScopeKey.model_validate(dict(scope))
    except (ValidationError, TypeError, ValueError) as exc:
        if isinstance(exc, ValidationError):
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])[:100] or "scope"
            raise ScopeError(f"malformed scope field {where!r}: {first['msg'][:200]}") from None
        raise ScopeError(f"malformed scope: {str(exc)[:300]}") from None


def _anchor_number(anchor: str | None, kind: str) -> int | None:
    if anchor is None or not anchor.startswith(kind + "="):
        return None
    number = anchor[len(kind) + 1 :]
    return int(number) if number.isdigit() else None


class Location(Frozen):
    """Where a piece of evidence comes from: a file line range, a memory or a document."""

    path: str | None = None
    start_line: int | None = Field(default=None, ge=1)
    end_line: int | None = Field(default=None, ge=1)
    memory_id: str | None = None
    document_id: str | None = None
    # a unit of a file read by a reader (arr.readers): "page=7" (a PDF's page, as viewers
    # count), "cell=3" (a notebook's cell index, from 0), a BibTeX entry's key
    anchor: str | None = None
    title: str | None = None  # the unit's heading, or the paper's title
    # the place as a researcher cites it: "Ongaro & Ousterhout 2014, p. 3" (arr.readers.citation)
    citation: str | None = None
    # where the paper's title, authors and year came from, and its identifiers: ``title:
    # layout; authors: bib; year: arxiv; doi: 10.1145/357172.357176`` (arr.readers.identity)
    identity: str | None = None

    @property
    def page(self) -> int | None:
        """The PDF page this place is (``page=7`` -> 7), else None: the one reading of the
        anchor's page for every step that asks."""
        return _anchor_number(self.anchor, "page")

    @property
    def cell(self) -> int | None:
        """The notebook cell this place is (``cell=3`` -> 3), else None."""
        return _anchor_number(self.anchor, "cell")

    @property
    def unit_kind(self) -> str | None:
        """What kind of a file's unit this place is: ``page``, ``cell``, ``entry`` (a
        bibliography's record, anchored by its key), ``lines`` (a line range of a text file);
        None for memories and documents of a collection."""
        if self.anchor is None:
            return "lines" if self.path is not None and self.start_line is not None else None
        kind = self.anchor.partition("=")[0]
        return kind if kind in ("page", "cell") and "=" in self.anchor else "entry"

    def render(self) -> str:
        """``a.py:10-20``, ``papers/x.pdf p. 7``, ``nb.ipynb cell 3``, ``refs.bib#goyal2017``."""
        if self.memory_id is not None:
            return f"memory:{self.memory_id}"
        where = self.path or self.document_id or "?"
        anchor = self.anchor
        if anchor is not None:
            kind, _, number = anchor.partition("=")
            if kind == "page" and number:
                return f"{where} p. {number}"
            if kind == "cell" and number:
                return f"{where} cell {number}"
            return f"{where}#{anchor}"
        if self.start_line is not None:
            return f"{where}:{self.start_line}-{self.end_line or self.start_line}"
        return where

    def ref(self) -> str | None:
        """The place as a link names it: ``papers/x.pdf#page=7``, ``nb.ipynb#cell=3``,
        ``refs.bib#goyal2017``, ``a.py#L10-20``; None for a memory."""
        if self.path is None:
            return None
        if self.anchor is not None:
            return f"{self.path}#{self.anchor}"
        if self.start_line is not None:
            return f"{self.path}#L{self.start_line}-{self.end_line or self.start_line}"
        return self.path


class EvidenceChunk(Frozen):
    """One ranked piece of evidence; ``ranks`` holds its 1-based rank in each channel."""

    id: str
    scope: ScopeKey
    channel: str
    location: Location
    snippet: str
    score: float
    ranks: dict[str, int] = Field(default_factory=dict)
    rerank_score: float | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def highlights(self) -> tuple[tuple[int, int], ...]:
        """(start, end) character spans of the query's terms in ``snippet`` (arr.query.snippets):
        computed when read or serialised, not on the search path (the Router marks each
        returned item with its query, ``for_query``)."""
        private = self.__pydantic_private__
        query = private.get("query") if private else None
        if not query:
            return ()
        from arr.query.snippets import highlights

        return highlights(self.snippet, query)

    def for_query(self, query: str) -> EvidenceChunk:
        """This item, marked with the query its ``highlights`` are of (set once, by the
        Router, on the items of one answer)."""
        _set(self, "__pydantic_private__", {**(self.__pydantic_private__ or {}), "query": query})
        return self

    def with_text(self, text: str) -> EvidenceChunk:
        """This item (just built by its channel), keeping the whole text its snippet was cut
        from: the reranker reads it, nothing serialises it (not in JSON, not in traces). A
        channel building trusted items passes ``private={"text": ...}`` to ``trusted``."""
        _set(self, "__pydantic_private__", {**(self.__pydantic_private__ or {}), "text": text})
        return self

    def with_place(self, place: str) -> EvidenceChunk:
        """This line item (just built by grep), marked with the id of the indexed unit that
        holds it (a PDF's page, a notebook's cell, a LaTeX section's chunk): fusion and the
        gold judge it as that place (arr.fusion.places)."""
        _set(self, "__pydantic_private__", {**(self.__pydantic_private__ or {}), "place": place})
        return self

    def place(self) -> str | None:
        private = self.__pydantic_private__
        return private.get("place") if private else None

    def full_text(self) -> str:
        """The whole chunk when its channel kept it (bm25, vector), else the snippet."""
        private = self.__pydantic_private__
        text = private.get("text") if private else None
        return text if text is not None else self.snippet


MemoryStatus = Literal["draft", "published", "retracted"]


class ResearchMemory(Frozen):
    id: str = Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]*$")
    scope: ScopeKey
    title: str = Field(min_length=1, max_length=500)
    body: str = Field(min_length=1, max_length=100_000)
    tags: tuple[str, ...] = ()
    status: MemoryStatus = "draft"
    version: int = Field(default=1, ge=1)
    created_at: datetime
    updated_at: datetime
    provenance: str = ""


class ToolCall(Frozen):
    """A proposed call. A plan can name a tool, a query and a depth: never scope, roots or paths."""

    tool: str = Field(min_length=1, max_length=64)
    query: str = Field(min_length=1, max_length=2000)
    top_k: int | None = Field(default=None, ge=1, le=MAX_TOP_K)
    # grep only: a sub-path relative to the scope's roots, and regex (instead of literal) mode.
    path: str | None = Field(default=None, min_length=1, max_length=512)
    regex: bool = False
    # grep only: the query as one phrase, word for word; a miss adds nothing (no fallback over
    # its words). How a copied sentence is looked up: a natural question sent so finds nothing.
    phrase: bool = False


class ToolRound(Frozen):
    calls: tuple[ToolCall, ...] = Field(min_length=1)


class QueryPlan(Frozen):
    version: Literal["arr-router-v1", "arr-router-v2"] = "arr-router-v2"
    tool_rounds: tuple[ToolRound, ...] = Field(min_length=1)


class Freshness(Frozen):
    fresh: bool
    code: str = "fresh"
    detail: str = ""


FRESH = Freshness(fresh=True)


class ToolTrace(Frozen):
    round: int
    tool: str
    status: str  # "ok" | "empty" | "error" | "rejected"
    code: str
    candidates: int = 0
    elapsed_ms: float = 0.0
    # Channel counters, e.g. grep's files_scanned, skipped_<reason>, matches.
    counters: dict[str, int] = Field(default_factory=dict)
    note: str = ""


class Rejection(Frozen):
    round: int
    tool: str
    code: str
    detail: str = ""


class Degradation(Frozen):
    stage: str
    code: str
    detail: str = ""


class RouterResult(Frozen):
    query: str
    scope: ScopeKey
    planner: str
    plan: QueryPlan | None
    evidence: tuple[EvidenceChunk, ...]
    traces: tuple[ToolTrace, ...]
    rejections: tuple[Rejection, ...]
    degradations: tuple[Degradation, ...]
    partial: bool
    scope_dropped: int = 0
    scope_leak_count: int = 0
    reranker: str = ""
    elapsed_ms: float = 0.0
