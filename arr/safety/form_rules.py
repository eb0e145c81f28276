"""ARR's own rules for credential forms the maintained scanner (:mod:`arr.safety.scanner`) does
not judge, measured by ``make bench-judges`` on gitleaks' samples (its rule ids named below):

- **Kubernetes Secrets** (``kubernetes-secret-yaml``): every value under ``data:`` or
  ``stringData:`` in a text that declares ``kind: Secret``; and, anywhere, a value under a name
  holding a secret word that is base64 of printable text (``password: UyFCXCpkJHpEc2I9``:
  a password base64-encoded, as a Secret holds it). Hex digests and words are not base64 of
  text, so ``key: <md5>`` and ``cache_key = <sha256>`` stay searchable.
- **NuGet and .NET config** (``nuget-config-password``): ``<add key="...Password..." value="v"/>``.
- **Passwords by name** (``hashicorp-tf-password``): a quoted value of six characters or more
  under a name ending in a password word (``password = "thisIsDog11"``) that is not a
  placeholder (``changeme``, the user name again, a template: :func:`placeholder_password`).
- **A user and password** (``curl-auth-user``, ``sidekiq-secret``): ``user:pass`` under a name
  holding an auth word (``AUTH = "elastic:P@ssw0rd1"``).
- **Numeric secrets** (``asana-client-id``, ``discord-client-secret``): 16 digits or more under
  a name holding ``token``, ``secret`` or a vendor whose ids are secrets (Asana, Discord).

Each rule is found from a literal at C speed, then one RE2 pattern (linear, no backtracking)
judges the text around it; names are read from the match, never by scanning back unbounded.
"""

from __future__ import annotations

import binascii
import functools
from collections.abc import Iterator
from typing import Any

from arr.safety.scanner import placeholder_password

# A name written before a value: letters, digits, ``_-.`` (``db.password``, ``DB_PASSWORD``).
_NAME = rb"[A-Za-z0-9_.\-]{0,40}"
# What stands between a name and its value in the places researchers write one.
_ASSIGN = rb"[\"'\]}]?\s{0,5}(?:<-|:=|=>|\}\{|[:=])\s{0,5}"


@functools.lru_cache(maxsize=1)
def _patterns() -> dict[str, Any]:
    import re2

    return {
        "k8s_kind": re2.compile(rb"(?i)kind:\s{0,5}[\"']?secret[\"']?\s"),
        "k8s_line": re2.compile(
            rb"(?m)^([ \t]*)(?:[A-Za-z0-9_.\-]{1,100}):[ \t]*(?:[|>][-+]?[ \t]*$|(.*)$)"
        ),
        "b64_value": re2.compile(
            rb"(?i)(?:password|passwd|secret|token|key|credential|auth)" + _NAME + _ASSIGN
            + rb"[\"']?(?P<t>[A-Za-z0-9+/]{8,200}={0,2})(?:[\"'\s,;}]|$)"
        ),
        "nuget": re2.compile(
            rb"(?i)<add\s+key\s*=\s*[\"'][^\"']{0,60}(?:password|secret|token|apikey)"
            rb"[^\"']{0,60}[\"']\s+value\s*=\s*[\"'](?P<t>[^\"']{1,300})[\"']"
        ),
        "password": re2.compile(
            rb"(?i)(?P<name>[A-Za-z0-9_.\-]{0,40}(?:password|passwd|pwd))" + _ASSIGN
            + rb"\\?(?P<q>[\"'{])(?P<t>[^\"'{}\s\\]{6,128})\\?[\"'}]"
        ),
        "user_pass": re2.compile(
            rb"(?i)(?:auth|cred|secret|login|passw)" + _NAME + _ASSIGN
            + rb"\\?[\"'{](?P<t>[A-Za-z0-9_.@+\-]{1,64}:[^\s\"'{}:/\\][^\s\"'{}\\]{5,127})\\?[\"'}]"
        ),
        "digits": re2.compile(
            rb"(?i)(?:token|secret|asana|discord)" + _NAME + _ASSIGN
            + rb"\\?[\"'{]?(?P<t>[0-9]{16,64})(?:[^0-9A-Za-z]|$)"
        ),
    }  # fmt: skip


def _index(match: Any, name: str) -> int:
    groups = match.re.groupindex  # google-re2 names a bytes pattern's groups in bytes
    return groups[name.encode()] if name.encode() in groups else groups[name]


def _span(match: Any, name: str) -> tuple[int, int]:
    return match.span(_index(match, name))


def _group(match: Any, name: str) -> bytes:
    return match.group(_index(match, name))


def _printable_base64(value: bytes) -> bool:
    """``value`` is base64 of printable text of six characters or more (a password, a
    ``user:password``), which neither a hex digest nor a word decodes to."""
    if len(value) % 4:
        return False
    try:
        decoded = binascii.a2b_base64(value)
    except binascii.Error:
        return False
    return len(decoded) >= 6 and all(32 <= c < 127 for c in decoded)


def _secret_data(content: bytes) -> Iterator[tuple[int, int]]:
    """Values under ``data:`` / ``stringData:`` of a text declaring ``kind: Secret``."""
    patterns = _patterns()
    if patterns["k8s_kind"].search(content) is None:
        return
    inside: int | None = None  # indentation of the data: line while inside its block
    for match in patterns["k8s_line"].finditer(content):
        indent = len(match.group(1).expandtabs(4))
        line = match.group(0).strip()
        if inside is not None and indent <= inside:
            inside = None
        if inside is not None:
            start, end = match.start(), match.end()
            yield start + len(match.group(0)) - len(match.group(0).lstrip()), end
        elif line.lower() in (b"data:", b"stringdata:"):
            inside = indent
    # a block scalar's continuation lines (``.dockercfg: |`` then indented base64) are not
    # ``name:`` lines: the span of a data: block is judged by lines, so take them too
    yield from _block_lines(content)


def _block_lines(content: bytes) -> Iterator[tuple[int, int]]:
    """Indented lines after a ``name: |`` or ``name: >`` inside a Secret: base64 bodies."""
    lines = content.split(b"\n")
    offset, taking = 0, None
    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if taking is not None and stripped and indent > taking:
            yield offset, offset + len(line)
        elif stripped:
            taking = indent if stripped.endswith((b": |", b": >", b": |-", b": >-")) else None
        offset += len(line) + 1


def form_spans(content: bytes) -> Iterator[tuple[str, int, int]]:
    """(kind, start, end) of every credential in the forms above."""
    lowered = content.lower()
    patterns = _patterns()
    if b"secret" in lowered and b"kind" in lowered:
        for start, end in _secret_data(content):
            yield "kubernetes_secret", start, end
    if b"<add" in lowered:
        for match in patterns["nuget"].finditer(content):
            yield "config_password", *_span(match, "t")
    if b"pass" in lowered or b"pwd" in lowered:
        for match in patterns["password"].finditer(content):
            if not placeholder_password("", _group(match, "t").decode("utf-8", "replace")):
                yield "password_assignment", *_span(match, "t")
    if b":" in content and any(w in lowered for w in (b"auth", b"cred", b"secret", b"login")):
        for match in patterns["user_pass"].finditer(content):
            user, _, password = _group(match, "t").decode("utf-8", "replace").partition(":")
            if not placeholder_password(user, password):
                yield "user_password", *_span(match, "t")
    if any(w in lowered for w in (b"token", b"secret", b"asana", b"discord")):
        for match in patterns["digits"].finditer(content):
            yield "numeric_secret", *_span(match, "t")
    if any(w in lowered for w in _B64_WORDS):
        for match in patterns["b64_value"].finditer(content):
            if _printable_base64(_group(match, "t")):
                yield "base64_credential", *_span(match, "t")


_B64_WORDS = (b"pass", b"secret", b"token", b"key", b"credential", b"auth")
