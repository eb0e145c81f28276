"""What ARR never reads or returns: sensitive file names, credential-like content, unsafe roots.

Used by the grep channel (before and after its engine runs) and by indexing (a file skipped here
never reaches an index). Name rules are case-insensitive. Content rules look for private key
blocks, cloud access keys, GitHub/Slack/Hugging Face tokens, JWTs (:mod:`arr.safety.secret_rules`)
and ``api_key = "<high-entropy>"``-style assignments in every form (:mod:`arr.safety.keyword_rule`);
a file that matches is skipped whole, so no byte of it can appear in a snippet. Linear in the
content by construction: the token rules run on RE2, the keyword rule's tail is bounded and
runs only where a keyword stands (a test judges a 1 MB run of each rule's own prefix).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import PurePosixPath

from arr.safety import name_verdicts
from arr.safety.audit_secret import audit_key_spans
from arr.safety.form_rules import form_spans
from arr.safety.keyword_rule import secret_assignments
from arr.safety.normalise import json_strings, neutral_view, visible_bytes, visible_text
from arr.safety.scanner import scanner_spans
from arr.safety.secret_rules import RULES, VALIDATORS, span_of

# Sensitive names. Source: whispers 2.4.0's ``rules/files.yml`` ("known files with potentially
# sensitive information"; BSD-3-Clause, arr/licenses/whispers-2.4.0-LICENSE; the list descends from
# gitrob's signatures), taken entry by entry where the file is a credential store: keys and
# keystores, password databases, credential and token files of named tools, shell histories.
# Left out, on purpose: generic configuration and source names (cfg, conf, ini, config,
# settings.py, config.php, *rc, profile), data and logs (log, sql, dump, pcap, sqlite, mdf,
# backup), public certificates (crt, cer, p7b), and personal files that hold no credential
# (journal.txt, Favorites.plist): withholding those would hide ordinary research material, and
# a credential inside them is caught by the content rules instead. Its folder-qualified
# entries live in hidden folders here (.irssi); the home folder cannot be a root.
# Added beyond it: infrastructure-as-code state and variables, key-type families, .gnupg etc.
SENSITIVE_DIRS = frozenset(
    {
        ".ssh",
        ".aws",
        ".gnupg",
        ".docker",
        ".kube",
        ".azure",
        ".gcloud",
        ".git",
        ".password-store",
        ".irssi",
        # ARR's own workspace folder: its indexes hold the text of every scope (a grep of
        # one scope whose root holds it read another scope's chunks), its state the memory
        # store and the approvals ledger. Never searched, whatever scope.
        ".arr",
    }
)
SENSITIVE_EXACT = frozenset(
    {
        ".netrc",
        "_netrc",
        ".pgpass",
        "pgpass",
        ".git-credentials",
        ".npmrc",
        ".pypirc",
        "pip.conf",
        ".s3cfg",
        ".htpasswd",
        "proftpdpasswd",
        ".gitrobrc",
        "credentials",
        "credentials.json",
        "credentials.csv",
        "kubeconfig",
        ".dockercfg",
        "secrets.yaml",
        "secrets.yml",
        "secrets.json",
        "secrets.toml",
        "secrets.csv",
        "secret.json",
        "secret.yaml",
        "secret.yml",
        "login.json",
        "logins.json",
        "login.yaml",
        "login.yml",
        "password",
        "passwords",
        "password.txt",
        "passwords.txt",
        "service-account.json",
        "sftp-config.json",
        "sftp.json",
        "webservers.xml",
        "localsettings.php",
        "config.inc.php",
        "secret_token.rb",
        "secret-token.rb",
        "omniauth.rb",
        "carrierwave.rb",
        "knife.rb",
        "accounts.xml",
        "dbeaver-data-sources.xml",
        "bapsshpublisherplugin.xml",
        "filezilla.xml",
        "recentservers.xml",
        "servlist.conf",
        "servlist_.conf",
        "keys.db",
        "robomongo.json",
        "heroku.json",
        "remote-sync.json",
        "deployment-config.json",
        "mongoid.yml",
        "mongoid.yaml",
        "salesforce.js",
        "ventrilo_srv.ini",
        "muttrc",
        ".muttrc",
        ".tugboat",
        ".esmtprc",
        ".ftpconfig",
        "prod.secret.exs",
        # shell and REPL histories, by their whole names (a suffix rule took a research
        # folder such as comp_sci_fundamentals_and_history for one); any other hidden
        # ``.*_history`` / ``.*.history`` file is caught by is_sensitive_filename
        ".history",
        ".bash_history",
        ".zsh_history",
        ".sh_history",
        ".histfile",
        ".python_history",
        ".psql_history",
        ".mysql_history",
        ".sqlite_history",
        ".node_repl_history",
        ".irb_history",
        ".rediscli_history",
        ".rhistory",
        ".lesshst",
    }
)
# SSH keys by family, not by single name: id_<type>[_sk], ssh_host_<type>_key, deploy keys.
SENSITIVE_PREFIXES = (
    ".env",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "id_xmss",
    "ssh_host_",
    "credentials.",
)
SENSITIVE_SUFFIXES = (
    ".pem",
    ".key",
    ".p12",
    ".pfx",
    ".pkcs12",
    ".jks",
    "keystore",  # .keystore, private-keystore
    "keyring",
    "keychain",
    "keychain-db",
    "keypair",
    ".kdb",
    ".kdbx",
    ".psafe3",
    ".kwallet",
    ".asc",
    ".gpg",
    ".env",
    ".ppk",
    ".ovpn",
    ".tblk",
    ".rdp",
    ".bek",  # BitLocker recovery and key protector files
    ".tpm",
    ".fve",
    ".pubxml",
    ".pubxml.user",
    # Private keys named by type (backup_ed25519). Not _rsa/_dsa: folder names end so too
    # (transformers' glm_moe_dsa), and a folder's name withholds all of it.
    "_ecdsa",
    "_ed25519",
    ".tfstate",
    ".tfstate.backup",
    ".tfvars",  # infrastructure-as-code variable files hold provider secrets
    ".tfvars.json",
    ".auto.tfvars",
    "_key",  # deploy_key, host_key, signing_key ...
    "_key.pub",
)
# Hidden files only: ``.psql_history``, ``.julia.history`` (a folder ``war_history`` is no shell's).
HIDDEN_SUFFIXES = ("_history", ".history")


def is_sensitive_name(relative_path: str) -> bool:
    """True for a path any of whose parts is a secret-bearing name (case-insensitive): a
    sensitive folder, a credential store's file name, or a name that holds a credential."""
    parts = PurePosixPath(relative_path).parts
    if not parts:
        return False
    if any(is_sensitive_folder(p) for p in parts[:-1]):
        return True
    return is_sensitive_filename(parts[-1])


def is_sensitive_filename(name: str) -> bool:
    """The file-name half of ``is_sensitive_name``: the whole name is a credential store's
    (exact, prefix or suffix rule), or the name holds a credential."""
    lowered = name.lower()
    return (
        lowered in SENSITIVE_EXACT
        or lowered.startswith(SENSITIVE_PREFIXES)
        or lowered.endswith(SENSITIVE_SUFFIXES)
        or (lowered.startswith(".") and lowered.endswith(HIDDEN_SUFFIXES))
        or name_holds_credential(name)
    )


def is_sensitive_folder(name: str) -> bool:
    """A folder withheld whole: a credential folder by its whole name (``.ssh``, ``.arr``), or
    a folder whose name holds a credential. The file rules never judge a folder's name."""
    return name.lower() in SENSITIVE_DIRS or name_holds_credential(name)


# A credential is a run of 16 or more token characters (or a keyword assignment, whose value
# is one): a name without such a run is passed at C speed, every walk judges every name.
_TOKEN_RUN = re.compile(r"[A-Za-z0-9_+=\-]{16}")


def name_holds_credential(name: str) -> bool:
    """True when a file or folder name holds a credential (names are text: shown in paths,
    listings and skip lists)."""
    if not _TOKEN_RUN.search(visible_text(name)):
        return False
    return _name_verdict(name)


def shown_name(text: str) -> str:
    """A path or a short message as it may be shown: any credential in it redacted (the
    common name, without a run of 16 token characters, is returned as it is at C speed)."""
    if not _TOKEN_RUN.search(visible_text(text)):
        return text
    return redact_credentials(text)[0]


@functools.lru_cache(maxsize=65536)  # names recur in every walk
def _name_verdict(name: str) -> bool:
    kept = name_verdicts.known(name)  # judged by an earlier process (arr.safety.name_verdicts)
    raw = name.encode("utf-8", "surrogateescape")
    if kept is not None:  # the audit key is no part of the kept verdict: asked every time
        return kept or next(audit_key_spans(visible_bytes(raw)), None) is not None
    holds = credential_kind(raw) is not None
    name_verdicts.record(name, holds)
    return holds


def token_spans(content: bytes) -> Iterator[tuple[str, int, int]]:
    """(kind, start, end) of the known token formats in normalised ``content``: ARR's own rules
    for the forms the scanner lacks (:mod:`arr.safety.secret_rules`; each anchor test runs at
    C speed, so a regex only runs on the contents that could match), then the maintained
    scanner's (:mod:`arr.safety.scanner`) on the text and on its neutral view (same offsets,
    :func:`arr.safety.normalise.neutral_view`)."""
    for kind, anchors, pattern in RULES:  # first: cheap, and a verdict needs one span only
        if not anchors or any(anchor in content for anchor in anchors):
            valid = VALIDATORS.get(kind)
            for match in pattern.finditer(content):
                if valid is None or valid(match):
                    yield kind, *span_of(match)
    yield from scanner_spans(content)
    view = neutral_view(content)
    if view is not None:
        yield from scanner_spans(view)


def _credential_spans(content: bytes) -> Iterator[tuple[str, int, int]]:
    """Every credential-like value, lazily: token formats, then ``key = "<high entropy>"``."""
    for start, end in audit_key_spans(content):  # ARR's own key, copied where a search reads
        yield "audit_key", start, end
    yield from token_spans(content)
    yield from form_spans(content)
    for start, end in secret_assignments(content):
        yield "secret_assignment", start, end


def credential_kind(content: bytes) -> str | None:
    """The kind of credential the content seems to hold, or None.

    Verdicts on larger contents are remembered by a digest of the bytes (same bytes, same
    verdict; no file name or time involved, so no race): grep re-checks the same source files
    on every search, and a 100 kB module full of ``key``/``token`` words costs ~5 ms to scan."""
    content = visible_bytes(content)
    if len(content) < _CACHE_FROM_BYTES:
        return _first_kind(content)
    key = hashlib.blake2b(content, digest_size=16).digest()
    with _VERDICTS_LOCK:
        if key in _VERDICTS:
            _VERDICTS.move_to_end(key)
            return _VERDICTS[key]
    kind = _first_kind(content)
    with _VERDICTS_LOCK:
        _VERDICTS[key] = kind
        while len(_VERDICTS) > _MAX_VERDICTS:
            _VERDICTS.popitem(last=False)
    return kind


def _first_kind(content: bytes) -> str | None:
    """The first credential in the content, or else in a JSON file's decoded strings."""
    kind = next((kind for kind, _, _ in _credential_spans(content)), None)
    if kind is None and (strings := json_strings(content)) is not None:
        kind = next((kind for kind, _, _ in _credential_spans(visible_bytes(strings))), None)
    return kind


_CACHE_FROM_BYTES = 4096
_MAX_VERDICTS = 8192
_VERDICTS: OrderedDict[bytes, str | None] = OrderedDict()
_VERDICTS_LOCK = threading.Lock()


REDACTED = "[REDACTED]"


@functools.lru_cache(maxsize=8192)  # indexed snippets recur across searches: check each once
def redact_credentials(text: str) -> tuple[str, int]:
    """``text`` with invisible characters removed and every credential-like value replaced by
    ``[REDACTED]``; returns (text, number of redactions). The one filter every channel's
    evidence passes before it leaves the Router (memory snippets included)."""
    visible = visible_text(text)
    raw = visible.encode("utf-8", "surrogatepass")
    spans = sorted({(start, end) for _, start, end in _credential_spans(raw)})
    if not spans:
        return visible, 0
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out, cursor = bytearray(), 0
    for start, end in merged:
        out += raw[cursor:start] + REDACTED.encode()
        cursor = end
    out += raw[cursor:]
    return out.decode("utf-8", "replace"), len(merged)


FORBIDDEN_ROOTS = ("/proc", "/dev", "/sys", "/run", "/var/run", "/boot", "/etc")


def holds_arr_data(root: str, own: str) -> bool:
    """True when ``own`` (an index or state folder of ARR, resolved) lies inside ``root``
    (resolved) other than below a folder every channel withholds by name (``.arr``, ...):
    a channel reading the root would read ARR's derived text of every scope."""
    inside = PurePosixPath(own).parts
    parts = PurePosixPath(root).parts
    if inside[: len(parts)] != parts:
        return False
    return not any(part.lower() in SENSITIVE_DIRS for part in inside[len(parts) :])


def unsafe_root_reason(path: str) -> str | None:
    """Why an absolute, resolved root directory may not be trusted, or None when it may."""
    if not path or not path.startswith("/"):
        return "root must be an absolute path"
    parts = PurePosixPath(path).parts
    if len(parts) <= 1:
        return "the filesystem root '/' cannot be a trusted root"
    hidden = next((p for p in parts if p.lower() in SENSITIVE_DIRS), None)
    if hidden is not None:  # every file below would be withheld by name; .arr holds every scope
        return (
            f"it is inside the folder {hidden!r}, which every channel withholds by name "
            "(credentials, ARR's own indexes, run folders and state)"
        )
    for forbidden in FORBIDDEN_ROOTS:
        if parts[: len(PurePosixPath(forbidden).parts)] == PurePosixPath(forbidden).parts:
            return f"system directory {forbidden} cannot be a trusted root"
    # Decision: the home folder (or a folder holding it, such as /home) is refused. It holds
    # every dotfile with credentials and every other project; the sensitive-name rules are a
    # second line, not a licence to index all of it. A project folder below home is fine.
    home = PurePosixPath(os.path.realpath(os.path.expanduser("~"))).parts
    if len(home) > 1 and home[: len(parts)] == parts:
        return (
            "the home folder, or a folder that holds it, cannot be a trusted root "
            "(point the scope at a project folder instead)"
        )
    return None
