"""Which endpoints the LLM client may talk to, checked when the config loads.

HTTPS to a host name; plain HTTP only to a loopback host (``localhost``, ``127.0.0.1``,
``[::1]``: the addresses llama.cpp's server, vLLM and Ollama print) and only with
``llm.allow_http_loopback``. No IP literal other than loopback (a remote address is named by
its host, so ``llm.allowed_hosts`` pins a name), no userinfo, ASCII host names only.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

from arr.errors import ConfigError

LOOPBACK_NAMES = ("localhost",)

# letters, digits and hyphens in dot-separated labels (IDNA host names arrive as punycode)
_HOST_NAME = re.compile(
    r"(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?"
)


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback address (127.0.0.0/8, ::1); never a name that resolves
    elsewhere (no DNS is asked)."""
    if host.lower().rstrip(".") in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


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
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if address is not None and not address.is_loopback:
        raise ConfigError(
            f"llm.base_url must name a host, not an IP literal ({host}); "
            "only a loopback address (127.0.0.1, [::1]) may be written as one"
        )
    if address is None and not _HOST_NAME.fullmatch(host):
        raise ConfigError(f"llm.base_url host {host!r} is not a valid host name")
    if parts.scheme == "https":
        return parts.scheme, host
    if parts.scheme == "http" and allow_http_loopback and is_loopback(host):
        return parts.scheme, host
    if parts.scheme == "http":
        raise ConfigError(
            "llm.base_url must use https (plain http only for a loopback host "
            "with llm.allow_http_loopback=true)"
        )
    raise ConfigError(f"llm.base_url must be an https URL, got {base_url!r}")


def check_allowed_host(host: str, allowed_hosts: list[str] | tuple[str, ...] | None) -> None:
    """The endpoint's host must be one of the config's ``llm.allowed_hosts`` exactly (no
    prefix or suffix matching: ``api.example.com.evil.net`` is not ``api.example.com``), so
    pointing the client at another host takes a deliberate change of both settings."""
    if allowed_hosts is None:
        return
    if isinstance(allowed_hosts, str) or not all(isinstance(h, str) for h in allowed_hosts):
        raise ConfigError("llm.allowed_hosts must be a list of host names")
    allowed = {h.strip().lower().rstrip(".").strip("[]") for h in allowed_hosts}
    if host.lower().rstrip(".") not in allowed:
        raise ConfigError(
            f"llm.base_url host {host!r} is not in llm.allowed_hosts {sorted(allowed)}; "
            "to use another endpoint, set both"
        )
