"""The one LLM client: OpenAI-compatible chat completions over httpx, locked down.

Config group ``llm`` (``conf/llm/siliconflow.yaml`` is the default endpoint). Nothing here runs
unless an LLM planner or reranker is configured; with the default config ARR makes no network
request at all. The endpoint is checked when the config loads: HTTPS only (plain HTTP only for
a loopback host and only with ``allow_http_loopback``), an ASCII host name (no IP literal, no
userinfo), and the API key read from the environment variable the config names (never logged,
never in an error). Every exchange: one wall-clock deadline covering connect, send and the
whole body (a server that drips bytes still times out), redirects not followed, proxy
environment variables ignored, TLS verified (``ca_bundle`` lets tests trust a local CA), body
capped, no retries, and a per-run budget of calls shared by everything that holds this client.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import threading
import time
from typing import Any
from urllib.parse import urlsplit

from arr.errors import ConfigError

LOOPBACK_HOSTS = ("localhost",)


class LLMError(Exception):
    """An exchange failed; ``code`` is the fixed degradation code the caller records."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


# letters, digits and hyphens in dot-separated labels (IDNA host names arrive as punycode)
_HOST_NAME = re.compile(
    r"(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?"
)


def check_endpoint(base_url: str, allow_http_loopback: bool) -> tuple[str, str]:
    """(scheme, host) of an acceptable endpoint, or a ConfigError naming ``llm.base_url``."""
    if not isinstance(base_url, str):
        raise ConfigError(f"llm.base_url must be a string, got {type(base_url).__name__}")
    try:  # a malformed URL is a configuration error like any other, never a bare ValueError
        parts = urlsplit(base_url)
        host = parts.hostname or ""
        parts.port  # noqa: B018 - parsing the port is the check (non-numeric, out of range)
    except ValueError as exc:
        raise ConfigError(f"llm.base_url is not a valid URL ({exc}): {base_url!r}") from None
    if parts.username or parts.password or "@" in parts.netloc:
        raise ConfigError("llm.base_url must not contain userinfo")
    if not host or not host.isascii():
        raise ConfigError(f"llm.base_url needs an ASCII host name, got {base_url!r}")
    try:
        ipaddress.ip_address(host)
        raise ConfigError(f"llm.base_url must name a host, not an IP literal ({host})")
    except ValueError:
        pass
    if not _HOST_NAME.fullmatch(host):
        raise ConfigError(f"llm.base_url host {host!r} is not a valid host name")
    if parts.scheme == "https":
        return parts.scheme, host
    if parts.scheme == "http" and allow_http_loopback and host in LOOPBACK_HOSTS:
        return parts.scheme, host
    if parts.scheme == "http":
        raise ConfigError(
            "llm.base_url must use https (plain http only for a loopback host "
            "with llm.allow_http_loopback=true)"
        )
    raise ConfigError(f"llm.base_url must be an https URL, got {base_url!r}")


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


def check_allowed_host(host: str, allowed_hosts: list[str] | tuple[str, ...] | None) -> None:
    """The endpoint's host must be one of the config's ``llm.allowed_hosts`` exactly (no
    prefix or suffix matching: ``api.example.com.evil.net`` is not ``api.example.com``), so
    pointing the client at another host takes a deliberate change of both settings."""
    if allowed_hosts is None:
        return
    if isinstance(allowed_hosts, str) or not all(isinstance(h, str) for h in allowed_hosts):
        raise ConfigError("llm.allowed_hosts must be a list of host names")
    allowed = {h.strip().lower().rstrip(".") for h in allowed_hosts}
    if host.lower().rstrip(".") not in allowed:
        raise ConfigError(
            f"llm.base_url host {host!r} is not in llm.allowed_hosts {sorted(allowed)}; "
            "to use another endpoint, set both"
        )


class LLMClient:
    def __init__(
        self,
        base_url: str,
        model: str,
        api_key_env: str,
        timeout_s: float = 20.0,
        max_response_bytes: int = 200_000,
        max_calls: int = 20,
        ca_bundle: str | None = None,
        allow_http_loopback: bool = False,
        temperature: float = 0.0,
        max_tokens: int = 800,
        allowed_hosts: list[str] | tuple[str, ...] | None = None,
    ) -> None:
        self.scheme, self.host = check_endpoint(base_url, allow_http_loopback)
        check_allowed_host(self.host, allowed_hosts)
        if not api_key_env or not os.environ.get(api_key_env):
            raise ConfigError(
                f"llm.api_key_env: environment variable {api_key_env!r} is not "
                "set; LLM planning or reranking needs the API key there"
            )
        if not 0 < timeout_s <= 300:
            raise ConfigError(f"llm.timeout_s must be in (0, 300], got {timeout_s}")
        if not 0 < max_calls <= 20:
            raise ConfigError(f"llm.max_calls must be in 1..20, got {max_calls}")
        if max_response_bytes < 1:
            raise ConfigError(f"llm.max_response_bytes must be >= 1, got {max_response_bytes}")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key_env = api_key_env
        self.timeout_s = timeout_s
        self.max_response_bytes = max_response_bytes
        self.max_calls = max_calls
        self.ca_bundle = ca_bundle
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.calls_made = 0
        self._lock = threading.Lock()

    def new_run(self) -> None:
        """Start a new run: the call budget is per run (a CLI command, one replayed scenario)."""
        with self._lock:
            self.calls_made = 0

    def _take_budget(self) -> None:
        with self._lock:
            if self.calls_made >= self.max_calls:
                raise LLMError(
                    "llm_budget_exhausted",
                    f"the run's budget of {self.max_calls} LLM calls is spent",
                )
            self.calls_made += 1

    def chat(self, messages: list[dict[str, str]]) -> str:
        """One completion; the assistant's text, or LLMError with a fixed code."""
        import httpx

        self._take_budget()
        deadline = time.monotonic() + self.timeout_s
        body = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "stream": False,
        }
        headers = {
            "Authorization": f"Bearer {os.environ.get(self.api_key_env, '')}",
            "Content-Type": "application/json",
            "Accept": "application/json",
        }
        verify: Any = self.ca_bundle if self.ca_bundle else True
        client = httpx.Client(
            verify=verify,
            trust_env=False,
            follow_redirects=False,
            timeout=httpx.Timeout(self.timeout_s),
        )
        # A watchdog closes the connection at the deadline, so no single slow read can stretch
        # the exchange past it (httpx's own timeouts are per operation).
        watchdog = threading.Timer(self.timeout_s, client.close)
        watchdog.daemon = True
        watchdog.start()
        try:
            with client.stream(
                "POST", f"{self.base_url}/chat/completions", json=body, headers=headers
            ) as response:
                raw = self._read(response, deadline)
        except LLMError:
            raise
        except Exception as exc:  # httpx and ssl errors, or the watchdog's close
            if time.monotonic() >= deadline or isinstance(exc, httpx.TimeoutException):
                raise LLMError(
                    "llm_timeout", f"no complete answer within {self.timeout_s} s"
                ) from None
            raise LLMError("llm_transport", type(exc).__name__) from None
        finally:
            watchdog.cancel()
            client.close()
        return self._content(raw)

    def _read(self, response: Any, deadline: float) -> bytes:
        if response.is_redirect:
            raise LLMError("llm_redirect", f"HTTP {response.status_code} redirect not followed")
        if response.status_code != 200:
            raise LLMError("llm_http_error", f"HTTP {response.status_code}")
        content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type != "application/json":
            raise LLMError("llm_bad_content_type", f"content type {content_type!r}")
        chunks, size = [], 0
        for chunk in response.iter_raw():
            size += len(chunk)
            if size > self.max_response_bytes:
                raise LLMError("llm_oversize", f"body over {self.max_response_bytes} bytes")
            if time.monotonic() > deadline:
                raise LLMError("llm_timeout", f"no complete answer within {self.timeout_s} s")
            chunks.append(chunk)
        if time.monotonic() > deadline:
            raise LLMError("llm_timeout", f"no complete answer within {self.timeout_s} s")
        return b"".join(chunks)

    @staticmethod
    def _content(raw: bytes) -> str:
        try:
            data = strict_loads(raw.decode("utf-8"))
            content = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError, UnicodeDecodeError) as exc:
            raise LLMError("llm_bad_response", f"not a chat completion: {str(exc)[:120]}") from None
        if not isinstance(content, str):
            raise LLMError("llm_bad_response", "message content is not text")
        return content
