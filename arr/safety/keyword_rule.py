"""The keyword rule: ``<...key|secret|token|password|passwd> = <high-entropy value>`` in
every way a value is written after its name (detect-secrets' KeywordDetector, with its entropy
limits), for formats no token rule knows.

Keywords are found in the lower-cased content at C speed; the tail is matched only where a
keyword stands, with bounded quantifiers, and a keyword inside a value already judged is not
judged again: linear in the content.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator

# ``<...key|secret|token|password|passwd> = "<value>"``: keywords found in the lower-cased
# content, then this tail is matched at the keyword's end in the original bytes. Every way a
# value is written after its name: ``key = "v"``, ``key: v`` (YAML, INI), ``"key": "v"``
# (JSON), ``cfg["key"] = "v"`` and ``os.environ["KEY"] = "v"`` (a subscript), ``key=v`` in a
# call. Its quantifiers are bounded, and it runs only where a keyword stands: linear.
_ASSIGNMENT_KEYWORDS = (
    b"key", b"secret", b"token", b"password", b"passwd", b"cred", b"creds", b"credentials",
    b"auth",
)  # fmt: skip
# The name may go on after the keyword (``SECRET_KEY_BASE``, ``api_token_2``, ``mySecretString``).
# Operators beside ``=`` and ``:``: R ``<-``, Go ``:=``, ``=>``, a LaTeX macro's ``}{``; a
# quote may be escaped (``\"`` in a notebook's JSON) or be a brace (``.bib``: ``note = {v}``).
_ASSIGNMENT_TAIL = re.compile(
    rb"(?:_[A-Za-z0-9_]{0,30}|[A-Z][A-Za-z0-9_]{0,30})?\\?[\"']?[\]}]?\s{0,5}(?:<-|:=|=>|\}\{|[:=])\s{0,5}\\?[\"'{]?([A-Za-z0-9/+_=\-.][A-Za-z0-9/+_=\-.~]{15,199})"
)
_HAS_DIGIT = re.compile(rb"[0-9]")
_HAS_LETTER = re.compile(rb"[A-Za-z]")
MIN_SECRET_ENTROPY = 3.5  # bits per character; English words and placeholders stay below
# hex digits alone (at most 4 bits/char; 1 random 64-digit value in 5,000 fell under 3.5):
HEX_SECRET_ENTROPY = 3.0  # detect-secrets' HexHighEntropyString limit
_HEX = re.compile(rb"[0-9a-fA-F]{16,}")


def shannon_entropy(value: bytes) -> float:
    counts = Counter(value)
    total = len(value)
    return -sum(c / total * math.log2(c / total) for c in counts.values()) if total else 0.0


_IDENTIFIER = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_DOTTED = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")


def _is_code(content: bytes, match: re.Match[bytes]) -> bool:
    """The value is code, not a secret: ``key = apply_rotary_pos_emb_2d(...)`` (a call, an
    attribute, a lower-case identifier), ``min_key = self.order.__getitem__`` (an unquoted
    attribute chain), ``key: PositionalIndexer2D,`` (a bare name inside a signature) or
    ``auto *local_key = PYBIND11_MODULE_LOCAL_ID;`` (a bare name ending a statement)."""
    value = match.group(1)
    after = content[match.end(1) : match.end(1) + 1]
    quoted = match.group(0)[-len(value) - 1 : -len(value)] in (b'"', b"'", b"{")
    if _IDENTIFIER.fullmatch(value):
        if after in (b"(", b".", b"["):
            return True
        if _random_shaped(value):  # an unquoted hex or random value (YAML, INI): not a name
            return False
        # a lower-case name is code; a quoted run of letters and digits is a value ("9f2c...")
        if value.islower() and not (quoted and b"_" not in value and _HAS_DIGIT.search(value)):
            return True
        if not quoted and after in (b",", b")", b"]", b"|", b";"):
            return True
    if not quoted and _DOTTED.fullmatch(value):
        return True
    return b"." in value and after == b"("


def _random_shaped(value: bytes) -> bool:
    """A value no one names code with: hex digits with letters and digits (``9f2c...``,
    ``a3f9...`` starting with a letter), or 20+ characters without an underscore holding 4+
    digits (``k9f8a7s6d5f4g3h2j1k0``)."""
    if _HEX.fullmatch(value) and _HAS_DIGIT.search(value) and _HAS_LETTER.search(value):
        return True
    digits = sum(c in b"0123456789" for c in value)
    return len(value) >= 20 and b"_" not in value and digits >= 4


# A name with one of these words names a secret whatever its value looks like.
_SECRET_WORDS = (
    b"api", b"access", b"secret", b"private", b"priv", b"auth", b"client", b"master", b"sign",
    b"encrypt", b"app", b"licen", b"session", b"account", b"service", b"token", b"pass", b"sas",
    b"storage", b"admin", b"bearer", b"cred", b"aws", b"ssh", b"webhook",
)  # fmt: skip
_DIGEST_LENGTHS = (32, 40, 56, 64, 96, 128)  # md5, sha1, sha224, sha256, sha384, sha512
_NAME_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.")


def _content_key(content: bytes, start: int, match: re.Match[bytes]) -> bool:
    """A key that is no secret: ``public_key = "04..."`` (a public key is published), or a
    name whose only word for a secret is ``key`` holding a digest (``cache_key = <sha256>``,
    dvc's ``key: <md5>``, ``run_key: <40 hex>``): research tools name content hashes so."""
    begin = start
    while begin > 0 and start - begin < 40 and content[begin - 1] in _NAME_CHARS:
        begin -= 1
    name = content[begin : match.start(1)].lower()
    if b"public" in name or b"pub_" in name:
        return b"private" not in name and b"secret" not in name
    if not name.lstrip(b"-._\"'").startswith(b"key") and b"key" not in name:
        return False
    if any(word in name for word in _SECRET_WORDS):
        return False
    value = match.group(1)
    return bool(_HEX.fullmatch(value)) and len(value) in _DIGEST_LENGTHS


def _assignment_matches(content: bytes) -> Iterator[re.Match[bytes]]:
    lowered = content.lower()  # ASCII-only lowering keeps byte offsets
    for keyword in _ASSIGNMENT_KEYWORDS:
        start = lowered.find(keyword)
        while start != -1:
            match = _ASSIGNMENT_TAIL.match(content, start + len(keyword))
            resume = start + 1
            if match:
                if not _is_code(content, match) and not _content_key(content, start, match):
                    yield match
                # a keyword inside the value just judged is part of that value, judged whole
                # (``key=key=key=...``: 250,000 tails of one run cost 1.5 s per MB before)
                resume = max(resume, match.end(1))
            start = lowered.find(keyword, resume)


def secret_assignments(content: bytes) -> Iterator[tuple[int, int]]:
    """(start, end) of every value assigned to a keyword that reads as a secret: letters and
    digits mixed, entropy over the limit."""
    for match in _assignment_matches(content):
        value = match.group(1)
        # Secrets mix letters and digits; identifiers such as ``num_hidden_layers`` do not.
        if (
            _HAS_DIGIT.search(value)
            and _HAS_LETTER.search(value)
            and shannon_entropy(value)
            >= (HEX_SECRET_ENTROPY if _HEX.fullmatch(value) else MIN_SECRET_ENTROPY)
        ):
            yield match.start(1), match.end(1)
