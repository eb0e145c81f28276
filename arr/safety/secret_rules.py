"""Credential formats the content detector knows, from a maintained rule set.

Source: the regex detectors of Yelp's detect-secrets 1.5.0 (Apache License 2.0; the licence is
shipped in ``arr/licenses/detect-secrets-1.5.0-LICENSE``), vendored and pinned: the patterns
below are theirs, translated to bytes, with a literal anchor each so a file that cannot match
is passed over at C speed. Why this rule set (README, "Security model"): it is maintained,
versioned and installable from PyPI where this project builds (gitleaks' rule file is not: it
ships with a Go binary); the package itself is not a dependency because its scanner runs every
plugin on every line and carries network verification code ARR must never run.

Changes to the vendored patterns, each for a reason and tested:
- no leading word boundary on formats with a distinctive prefix (``ghp_``, ``xox``, ``AKIA``,
  ``AIza``, ``sk_live_``, ``SG.``, ``glpat-`` ...): a token glued to the text before it is
  still a token;
- a password in a URL (``scheme://user:password@host``) that is a placeholder (``pass``,
  ``password``, the user name again, a template such as ``${PASSWORD}``) is not reported:
  documentation and tests are full of them (:func:`real_url_password`).

Not vendored, measured on 163 MB of installed packages' sources: Discord, Telegram, Twilio,
Mailchimp and Artifactory detectors have no distinctive literal, so their regex runs over nearly
every file (10.2 s, 8.6 s, 3.0 s, 0.9 s and 6.4 s against 5.9 s for every other rule together)
for formats that are not research infrastructure; a ``*_TOKEN = "<high-entropy value>"``
assignment of any of them is still caught by the keyword rule in :mod:`arr.safety.rules`.

ARR's own rules, where detect-secrets has none (each tested): Slack app-level tokens
(``xapp-``), PuTTY key files version 3, Google API keys, JWTs with a JSON payload, Hugging Face
tokens (``hf_`` and 34 letters, as gitleaks' ``huggingface-access-token``), and the
keyword-gated high-entropy assignment in :mod:`arr.safety.rules`.

Linear by construction: every pattern is compiled by RE2 (``google-re2``), whose matching time
is linear in the text whatever the pattern (no backtracking). Python's ``re`` took 8.4 s, 50 s
and 47 s on 96 KB runs of ``eyJ``, ``sk-`` and ``//`` (the JWT, OpenAI and npm patterns). RE2
has no look-ahead: where a vendored pattern ends in ``(?!...)``, the token is the group ``t``
and the pattern consumes the one character after it (or the end). A private key's rule spans
its whole block (``BEGIN`` to ``END``, or to the end of the text when ``END`` is missing), so a
redaction hides the key's body, not its first line alone.
"""

from __future__ import annotations

from typing import Any

import re2 as re

RULE_SET = "detect-secrets 1.5.0 (Apache-2.0), vendored; plus ARR's own rules"

# (kind, literal anchors of which one must occur (none: always run), pattern over bytes)
RULES: tuple[tuple[str, tuple[bytes, ...], re.Pattern[bytes]], ...] = (
    # detect-secrets: PrivateKeyDetector (+ PuTTY version 3, ours)
    (
        "private_key",
        (b"PRIVATE KEY", b"PuTTY-User-Key-File-"),
        re.compile(
            rb"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
            rb"(?:(?s:.)*?-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|(?s:.)*)"
            rb"|BEGIN SSH2 ENCRYPTED PRIVATE KEY(?s:.)*?(?:END SSH2 ENCRYPTED PRIVATE KEY|$)"
            rb"|PuTTY-User-Key-File-[23](?s:.)*?(?:Private-MAC: [0-9a-fA-F]+|$)"
        ),
    ),
    # detect-secrets: AWSKeyDetector
    (
        "cloud_access_key",
        (),  # no anchors: the regex's own prefix search is faster than nine substring scans
        re.compile(
            rb"(?P<t>(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16})"
            rb"(?:[^0-9A-Z]|$)"
        ),
    ),
    # ours: Google API keys
    (
        "google_api_key",
        (b"AIza",),
        re.compile(rb"(?P<t>AIza[0-9A-Za-z_\-]{35})(?:[^0-9A-Za-z_\-]|$)"),
    ),
    # detect-secrets: GitHubTokenDetector (fine-grained tokens: ours)
    (
        "github_token",
        (b"gh", b"github_pat_"),
        re.compile(rb"gh[pousr]_[A-Za-z0-9_]{36,255}|github_pat_[A-Za-z0-9_]{22,255}"),
    ),
    # detect-secrets: GitLabTokenDetector
    (
        "gitlab_token",
        (
            b"glpat-",
            b"gldt-",
            b"glft-",
            b"glsoat-",
            b"glrt-",
            b"GR1348941",
            b"glcbt-",
            b"glimt-",
            b"glptt-",
            b"glagent-",
            b"gloas-",
        ),
        re.compile(
            rb"(?P<t>(?:glpat|gldt|glft|glsoat|glrt)-[A-Za-z0-9_\-]{20,50}"
            rb"|GR1348941[A-Za-z0-9_\-]{20,50}"
            rb"|glcbt-(?:[0-9a-fA-F]{2}_)?[A-Za-z0-9_\-]{20,50}"
            rb"|glimt-[A-Za-z0-9_\-]{25}|glptt-[A-Za-z0-9_\-]{40}"
            rb"|glagent-[A-Za-z0-9_\-]{50,1000}[A-Za-z0-9_\-]{0,24}|gloas-[A-Za-z0-9_\-]{64})(?:\W|$)"
        ),
    ),
    # detect-secrets: SlackDetector (tokens, webhooks); app-level tokens xapp-: ours
    (
        "slack_token",
        (b"xox", b"XOX", b"hooks.slack.com", b"xapp-"),
        re.compile(
            rb"(?i:xox[abposr]-(?:\d+-)+[a-z0-9]+)"
            rb"|xox[abposr]-[A-Za-z0-9-]{10,250}"
            rb"|https://hooks\.slack\.com/services/T[a-zA-Z0-9_]+/B[a-zA-Z0-9_]+/[a-zA-Z0-9_]+"
            rb"|xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+"
        ),
    ),
    # detect-secrets: StripeDetector
    ("stripe_key", (b"k_live_",), re.compile(rb"[rs]k_live_[0-9a-zA-Z]{24}")),
    # detect-secrets: OpenAIDetector
    (
        "openai_key",
        (b"T3BlbkFJ",),
        re.compile(rb"sk-[A-Za-z0-9\-_]*[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}"),
    ),
    # detect-secrets: SendGridDetector
    ("sendgrid_key", (b"SG.",), re.compile(rb"SG\.[a-zA-Z0-9_\-]{22}\.[a-zA-Z0-9_\-]{43}")),
    # detect-secrets: PypiTokenDetector
    (
        "pypi_token",
        (b"pypi-AgE",),
        re.compile(
            rb"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9\-_]{70,}|pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9\-_]{70,}"
        ),
    ),
    # detect-secrets: NpmDetector
    (
        "npm_token",
        (b"_authToken",),
        re.compile(rb"//.+/:_authToken=\s*(?:npm_.+|[A-Fa-f0-9\-]{36})"),
    ),
    # detect-secrets: SquareOAuthDetector
    ("square_oauth", (b"sq0csp-",), re.compile(rb"sq0csp-[0-9A-Za-z\\\-_]{43}")),
    # detect-secrets: AzureStorageKeyDetector
    ("azure_storage_key", (b"AccountKey=",), re.compile(rb"AccountKey=[a-zA-Z0-9+/=]{88}")),
    # detect-secrets: BasicAuthDetector (a password inside a URL; placeholders: see below)
    (
        "basic_auth_url",
        (b"://",),
        re.compile(rb"://([^{}\s/:@]+):([^{}\s/:@?#\[\]]+)@"),
    ),
    # ours (gitleaks' huggingface-access-token): hf_ and 34 letters
    (
        "huggingface_token",
        (b"hf_",),
        re.compile(rb"(?P<t>hf_[A-Za-z]{34})(?:[^A-Za-z0-9_]|$)"),
    ),
    # ours: JWTs with a JSON payload (detect-secrets decodes; the eyJ prefix of both parts is
    # the base64 of '{"')
    (
        "jwt",
        (b"eyJ",),
        re.compile(rb"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ),
)


PLACEHOLDER_PASSWORDS = frozenset(
    b"pass password passwd pwd secret changeme example test user username admin root "
    b"postgres mysql guest demo xxx xxxx xxxxx yyy abc 123 1234 12345 123456 mypassword "
    b"yourpassword pa55word p4ssword tiger scott".split()
)


def real_url_password(match: Any) -> bool:
    """False for the placeholder passwords of examples and tests: a known placeholder, the user
    name again, a run of one character, or a template (``$``, ``%``, ``<``, ``*``)."""
    user, password = match.group(1), match.group(2)
    lowered = password.lower()
    return not (
        lowered in PLACEHOLDER_PASSWORDS
        or lowered == user.lower()
        or len(set(lowered)) == 1
        or any(c in password for c in b"$%<*")
    )


# kind -> a check of each match; a match it refuses is not a credential
VALIDATORS = {"basic_auth_url": real_url_password}


def span_of(match: Any) -> tuple[int, int]:
    """The credential's span: the group ``t`` where the pattern consumed the character after
    the token (RE2 has no look-ahead), else the whole match."""
    index = match.re.groupindex
    return match.span(index[b"t"] if b"t" in index else index["t"]) if index else match.span()
