"""``arr serve``: ARR as a Model Context Protocol server for agents (official ``mcp`` SDK).

One warm RetrievalRouter serves every request; the server is one more front door, never a way
around the Router: every search goes through the same admission, scope checks and reason codes
as ``arr search``. Tools (all read-only):

- ``search(query, scope, tools?, top_k?)`` -> the RouterResult as structured content;
- ``list_scopes()`` -> the scopes this server may answer for, with their five fields;
- ``index_status(scope?)`` -> fresh/stale per channel and scope;
- ``memory_get(id, scope)`` -> one *published* research memory of that scope.

``--scope A --scope B`` pins the server to those scopes at start: a request for any other scope
is refused (``scope_not_allowed``), whatever the client sends. Bad input and refusals come back
as MCP tool errors whose text is ``{"error": {"code", "message"}}`` with a fixed code; the
server keeps serving. Transport: stdio (what agent clients launch) or streamable HTTP on a
loopback address only.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from arr import codes
from arr.errors import ArrError, ConfigError, MemoryStoreError, QueryError, ScopeError
from arr.models import QueryPlan, ScopeKey, ToolCall, ToolRound
from arr.router.router import RetrievalRouter, check_query

SCOPE_NOT_ALLOWED = "scope_not_allowed"
SCOPE_INVALID = "scope_invalid"
QUERY_INVALID = "query_invalid"
BAD_REQUEST = "bad_request"
NOT_FOUND = "not_found"
MAX_ECHO = 200
LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")


class ServiceError(Exception):
    """A refusal or bad input, with the fixed code the client sees."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message[:1000]

    def payload(self) -> str:
        return json.dumps({"error": {"code": self.code, "message": self.message}})


def _echo(value: object) -> str:
    text = repr(value)
    return text if len(text) <= MAX_ECHO else text[:MAX_ECHO] + f"... ({len(text)} chars)"


class ArrService:
    """What the MCP tools do, independent of the transport (and testable without one)."""

    def __init__(self, router: RetrievalRouter, pinned: list[str] | None = None) -> None:
        unknown = sorted(set(pinned or ()) - set(router.scopes))
        if unknown:
            raise ConfigError(
                f"--scope {unknown[0][:80]!r} is not a scope of this workspace; "
                f"scopes: {sorted(router.scopes)}"
            )
        self.router = router
        self.allowed = {n: k for n, k in router.scopes.items() if not pinned or n in pinned}
        self._memory_lock = threading.Lock()

    # ---- scope -------------------------------------------------------------------------------
    def scope_key(self, scope: object) -> ScopeKey:
        """A scope name or five-field mapping -> an allowed ScopeKey, or a coded refusal."""
        if isinstance(scope, str):
            if scope in self.allowed:
                return self.allowed[scope]
            if scope in self.router.scopes:
                raise ServiceError(
                    SCOPE_NOT_ALLOWED, f"scope {_echo(scope)} is not served by this server"
                )
            raise ServiceError(
                SCOPE_INVALID, f"unknown scope {_echo(scope)}; scopes: {sorted(self.allowed)}"
            )
        if isinstance(scope, Mapping):
            try:
                key = ScopeKey.model_validate(dict(scope))
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"]) or "scope"
                raise ServiceError(
                    SCOPE_INVALID, f"malformed scope field {where[:60]!r}: {first['msg'][:200]}"
                ) from None
            if key in self.allowed.values():
                return key
            raise ServiceError(SCOPE_NOT_ALLOWED, "this scope is not served by this server")
        raise ServiceError(SCOPE_INVALID, "scope must be a scope name or a five-field object")

    # ---- tools -------------------------------------------------------------------------------
    def search(
        self,
        query: object,
        scope: object,
        tools: list[str] | None = None,
        top_k: int | None = None,
    ) -> dict[str, Any]:
        key = self.scope_key(scope)
        try:
            check_query(query, self.router.max_query_chars)
        except QueryError as exc:
            raise ServiceError(QUERY_INVALID, str(exc)) from None
        if top_k is not None and not 1 <= top_k <= 100:
            raise ServiceError(BAD_REQUEST, f"top_k must be in 1..100, got {_echo(top_k)}")
        plan = None
        if tools:
            if len(tools) > self.router.max_calls:
                raise ServiceError(
                    BAD_REQUEST, f"at most {self.router.max_calls} tools, got {len(tools)}"
                )
            try:
                calls = tuple(ToolCall(tool=t, query=query, top_k=top_k) for t in tools)
                plan = QueryPlan(tool_rounds=(ToolRound(calls=calls),))
            except ValueError as exc:
                raise ServiceError(BAD_REQUEST, f"invalid tools: {str(exc)[:300]}") from None
        try:
            result = self.router.search(query, key, plan=plan)
        except QueryError as exc:
            raise ServiceError(QUERY_INVALID, str(exc)) from None
        except ScopeError as exc:
            raise ServiceError(SCOPE_INVALID, str(exc)) from None
        except ArrError as exc:
            raise ServiceError(BAD_REQUEST, str(exc)) from None
        if (
            tools
            and not result.evidence
            and result.rejections
            and not any(t.status != "rejected" for t in result.traces)
        ):
            # Every requested tool was refused by the Router: say so as an error, with codes.
            refused = ", ".join(f"{r.tool[:60]}: {r.code}" for r in result.rejections)
            code = result.rejections[0].code
            raise ServiceError(code, f"every requested tool was refused ({refused})")
        return json.loads(result.model_dump_json())

    def list_scopes(self) -> dict[str, Any]:
        return {
            "scopes": [
                {"name": name, "key": key.model_dump()}
                for name, key in sorted(self.allowed.items())
            ],
            "tools": self.router.tool_summaries(),
        }

    def index_status(self, scope: object = None) -> dict[str, Any]:
        names = sorted(self.allowed) if scope is None else [self._name_of(self.scope_key(scope))]
        status = []
        for name in names:
            key = self.allowed[name]
            for tool_name, tool in sorted(self.router.tools.items()):
                try:
                    fresh = tool.freshness(key)
                    row = {"fresh": fresh.fresh, "code": fresh.code, "detail": fresh.detail}
                except Exception as exc:
                    code = getattr(exc, "code", codes.FRESHNESS_UNKNOWN)
                    row = {"fresh": False, "code": code, "detail": str(exc)[:300]}
                status.append({"scope": name, "tool": tool_name, **row})
        return {"status": status}

    def memory_get(self, memory_id: object, scope: object) -> dict[str, Any]:
        key = self.scope_key(scope)
        if not isinstance(memory_id, str) or not memory_id or len(memory_id) > 200:
            raise ServiceError(BAD_REQUEST, "id must be a memory id of 1-200 characters")
        memory_tool = next((t for t in self.router.tools.values() if hasattr(t, "db_path")), None)
        if memory_tool is None:
            raise ServiceError(BAD_REQUEST, "this server has no research-memory channel")
        from arr.memory.store import ResearchMemoryStore

        try:
            found = ResearchMemoryStore(memory_tool.db_path).get(memory_id)
        except MemoryStoreError as exc:
            raise ServiceError(codes.MEMORY_DB_MISSING, str(exc)) from None
        # Drafts and retracted memories are never retrievable; another scope's look the same.
        if found is None or found.status != "published" or found.scope != key:
            raise ServiceError(NOT_FOUND, f"no published memory {_echo(memory_id)} in this scope")
        return json.loads(found.model_dump_json())

    def _name_of(self, key: ScopeKey) -> str:
        return next(n for n, k in self.allowed.items() if k == key)


def build_server(service: ArrService) -> Any:
    """The MCP server object with ARR's four tools (each runs on a worker thread)."""
    import anyio
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import ToolAnnotations

    from arr import __version__

    server = MCPServer(
        name="arr",
        version=__version__,
        instructions=(
            "ARR: local, read-only evidence retrieval over this workspace's scopes. Call "
            "list_scopes first; search returns evidence with locations plus the full trace."
        ),
        log_level="WARNING",
    )
    read_only = ToolAnnotations(readOnlyHint=True, destructiveHint=False, openWorldHint=False)

    async def run(function: Any, *args: Any) -> dict[str, Any]:
        try:
            return await anyio.to_thread.run_sync(function, *args)
        except ServiceError as exc:
            raise ToolError(exc.payload()) from None
        except Exception as exc:  # a bug must never take the server down
            error = ServiceError("internal_error", f"{type(exc).__name__}: {str(exc)[:300]}")
            raise ToolError(error.payload()) from None

    @server.tool(annotations=read_only)
    async def search(
        query: str,
        scope: str | dict[str, str],
        tools: list[str] | None = None,
        top_k: int | None = None,
    ) -> dict[str, Any]:
        """Search one scope (a name from list_scopes, or its five fields). Optional tools
        (e.g. ["bm25", "grep"]) and top_k. Returns evidence, traces, rejections,
        degradations and partial."""
        return await run(service.search, query, scope, tools, top_k)

    @server.tool(annotations=read_only)
    async def list_scopes() -> dict[str, Any]:
        """The scopes this server answers for and the retrieval channels it has."""
        return await run(service.list_scopes)

    @server.tool(annotations=read_only)
    async def index_status(scope: str | None = None) -> dict[str, Any]:
        """Whether each channel's index is fresh, per scope (all served scopes by default)."""
        return await run(service.index_status, scope)

    @server.tool(annotations=read_only)
    async def memory_get(id: str, scope: str) -> dict[str, Any]:  # noqa: A002 - MCP arg name
        """One published research memory of a scope, by id."""
        return await run(service.memory_get, id, scope)

    return server


def serve(
    router: RetrievalRouter,
    pinned: list[str] | None,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
) -> None:
    if transport not in ("stdio", "http"):
        raise ConfigError(f"transport must be stdio or http, got {transport!r}")
    if transport == "http" and host not in LOOPBACK_HOSTS:
        raise ConfigError(f"arr serve binds to loopback only (127.0.0.1, ::1), got {host!r}")
    server = build_server(ArrService(router, pinned))
    if transport == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host=host, port=port)
