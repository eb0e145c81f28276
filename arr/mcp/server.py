"""``arr serve``: ARR as a Model Context Protocol server for agents (official ``mcp`` SDK).

One warm RetrievalRouter serves every request; the server is one more front door, never a way
around the Router: every search goes through the same admission, scope checks and reason codes
as ``arr search``. Tools (all read-only):

- ``search(query, scope, tools?, top_k?)`` -> the RouterResult as structured content, its
  evidence cut to the ``top_k`` best items (default 10) with short snippets centred on the
  match (``omitted_evidence`` counts the rest); ``tools`` picks channels, never the size;
- ``list_scopes()`` -> the scopes this server may answer for, with their five fields;
- ``index_status(scope?)`` -> fresh/stale per channel and scope;
- ``memory_get(id, scope)`` -> one *published* research memory of that scope.

``--scope A --scope B`` pins the server to those scopes at start: a request for any other scope
is refused (``scope_not_allowed``), whatever the client sends. Bad input and refusals come back
as MCP tool errors whose text is exactly ``{"error": {"code", "message"}}`` with a fixed code
(an unknown argument or a wrong type is ``bad_request`` naming the tool's fields); the server
keeps serving. Transport: stdio (what agent clients launch) or streamable HTTP on a
loopback address only.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field, ValidationError

from arr import codes
from arr.codes import (  # noqa: E402 (the service's codes, by the names its callers use)
    BAD_REQUEST,
    INTERNAL_ERROR,
    NOT_FOUND,
    QUERY_INVALID,
    SCOPE_INVALID,
    SCOPE_NOT_ALLOWED,
    UNKNOWN_TOOL,
)
from arr.errors import (
    ArrError,
    ConfigError,
    MemoryStoreError,
    QueryError,
    ScopeError,
    is_whole_number_in,
)
from arr.mcp.errors import ServiceError, argument_error, echo, type_error
from arr.mcp.schema import DEFAULT_TOP_K, MAX_TOP_K, SCOPE_NAME_TEXT, search_fields
from arr.models import QueryPlan, ScopeKey, ToolCall, ToolRound
from arr.router.admission import check_query
from arr.router.router import RetrievalRouter
from arr.tools.contract import HoldsMemory, has, workspace_of
from arr.workspace.opening import add_openings, scope_roots

SNIPPET_CHARS = 240  # an agent reads ~10 items: a few lines each, centred on the match
LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")


def _for_agent(answer: dict[str, Any], query: str, top_k: int) -> dict[str, Any]:
    """The ``top_k`` best items, each snippet cut to a few lines around its match."""
    from arr.query.snippets import centred, highlights

    evidence = answer.get("evidence") or []
    answer["evidence"] = evidence[:top_k]
    answer["omitted_evidence"] = max(0, len(evidence) - top_k)
    for item in answer["evidence"]:
        snippet = centred(str(item.get("snippet") or ""), query, SNIPPET_CHARS)
        item["snippet"] = snippet
        item["highlights"] = [list(span) for span in highlights(snippet, query)]
    return answer


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
                    SCOPE_NOT_ALLOWED, f"scope {echo(scope)} is not served by this server"
                )
            raise ServiceError(
                SCOPE_INVALID, f"unknown scope {echo(scope)}; scopes: {sorted(self.allowed)}"
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
        size = DEFAULT_TOP_K if top_k is None else top_k
        if not is_whole_number_in(size, 1, MAX_TOP_K):
            raise ServiceError(BAD_REQUEST, f"top_k must be in 1..{MAX_TOP_K}, got {echo(top_k)}")
        plan = None
        if tools:
            if len(tools) > self.router.max_calls:
                raise ServiceError(
                    BAD_REQUEST, f"at most {self.router.max_calls} tools, got {len(tools)}"
                )
            try:
                # Each channel searches at the planner's depth: top_k is the answer's size.
                calls = tuple(ToolCall(tool=t, query=query) for t in tools)
                plan = QueryPlan(tool_rounds=(ToolRound(calls=calls),))
            except ValueError as exc:
                raise ServiceError(BAD_REQUEST, f"invalid tools: {str(exc)[:300]}") from None
        self.router.new_run()  # each request a run of its own for an LLM stage's budget
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
        answer = json.loads(result.model_dump_json())
        roots = scope_roots(workspace_of(self.router.tools), result.scope)
        add_openings(answer, list(result.evidence), roots, str(query))
        return _for_agent(answer, str(query), size)

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
        memory_tool = next((t for t in self.router.tools.values() if has(t, HoldsMemory)), None)
        if memory_tool is None:
            raise ServiceError(BAD_REQUEST, "this server has no research-memory channel")
        from arr.memory.store import ResearchMemoryStore

        try:
            found = ResearchMemoryStore(memory_tool.db_path).get(memory_id)
        except MemoryStoreError as exc:
            # the store's own cause (disk_full, memory_db_locked, memory_db_corrupt, ...);
            # missing only when it says so
            raise ServiceError(exc.code or codes.MEMORY_DB_MISSING, str(exc)) from None
        # Drafts and retracted memories are never retrievable; another scope's look the same.
        if found is None or found.status != "published" or found.scope != key:
            raise ServiceError(NOT_FOUND, f"no published memory {echo(memory_id)} in this scope")
        from arr.memory.shown import shown_memory

        return json.loads(shown_memory(found).model_dump_json())

    def _name_of(self, key: ScopeKey) -> str:
        return next(n for n, k in self.allowed.items() if k == key)


def _server_class() -> Any:
    """The SDK's server class, with ARR's error contract (imported when a server is built)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    class ArrMCPServer(MCPServer):
        """The SDK's server, with ARR's error contract: every failed call's text is exactly
        ``{"error": {"code", "message"}}`` (the SDK prefixes its own words and passes pydantic
        text through), and an argument the tool does not take is refused, not ignored."""

        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            tool = self._tool_manager.get_tool(name)
            if tool is None:
                known = ", ".join(sorted(t.name for t in self._tool_manager.list_tools()))
                error = ServiceError(UNKNOWN_TOOL, f"unknown tool {echo(name)}; tools: {known}")
                raise ToolError(error.payload())
            fields = sorted((tool.parameters or {}).get("properties", {}))
            unknown = sorted(set(arguments) - set(fields))
            if unknown:
                raise ToolError(argument_error(name, fields, unknown).payload())
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                cause = exc.__cause__
                if isinstance(cause, ToolError):  # ARR's own payload, under the SDK's prefix
                    raise ToolError(str(cause)) from None
                if isinstance(cause, ValidationError):
                    raise ToolError(type_error(name, fields, cause).payload()) from None
                error = ServiceError(INTERNAL_ERROR, f"{name} failed; see the server's log")
                raise ToolError(error.payload()) from exc

    return ArrMCPServer


def build_server(service: ArrService) -> Any:
    """The MCP server object with ARR's four tools (each runs on a worker thread)."""
    from arr.version import __version__

    server = _server_class()(
        name="arr",
        version=__version__,
        instructions=(
            "ARR: local, read-only evidence retrieval over this workspace's scopes. Call "
            "list_scopes first; search returns the top_k (default 10) best evidence items with "
            "locations, plus the full trace."
        ),
        log_level="WARNING",
    )
    _add_tools(server, service)
    return server


def _add_tools(server: Any, service: ArrService) -> None:
    """The four read-only tools, each run on a worker thread; a refusal is a ToolError whose
    text is the error contract, and a bug never takes the server down."""
    import anyio
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import ToolAnnotations

    read_only = ToolAnnotations(readOnlyHint=True, destructiveHint=False, openWorldHint=False)

    async def run(function: Any, *args: Any) -> dict[str, Any]:
        try:
            return await anyio.to_thread.run_sync(function, *args)
        except ServiceError as exc:
            raise ToolError(exc.payload()) from None
        except Exception as exc:  # a bug must never take the server down
            error = ServiceError(INTERNAL_ERROR, f"{type(exc).__name__}: {str(exc)[:300]}")
            raise ToolError(error.payload()) from None

    async def search(
        query: str,
        scope: str | dict[str, str],
        tools: list[str] | None = None,
        top_k: int | None = None,
    ) -> dict[str, Any]:
        """Search one scope (a name from list_scopes, or its five fields). Optional tools
        (channels, e.g. ["bm25", "grep"]) and top_k (items returned, 1-100, default 10).
        A query that names a file or a line (pkg/a.py, pkg/a.py:120, a traceback line) gets
        that place first. Returns evidence, omitted_evidence, traces, rejections,
        degradations and partial."""
        return await run(service.search, query, scope, tools, top_k)

    # the schema an agent reads: every field described, ranges and names enumerated (checked
    # here by pydantic where the SDK allows; channel names by the Router, with its codes)
    search.__annotations__ = search_fields(sorted(service.router.tools))
    server.tool(annotations=read_only)(search)

    @server.tool(annotations=read_only)
    async def list_scopes() -> dict[str, Any]:
        """The scopes this server answers for and the retrieval channels it has."""
        return await run(service.list_scopes)

    @server.tool(annotations=read_only)
    async def index_status(
        scope: Annotated[str | None, Field(description=SCOPE_NAME_TEXT)] = None,
    ) -> dict[str, Any]:
        """Whether each channel's index is fresh, per scope (all served scopes by default)."""
        return await run(service.index_status, scope)

    @server.tool(annotations=read_only)
    async def memory_get(  # noqa: A002 - MCP arg name
        id: Annotated[str, Field(description="the memory's id, as search evidence names it")],
        scope: Annotated[str, Field(description=SCOPE_NAME_TEXT)],
    ) -> dict[str, Any]:
        """One published research memory of a scope, by id."""
        return await run(service.memory_get, id, scope)


def http_url(host: str, port: int) -> str:
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/mcp"


def check_listen(transport: str, host: str, port: int) -> None:
    """Refuse a bad transport, a non-loopback host or a port already in use before the
    router is built (minutes with a cold model), with one clear line."""
    import errno
    import socket

    if transport not in ("stdio", "http"):
        raise ConfigError(f"transport must be stdio or http, got {transport!r}")
    if transport != "http":
        return
    if host not in LOOPBACK_HOSTS:
        raise ConfigError(f"arr serve binds to loopback only (127.0.0.1, ::1), got {host!r}")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server will
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise ConfigError(
                    f"port {port} on {host} is already in use; choose another with --port"
                ) from None
            raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror}") from None


def serve(
    router: RetrievalRouter,
    pinned: list[str] | None,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
) -> None:
    import sys

    check_listen(transport, host, port)
    service = ArrService(router, pinned)
    server = build_server(service)
    scopes = ", ".join(sorted(service.allowed))
    if transport == "stdio":  # stdout is the protocol: the start line goes to stderr
        print(f"arr serve: MCP over stdio; scopes: {scopes}", file=sys.stderr, flush=True)
        server.run("stdio")
        return
    print(
        f"arr serve: MCP over streamable HTTP at {http_url(host, port)}; scopes: {scopes}; "
        "Ctrl-C stops",
        file=sys.stderr,
        flush=True,
    )
    try:
        server.run("streamable-http", host=host, port=port)
    except SystemExit as exc:  # uvicorn exits when it cannot bind (taken since the check)
        if exc.code not in (0, None):
            raise ConfigError(f"cannot listen on {host}:{port} (taken since start?)") from None
