"""The one LLM client: OpenAI-compatible chat completions over httpx, locked down.

Config group ``llm`` (``conf/llm/siliconflow.yaml`` is the default endpoint, ``conf/llm/local.yaml``
a llama.cpp, vLLM or Ollama server on this machine). Nothing here runs unless an LLM planner or
reranker is configured; with the default config ARR makes no network request at all. The
endpoint is checked when the config loads (arr.llm.endpoint: HTTPS, plain HTTP only to a
loopback host with ``allow_http_loopback``), and the API key read from the environment variable
the config names (never logged, never in an error; a loopback server may need none). Every
exchange: one wall-clock deadline covering connect, send and the whole body (a server that
drips bytes still times out), cut shorter by the search's own deadline when one is set,
redirects not followed, proxy environment variables ignored, TLS verified (``ca_bundle`` lets
tests trust a local CA), body capped, no retries but one (below), and a per-run budget of
calls shared by everything that holds this client.

Structured output by capability (``structured_output``): ``json_schema`` sends the caller's
JSON schema as the OpenAI ``response_format`` (llama.cpp's server, vLLM and Ollama decode
within it), ``json_object`` asks only for JSON, ``none`` sends plain instructions. A 400/422
that names the parameter (the server does not support it, or cannot compile the schema) is
asked once more without it, the client keeps to plain instructions from then on, and the
caller records ``llm_structured_output_unsupported``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import threading
import time
from typing import Any

from arr import codes
from arr.errors import ConfigError
from arr.llm.endpoint import check_allowed_host, check_endpoint, is_loopback
from arr.tools.base import seconds_left

__all__ = ["LLMClient", "LLMError", "check_allowed_host", "check_endpoint", "strict_loads"]


class LLMError(Exception):
    """An exchange failed; ``code`` is the fixed degradation code the caller records."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError(f"duplicate keys: {sorted({k for k in keys if keys.count(k) > 1})}")
    return dict(pairs)


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def strict_loads(text: str) -> Any:
    """JSON with duplicate keys, NaN and Infinity refused, and nothing after the value."""
    return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constants)


STRUCTURED_OUTPUT = ("none", "json_schema", "json_object")
STRUCTURED_REFUSED = codes.LLM_STRUCTURED_OUTPUT_UNSUPPORTED
# A 4xx body naming one of these refused the response_format, not the request.
_REFUSAL_WORDS = ("response_format", "json_schema", "schema", "grammar", "json_object")
ERROR_BODY_BYTES = 4096
MIN_EXCHANGE_S = 0.05  # less time than this left before the search's deadline: no call


def server_message(raw: bytes, secret: str) -> str:
    """The server's own error message, short, printable and with the API key removed (some
    servers echo the key they refused)."""
    text = raw.decode("utf-8", "replace")
    try:
        data = json.loads(text)
        error = data.get("error", data) if isinstance(data, dict) else data
        text = str(error.get("message", error) if isinstance(error, dict) else error)
    except ValueError:
        pass
    if secret:
        text = text.replace(secret, "[key]")
    text = " ".join(
        "".join(ch if ch.isprintable() and ch.isascii() else " " for ch in text).split()
    )
    return text[:160]


def _check_settings(
    host: str, api_key_env: str | None, timeout_s: float, max_calls: int, max_response_bytes: int
) -> None:
    """The client's own settings, each refused with its name before any call is made."""
    if importlib.util.find_spec("httpx") is None:
        raise ConfigError(
            "LLM stages need the llm extra: pip install 'agentic-research-retrieval[llm]'"
        )
    if api_key_env:
        if not os.environ.get(api_key_env):
            raise ConfigError(
                f"llm.api_key_env: environment variable {api_key_env!r} is not "
                "set; LLM planning or reranking needs the API key there"
            )
    elif not is_loopback(host):
        raise ConfigError(
            "llm.api_key_env names no variable; only a server on this machine "
            "(a loopback host) may be used without an API key"
        )
    if not 0 < timeout_s <= 300:
        raise ConfigError(f"llm.timeout_s must be in (0, 300], got {timeout_s}")
    if not 0 < max_calls <= 20:
        raise ConfigError(f"llm.max_calls must be in 1..20, got {max_calls}")
    if max_response_bytes < 1:
        raise ConfigError(f"llm.max_response_bytes must be >= 1, got {max_response_bytes}")


class LLMClient:
    def __init__(
        self,
        base_url: str,
        model: str,
        api_key_env: str | None,
        timeout_s: float = 20.0,
        max_response_bytes: int = 200_000,
        max_calls: int = 20,
        ca_bundle: str | None = None,
        allow_http_loopback: bool = False,
        temperature: float = 0.0,
        max_tokens: int = 800,
        allowed_hosts: list[str] | tuple[str, ...] | None = None,
        structured_output: str = "none",
        system_in_user: bool = False,
    ) -> None:
        self.scheme, self.host = check_endpoint(base_url, allow_http_loopback)
        check_allowed_host(self.host, allowed_hosts)
        _check_settings(self.host, api_key_env, timeout_s, max_calls, max_response_bytes)
        if structured_output not in STRUCTURED_OUTPUT:
            raise ConfigError(
                f"llm.structured_output must be one of {', '.join(STRUCTURED_OUTPUT)}, "
                f"got {structured_output!r}"
            )
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key_env = api_key_env or None
        self.timeout_s = timeout_s
        self.max_response_bytes = max_response_bytes
        self.max_calls = max_calls
        self.ca_bundle = ca_bundle
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.structured_output = structured_output
        # for chat templates without a system role (Gemma's drops it, some servers refuse it):
        # the system text is sent at the head of the first user message instead
        self.system_in_user = bool(system_in_user)
        self.calls_made = 0
        # what the last completion said about itself (``arr llm check`` prints them)
        self.last_model: str | None = None
        self.last_usage: dict[str, Any] | None = None
        self._lock = threading.Lock()

    def new_run(self) -> None:
        """Start a new run: the call budget is per run (a CLI command, one replayed scenario)."""
        with self._lock:
            self.calls_made = 0

    def _take_budget(self) -> None:
        with self._lock:
            if self.calls_made >= self.max_calls:
                raise LLMError(
                    codes.LLM_BUDGET_EXHAUSTED,
                    f"the run's budget of {self.max_calls} LLM calls is spent",
                )
            self.calls_made += 1

    def _response_format(self, schema: dict[str, Any] | None, name: str) -> dict[str, Any] | None:
        if schema is None or self.structured_output == "none":
            return None
        if self.structured_output == "json_object":
            return {"type": "json_object"}
        return {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": True},
        }

    def chat(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any] | None = None,
        schema_name: str = "reply",
        notes: list[tuple[str, str]] | None = None,
    ) -> str:
        """One completion; the assistant's text, or LLMError with a fixed code. ``schema``
        constrains the reply where the endpoint supports it; a refusal of it is appended to
        ``notes`` as (code, detail) and the question asked once more without it."""
        response_format = self._response_format(schema, schema_name)
        if self.system_in_user:
            messages = merged_system(messages)
        try:
            return self._exchange(messages, response_format)
        except LLMError as exc:
            if response_format is None or exc.code != STRUCTURED_REFUSED:
                raise
            refused = exc
        self.structured_output = "none"  # once refused, plain instructions from now on
        if notes is not None:
            notes.append((STRUCTURED_REFUSED, refused.detail))
        return self._exchange(messages, None)

    def _exchange(
        self, messages: list[dict[str, str]], response_format: dict[str, Any] | None
    ) -> str:
        import httpx

        # the search's own deadline (set by the Router around planning and reranking)
        timeout = seconds_left(self.timeout_s)
        cut_by_request = timeout < self.timeout_s
        if timeout < MIN_EXCHANGE_S:
            raise LLMError(codes.LLM_DEADLINE, "no time left before the search's deadline")
        self._take_budget()
        deadline = time.monotonic() + timeout
        body, headers = self._request(messages, response_format)
        verify: Any = self.ca_bundle if self.ca_bundle else True
        client = httpx.Client(
            verify=verify,
            trust_env=False,
            follow_redirects=False,
            timeout=httpx.Timeout(timeout),
        )
        # A watchdog closes the connection at the deadline, so no single slow read can stretch
        # the exchange past it (httpx's own timeouts are per operation).
        watchdog = threading.Timer(timeout, client.close)
        watchdog.daemon = True
        watchdog.start()
        try:
            with client.stream(
                "POST", f"{self.base_url}/chat/completions", json=body, headers=headers
            ) as response:
                raw = self._read(response, deadline, timeout, response_format is not None)
        except Exception as exc:  # ours, httpx and ssl errors, or the watchdog's close
            timed_out = (
                exc.code == codes.LLM_TIMEOUT
                if isinstance(exc, LLMError)
                else time.monotonic() >= deadline or isinstance(exc, httpx.TimeoutException)
            )
            if timed_out and cut_by_request:
                raise LLMError(
                    codes.LLM_DEADLINE, f"cut at the search's deadline ({timeout:.1f} s)"
                ) from None
            if timed_out:
                raise LLMError(
                    codes.LLM_TIMEOUT, f"no complete answer within {timeout} s"
                ) from None
            if isinstance(exc, LLMError):
                raise
            raise LLMError(codes.LLM_TRANSPORT, transport_detail(exc)) from None
        finally:
            watchdog.cancel()
            client.close()
        return self._content(raw)

    def _request(
        self, messages: list[dict[str, str]], response_format: dict[str, Any] | None
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """The chat-completions body and headers (the key read from its variable now)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "stream": False,
        }
        if response_format is not None:
            body["response_format"] = response_format
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key_env:
            headers["Authorization"] = f"Bearer {os.environ.get(self.api_key_env, '')}"
        return body, headers

    def _read(self, response: Any, deadline: float, timeout: float, structured: bool) -> bytes:
        if response.is_redirect:
            raise LLMError(codes.LLM_REDIRECT, f"HTTP {response.status_code} redirect not followed")
        if response.status_code != 200:
            raw = b""
            for chunk in response.iter_raw():
                raw += chunk
                if len(raw) >= ERROR_BODY_BYTES or time.monotonic() > deadline:
                    break
            secret = os.environ.get(self.api_key_env, "") if self.api_key_env else ""
            message = server_message(raw[:ERROR_BODY_BYTES], secret)
            detail = f"HTTP {response.status_code}" + (f": {message}" if message else "")
            if (
                structured
                and response.status_code in (400, 422)
                and any(w in message.lower() for w in _REFUSAL_WORDS)
            ):
                raise LLMError(STRUCTURED_REFUSED, detail)
            raise LLMError(codes.LLM_HTTP_ERROR, detail)
        content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type != "application/json":
            raise LLMError(codes.LLM_BAD_CONTENT_TYPE, f"content type {content_type!r}")
        chunks, size = [], 0
        for chunk in response.iter_raw():
            size += len(chunk)
            if size > self.max_response_bytes:
                raise LLMError(codes.LLM_OVERSIZE, f"body over {self.max_response_bytes} bytes")
            if time.monotonic() > deadline:
                raise LLMError(codes.LLM_TIMEOUT, f"no complete answer within {timeout:.1f} s")
            chunks.append(chunk)
        if time.monotonic() > deadline:
            raise LLMError(codes.LLM_TIMEOUT, f"no complete answer within {timeout:.1f} s")
        return b"".join(chunks)

    def _content(self, raw: bytes) -> str:
        try:
            data = strict_loads(raw.decode("utf-8"))
            content = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError, UnicodeDecodeError) as exc:
            raise LLMError(
                codes.LLM_BAD_RESPONSE, f"not a chat completion: {str(exc)[:120]}"
            ) from None
        if not isinstance(content, str):
            raise LLMError(codes.LLM_BAD_RESPONSE, "message content is not text")
        model, usage = data.get("model"), data.get("usage")
        self.last_model = model[:200] if isinstance(model, str) else None
        self.last_usage = usage if isinstance(usage, dict) else None
        return content


def merged_system(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """The system messages' text put at the head of the first user message."""
    system = "\n\n".join(m["content"] for m in messages if m.get("role") == "system")
    rest = [dict(m) for m in messages if m.get("role") != "system"]
    if system and rest and rest[0].get("role") == "user":
        rest[0]["content"] = f"{system}\n\n{rest[0]['content']}"
    elif system:
        rest.insert(0, {"role": "user", "content": system})
    return rest


def transport_detail(exc: Exception) -> str:
    """What failed on the way, in words a user can act on (never the request's contents)."""
    import ssl

    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ssl.SSLCertVerificationError):
            return f"TLS certificate not trusted: {seen.verify_message or 'verify failed'}"
        if isinstance(seen, ssl.SSLError):
            return f"TLS failed: {seen.reason or type(seen).__name__}"
        if isinstance(seen, ConnectionRefusedError):
            return "connection refused (is the server running on that port?)"
        seen = seen.__cause__ or seen.__context__
    text = str(exc)
    if "CERTIFICATE_VERIFY_FAILED" in text:
        return "TLS certificate not trusted (certificate verify failed)"
    if "Connection refused" in text or "Errno 111" in text:
        return "connection refused (is the server running on that port?)"
    return type(exc).__name__
