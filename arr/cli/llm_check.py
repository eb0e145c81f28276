"""``arr llm check [overrides]``: one call to the configured endpoint, and what it said.

It builds the ``llm`` client exactly as a search with ``planner=llm`` would (the same endpoint
checks: a refused host or a missing key is the same one-line ConfigError, exit 2), sends one
short question asking for ``{"ok": true}`` (with the JSON schema when the config asks for
structured output), and prints the model the server answered as, the latency and token usage,
whether structured output worked, the call budget and the timeouts. A failed exchange (refused
connection, untrusted certificate, timeout, HTTP error) is one line with its fixed code, exit 1.
Nothing of the workspace is sent.
"""

from __future__ import annotations

import json
import time
from typing import Any

from arr.errors import ConfigError
from arr.llm.client import STRUCTURED_REFUSED, LLMClient, LLMError
from arr.llm.endpoint import is_loopback
from arr.llm.replies import parse_object

PROBE_SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
    "additionalProperties": False,
}
PROBE = [
    {"role": "system", "content": 'Reply with exactly one JSON object: {"ok": true}'},
    {"role": "user", "content": "Is this endpoint working? Answer as instructed."},
]


def probe(client: LLMClient) -> dict[str, Any]:
    """One exchange; what it showed (``error`` set when it failed)."""
    mode = client.structured_output
    notes: list[tuple[str, str]] = []
    started = time.perf_counter()
    facts: dict[str, Any] = {"structured_output_mode": mode}
    try:
        reply = client.chat(PROBE, schema=PROBE_SCHEMA, schema_name="check", notes=notes)
    except LLMError as exc:
        facts["error"] = {"code": exc.code, "detail": exc.detail}
        facts["latency_s"] = round(time.perf_counter() - started, 3)
        return facts
    facts["latency_s"] = round(time.perf_counter() - started, 3)
    facts["model_answered"] = client.last_model
    facts["usage"] = client.last_usage
    try:
        valid = isinstance(parse_object(reply, 2000).get("ok"), bool)
    except LLMError:
        valid = False
    facts["reply_valid_json"] = valid
    refused = [d for c, d in notes if c == STRUCTURED_REFUSED]
    if refused:
        facts["structured_output"] = f"refused by the server ({refused[0]}); plain instructions"
    elif mode == "none":
        facts["structured_output"] = "not asked (llm.structured_output=none)"
    else:
        facts["structured_output"] = f"{mode}: " + ("works" if valid else "reply not valid")
    return facts


def settings(client: LLMClient, router: dict[str, Any]) -> dict[str, Any]:
    key = (
        f"from ${client.api_key_env} (set)"
        if client.api_key_env
        else "none (a server on this machine)"
    )
    deadline = router.get("deadline_ms")
    share = router.get("plan_share", 0.5)
    return {
        "endpoint": client.base_url,
        "loopback": is_loopback(client.host),
        "model_configured": client.model,
        "api_key": key,
        "timeout_s": client.timeout_s,
        "max_calls_per_run": client.max_calls,
        "max_tokens": client.max_tokens,
        "router_deadline_ms": deadline,
        "planner_share_of_deadline": share if deadline else None,
    }


def text(facts: dict[str, Any]) -> str:
    lines = [
        f"endpoint: {facts['endpoint']}" + ("  (this machine)" if facts["loopback"] else ""),
        f"api key: {facts['api_key']}",
        f"model: {facts['model_configured']} configured"
        + (
            f"; the server answered as {facts['model_answered']}"
            if facts.get("model_answered")
            else ""
        ),
    ]
    usage = facts.get("usage") or {}
    tokens = (
        f" ({usage.get('prompt_tokens', '?')} prompt + {usage.get('completion_tokens', '?')} "
        "completion tokens)"
        if usage
        else ""
    )
    lines.append(f"latency: {facts['latency_s']:.2f} s{tokens}")
    if "structured_output" in facts:
        lines.append(f"structured output: {facts['structured_output']}")
    deadline = facts["router_deadline_ms"]
    lines.append(
        f"budget: {facts['max_calls_per_run']} calls per run (planner and reranker share it), "
        f"{facts['max_tokens']} tokens per reply; timeout {facts['timeout_s']} s per call; "
        + (
            f"search deadline {deadline} ms (the plan may take "
            f"{facts['planner_share_of_deadline']:.0%} of it)"
            if deadline
            else "no search deadline (router.deadline_ms=null)"
        )
    )
    return "\n".join(lines)


def run(args: list[str], workspace: str | None) -> tuple[int, str]:
    """(exit status, what to print); a ConfigError propagates (the CLI prints it, exit 2)."""
    from arr.compose.library import compose
    from arr.compose.runner import config_container, instantiate_stage

    as_json = "--json" in args or "output=json" in args
    if not args or args[0] != "check":
        raise ConfigError("usage: arr llm check [llm=local] [llm.base_url=...] [--json]")
    overrides = [a for a in args[1:] if a not in ("--json", "output=json")]
    config = config_container(compose("search", overrides, workspace))
    client = instantiate_stage(config.get("llm"), "llm")
    facts = {**settings(client, config.get("router") or {}), **probe(client)}
    if as_json:
        return (1 if "error" in facts else 0), json.dumps(facts, indent=2)
    if "error" in facts:
        error = facts["error"]
        return 1, f"arr: llm check failed: {error['code']}: {error['detail']} ({facts['endpoint']})"
    return 0, text(facts)
