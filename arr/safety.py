"""What ARR never reads or returns: sensitive file names, credential-like content, unsafe roots.

Used by the grep channel (before and after its engine runs) and by indexing (a file skipped here
never reaches an index). Name rules are case-insensitive. Content rules look for private key
blocks, cloud access keys, GitHub/Slack tokens, JWTs and ``api_key = "<high-entropy>"``-style
assignments; a file that matches is skipped whole, so no byte of it can appear in a snippet.
The regexes have no nested quantifiers, so they run in linear time on hostile content.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import PurePosixPath

SENSITIVE_DIRS = frozenset(
    {".ssh", ".aws", ".gnupg", ".docker", ".kube", ".azure", ".gcloud", ".git", ".password-store"}
)
SENSITIVE_EXACT = frozenset(
    {
        ".netrc",
        "_netrc",
        ".pgpass",
        ".git-credentials",
        ".npmrc",
        ".pypirc",
        ".htpasswd",
        "credentials",
        "credentials.json",
        "credentials.csv",
        "kubeconfig",
        ".dockercfg",
        "secrets.yaml",
        "secrets.yml",
        "secrets.json",
        "secrets.toml",
        "service-account.json",
    }
)
SENSITIVE_PREFIXES = (".env", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "credentials.")
SENSITIVE_SUFFIXES = (
    ".pem",
    ".key",
    ".p12",
    ".pfx",
    ".jks",
    ".keystore",
    ".kdbx",
    ".asc",
    ".gpg",
    "_history",
    ".history",
    ".env",
    ".ppk",
    ".ovpn",
    ".tfstate",
)

# Globs handed to ripgrep so it never even opens these (case-insensitive with --iglob).
ENGINE_EXCLUDE_GLOBS: tuple[str, ...] = (
    *(f"!{d}" for d in sorted(SENSITIVE_DIRS)),
    *(f"!{name}" for name in sorted(SENSITIVE_EXACT)),
    *(f"!{p}*" for p in SENSITIVE_PREFIXES),
    *(f"!*{s}" for s in SENSITIVE_SUFFIXES),
)

_SECRET_PATTERNS = (
    ("private_key", re.compile(rb"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")),
    ("cloud_access_key", re.compile(rb"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b")),
    ("google_api_key", re.compile(rb"\bAIza[0-9A-Za-z_\-]{35}\b")),
    (
        "github_token",
        re.compile(rb"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b"),
    ),
    ("slack_token", re.compile(rb"\bxox[abposr]-[A-Za-z0-9-]{10,250}")),
    ("jwt", re.compile(rb"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
)
_ASSIGNMENT = re.compile(
    rb"(?i)(?:api[_-]?key|secret[_-]?key|client[_-]?secret|access[_-]?token|auth[_-]?token|"
    rb"password|passwd|secret|token)[\"']?\s{0,5}[:=]\s{0,5}[\"']?([A-Za-z0-9/+_=\-.]{16,200})"
)
MIN_SECRET_ENTROPY = 3.5  # bits per character; English words and placeholders stay below


def is_sensitive_name(relative_path: str) -> bool:
    """True for a path any of whose parts is a secret-bearing name (case-insensitive)."""
    parts = [p.lower() for p in PurePosixPath(relative_path).parts]
    if not parts:
        return False
    if any(p in SENSITIVE_DIRS for p in parts[:-1]):
        return True
    name = parts[-1]
    return (
        name in SENSITIVE_EXACT
        or name.startswith(SENSITIVE_PREFIXES)
        or name.endswith(SENSITIVE_SUFFIXES)
    )


def shannon_entropy(value: bytes) -> float:
    counts = Counter(value)
    total = len(value)
    return -sum(c / total * math.log2(c / total) for c in counts.values()) if total else 0.0


def credential_kind(content: bytes) -> str | None:
    """The kind of credential the content seems to hold, or None."""
    for kind, pattern in _SECRET_PATTERNS:
        if pattern.search(content):
            return kind
    for match in _ASSIGNMENT.finditer(content):
        if shannon_entropy(match.group(1)) >= MIN_SECRET_ENTROPY:
            return "secret_assignment"
    return None


FORBIDDEN_ROOTS = ("/proc", "/dev", "/sys", "/run", "/var/run", "/boot", "/etc")


def unsafe_root_reason(path: str) -> str | None:
    """Why an absolute, resolved root directory may not be trusted, or None when it may."""
    if not path or not path.startswith("/"):
        return "root must be an absolute path"
    parts = PurePosixPath(path).parts
    if len(parts) <= 1:
        return "the filesystem root '/' cannot be a trusted root"
    for forbidden in FORBIDDEN_ROOTS:
        if parts[: len(PurePosixPath(forbidden).parts)] == PurePosixPath(forbidden).parts:
            return f"system directory {forbidden} cannot be a trusted root"
    return None
