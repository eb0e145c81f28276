"""ARR's own rules for credential forms the maintained scanner (:mod:`arr.safety.scanner`) does
not judge, measured by ``make bench-judges`` on gitleaks' samples (its rule ids named below):

- **Kubernetes Secrets** (``kubernetes-secret-yaml``): every base64 value (padded, or mixing
  cases and digits) of a text that declares ``kind: Secret``, found by its runs, not its lines,
  so a manifest flattened into a PDF's text or escaped into a JSON string is judged too; and,
  anywhere, a value under a name holding a secret word that is base64 of printable text
  (``password: UyFCXCpkJHpEc2I9``, YAML's ``!!binary`` too). Hex digests and words are not
  base64 of text, so ``key: <md5>`` and ``cache_key = <sha256>`` stay searchable.
- **NuGet and .NET config** (``nuget-config-password``): ``<add key="...Password..." value="v"/>``.
- **Passwords by name** (``hashicorp-tf-password``): a value of six characters or more under a
  name ending in a password word, quoted (``password = "thisIsDog11"``) or unquoted when it
  mixes cases or letters and digits (``export DB_PASSWORD=TestSourcePassword``), unless a
  placeholder or a template (:func:`_placeholder`: ``changeme``, ``${VAR}``, ``%VAR%``).
- **A user and password** (``curl-auth-user``, ``sidekiq-secret``): ``user:pass`` under a name
  holding an auth or token word (``AUTH = "elastic:P@ssw0rd1"``), each side quoted or braced,
  escaped or not (``"\\":pass\\""`` in a JSON string), curl's ``token:`` with no password,
  a pair of hex keys; not ``author``/``authority``, a word inside a lower-case word
  (``urn:...:oauth:...``) or C++'s ``Token::name``.
- **Numeric secrets** (``asana-client-id``, ``discord-client-secret``): 16 digits or more under
  a name holding ``token``, ``secret`` or a vendor whose ids are secrets (Asana, Discord).

Linear by construction, and cheap where nothing matches: a Secret and NuGet's form are looked
for only where their literals stand; the word rules pass one RE2 alternation over the
lower-cased text first (most texts fail it), then match each rule's bounded pattern where
each of its words ends. Every pattern is RE2 (no backtracking).
"""

from __future__ import annotations

import binascii
import functools
import string
from collections.abc import Iterator
from typing import Any

from arr.safety.scanner import PLACEHOLDER_PASSWORDS

# A name written before a value: letters, digits, ``_-.`` (``db.password``, ``DB_PASSWORD``).
_NAME = rb"[A-Za-z0-9_.\-]{0,40}"
# What stands between a name and its value in the places researchers write one.
_ASSIGN = rb"[\"'\]}]?\s{0,16}(?:<-|:=|=>|\}\{|[:=])\s{0,16}"
# A quote or brace that opens or closes a value, escaped or not (a JSON string holding a
# quoted value: ``"\"thisIsDog11\""``).
_OPEN = rb"(?:\\?[\"'{])"
_CLOSE = rb"(?:\\?[\"'}])"


# Each rule's pattern, compiled when first needed (most texts need only the prefilter).
_SOURCES: dict[str, bytes] = {
    "k8s_kind": rb"(?i)kind\\?[\"']?:\s{0,5}\\?[\"']?secret(?:[^A-Za-z0-9_\-]|$)",
    "b64_run": (
        rb"(?:^|[^A-Za-z0-9+/_\-.])(?P<t>[A-Za-z0-9+/]{8,}={0,2})(?:[^A-Za-z0-9+/=_\-.]|$)"
    ),
    "b64_value": (
        _NAME + _ASSIGN
        + rb"[\"']?(?:[A-Za-z0-9_.\-]{1,40}:\s{0,5}[|>]?\s{0,8})?(?:!!binary\s{1,8})?[\"']?"
        + rb"(?P<t>[A-Za-z0-9+/]{8,}={0,2})(?:[\"'\s,;}]|$)"
    ),
    "nuget": (
        rb"(?i)<add\s+key\s*=\s*[\"'][^\"']{0,60}(?:password|secret|token|apikey)"
        rb"[^\"']{0,60}[\"']\s+value\s*=\s*[\"'](?P<t>[^\"']{1,300})[\"']"
    ),
    "password": (
        _ASSIGN
        + rb"(?:" + _OPEN + rb"{1,2}(?P<t>[^\"'{}\s\\]{6,128})" + _CLOSE
        + rb"|(?P<u>[A-Za-z0-9!@#$%^&*_+=~\-]{6,128})(?:[\s}]|$))"
    ),
    "user_pass": (
        _NAME + _ASSIGN
        + rb"(?P<t>" + _OPEN + rb"{0,3}[^\s:/\\\"'{}\[\]()<>,;=]{0,64}" + _CLOSE + rb"{0,3}:"
        + _OPEN + rb"{0,3}(?:[^\s\"'{}:/\\,;][^\s\"'{}\\:,;]{0,127})?" + _CLOSE + rb"{0,2})"
    ),
    "digits": (
        _NAME + _ASSIGN
        + rb"\\?[\"'{]?(?P<t>[0-9]{16,64})(?:[^0-9A-Za-z]|$)"
    ),
}  # fmt: skip


@functools.cache
def _pattern(name: str) -> Any:
    import re2

    return re2.compile(_SOURCES[name])


@functools.lru_cache(maxsize=1)
def _any_word_rule() -> Any:
    """Every word rule's pattern (its words before its tail) as one RE2 alternation: a single
    linear pass that most texts fail, so the rules run word by word only where one can match."""
    import re2

    tails = []
    for rule, words in _WORDS.items():
        tail = _SOURCES[rule].replace(b"(?P<t>", b"(").replace(b"(?P<u>", b"(")
        tails.append(b"(?:" + b"|".join(words) + b")(?:" + tail + b")")
    return re2.compile(b"|".join(tails))  # run on the lower-cased text: no (?i) needed


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
        decoded = binascii.a2b_base64(value[:48])  # the head tells text from bytes
    except binascii.Error:
        return False
    return len(decoded) >= 6 and all(32 <= c < 127 for c in decoded)


def _secret_data(content: bytes) -> Iterator[tuple[int, int]]:
    """Every base64 value of a text declaring ``kind: Secret``: read by its runs, not by its
    lines, so a manifest flattened into a PDF's text or escaped into a JSON string is judged
    the same as the YAML file."""
    if _pattern("k8s_kind").search(content) is None:
        return
    for match in _pattern("b64_run").finditer(content):
        run = _group(match, "t")
        if len(run) % 4 == 0 and (b"=" in run or _mixed(run)):
            yield _span(match, "t")


_TEMPLATE = ("${", "$(", "{{", "%(", "%s", "%d", "<", "*")


def _placeholder(password: str, user: str = "") -> bool:
    """A password that is a placeholder or a template: a known one, the user name again, a
    run of one character, ``${VAR}``, ``$VAR``, ``%VAR%``, ``%(name)s``, ``<password>``."""
    lowered = password.lower()
    if lowered.encode() in PLACEHOLDER_PASSWORDS or lowered == user.lower() != "":
        return True
    if len(set(lowered)) == 1 or any(mark in password for mark in _TEMPLATE):
        return True
    dollar = password.find("$")
    if dollar != -1 and password[dollar + 1 : dollar + 2].isalpha():
        return True  # $PASSWORD
    return password.count("%") >= 2  # %PASSWORD% (Windows, NuGet)


def _mixed_value(value: str) -> bool:
    """An unquoted value that reads as a password, not a word or a constant's name: upper and
    lower case letters, or letters and digits."""
    upper = any(c.isupper() for c in value)
    lower = any(c.islower() for c in value)
    digit = any(c.isdigit() for c in value)
    return (upper and lower) or ((upper or lower) and digit)


def _mixed(run: bytes) -> bool:
    """Upper case, lower case and a digit: base64 of bytes, not a word or a name."""
    return (
        any(65 <= c <= 90 for c in run)
        and any(97 <= c <= 122 for c in run)
        and any(48 <= c <= 57 for c in run)
    )


_QUOTES = "\"'{}\\`"
_HEX_WORD = frozenset("0123456789abcdefABCDEF")
_TOKEN_CHARS = frozenset(string.ascii_letters + string.digits + "!@#$%^&*+=~_.-")


def _not_a_secret_word(content: bytes, start: int) -> bool:
    """The word at ``start`` names no secret here: ``auth`` beginning ``author``, ``authors`` or
    ``authority`` (a byline, a SAML ``AuthorityKind``; not ``authorization``), or any word
    inside a lower-case word (``urn:...:oauth:grant-type``); ``OAuth``, ``OAUTH`` and
    ``curl_auth`` name one."""
    word = content[start : start + 8].lower()
    if word.startswith(b"author") and word[6:8] not in (b"iz", b"is"):
        return True
    before = content[start - 1 : start]
    return (
        start > 0 and before.isalpha() and before.islower() and content[start : start + 1].islower()
    )


def _user_password(user: str, password: str) -> bool:
    """``user:password`` (quotes and braces taken off each side) is a credential: a password
    of six characters or more that mixes cases, letters and digits or holds a sign (not
    ``_-.``, which names hold), and is no placeholder; curl's ``token:`` (no password) when
    the user is a token (eight characters or more, letters of both cases or letters with
    digits, and a digit); or two hex runs of eight or more (``cafebabe:deadbeef``, a key pair
    as Sidekiq's vendor writes it)."""
    if not password:  # a token before an empty password: random-shaped, not a word
        shaped = any(c.isdigit() for c in user) and _mixed_value(user)
        return len(user) >= 8 and shaped and not _placeholder(user) and set(user) <= _TOKEN_CHARS
    if len(password) < 6 or _placeholder(password, user):
        return False
    if _mixed_value(password) or any(not c.isalnum() and c not in "_-." for c in password):
        return True
    return min(len(user), len(password)) >= 8 and set(user + password) <= _HEX_WORD


# The words each rule's name holds; a rule's pattern is matched where one of them ends
# (bounded: a name, an operator, a value).
_WORDS = {
    "password": (b"password", b"passwd", b"pwd"),
    "user_pass": (b"auth", b"cred", b"secret", b"login", b"passw", b"token"),
    "digits": (b"token", b"secret", b"asana", b"discord"),
    "b64_value": (b"pass", b"secret", b"token", b"key", b"credential", b"auth"),
}


@functools.cache
def _word_rule(rule: str) -> Any:
    """The rule's words, then its pattern, for the lower-cased text (offsets are the text's)."""
    import re2

    return re2.compile(b"(?:" + b"|".join(_WORDS[rule]) + b")" + _SOURCES[rule])


def _word_hits(lowered: bytes) -> Iterator[tuple[str, Any]]:
    """(rule, match) of each word rule's matches in the lower-cased text: nothing after one
    pass of the union (:func:`_any_word_rule`), which most texts fail; else each rule's own
    pass (RE2's loop, not one Python call per word: a text of 60,000 ``key:`` lines costs
    what a text of 60,000 words does)."""
    if _any_word_rule().search(lowered) is None:
        return
    for rule in _WORDS:
        for match in _word_rule(rule).finditer(lowered):
            yield rule, match


def _judged(rule: str, match: Any, content: bytes) -> tuple[str, int, int] | None:
    """The credential a word rule's match holds, or None (a placeholder, a word, bytes); its
    values read from ``content`` at the match's offsets (their case matters)."""

    def value(group: str) -> bytes:
        start, end = _span(match, group)
        return content[start:end]

    if rule == "password":
        group = "t" if match.group(_index(match, "t")) is not None else "u"
        text = value(group).decode("utf-8", "replace")
        if not _placeholder(text) and (group == "t" or _mixed_value(text)):
            return "password_assignment", *_span(match, group)
    elif rule == "user_pass":
        written = value("t").decode("utf-8", "replace")
        user, _, password = (part.strip(_QUOTES) for part in written.partition(":"))
        # ``Tokenizer::Token`` (C++'s scope, a name's type): no value stands after the name
        if (
            not written.startswith(":")
            and not _not_a_secret_word(content, match.start())
            and _user_password(user, password)
        ):
            return "user_password", *_span(match, "t")
    elif rule == "digits":
        return "numeric_secret", *_span(match, "t")
    elif _printable_base64(value("t")):
        return "base64_credential", *_span(match, "t")
    return None


def form_spans(content: bytes) -> Iterator[tuple[str, int, int]]:
    """(kind, start, end) of every credential in the forms above."""
    lowered = content.lower()  # ASCII-only lowering keeps byte offsets
    if b"secret" in lowered and b"kind" in lowered:
        for start, end in _secret_data(content):
            yield "kubernetes_secret", start, end
    if b"<add" in lowered:
        for match in _pattern("nuget").finditer(content):
            yield "config_password", *_span(match, "t")
    for rule, match in _word_hits(lowered):
        found = _judged(rule, match, content)
        if found is not None:
            yield found
