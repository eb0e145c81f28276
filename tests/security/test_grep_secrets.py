"""Sensitive names and credential-like content are never read into a result.

Fake secrets are generated at test time from random bytes, never committed as literal tokens.
"""

from __future__ import annotations

import base64
import secrets
import string
from pathlib import Path

import pytest

from arr.safety.rules import credential_kind, is_sensitive_name
from arr.tools.grep import GrepTool
from tests.grep_fixtures import MARK, grep_workspace, returned_text, run


def rand(alphabet: str, n: int) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(n))


UPPER_DIGITS = string.ascii_uppercase + string.digits
ALNUM = string.ascii_letters + string.digits


def fake_secrets() -> dict[str, str]:
    b64 = lambda raw: base64.urlsafe_b64encode(raw).decode().rstrip("=")  # noqa: E731
    header = b64(b'{"alg":"HS256","typ":"JWT"}')
    return {
        "private_key": "-----BEGIN "
        + "RSA PRIVATE KEY-----\n"
        + rand(ALNUM, 64)
        + "\n-----END RSA PRIVATE KEY-----",
        "openssh_key": "-----BEGIN " + "OPENSSH PRIVATE KEY-----\n" + rand(ALNUM, 64),
        "cloud_access_key": "AKIA" + rand(UPPER_DIGITS, 16),
        "github_token": "ghp_" + rand(ALNUM, 36),
        "github_pat": "github_pat_" + rand(ALNUM + "_", 40),
        "slack_token": "xoxb-" + rand(string.digits, 12) + "-" + rand(ALNUM, 24),
        "jwt": header + "." + b64(b'{"sub":"1234567890"}') + "." + rand(ALNUM, 32),
        "secret_assignment": f'api_key = "{rand(ALNUM + "+/", 40)}"',
    }


@pytest.mark.parametrize("kind", sorted(fake_secrets()))
def test_credential_files_are_skipped_whole(tmp_path: Path, kind: str) -> None:
    ws = grep_workspace(tmp_path)
    secret = fake_secrets()[kind]
    (ws.root / "root" / "config.py").write_text(f"# {MARK}\nvalue = 1\n{secret}\n# {MARK}\n")
    (ws.root / "root" / "clean.py").write_text(f"# {MARK}\n")
    answer = run(GrepTool("grep", ws))
    assert [e.location.path for e in answer.evidence] == ["clean.py"]
    assert answer.counters["skipped_credential"] == 1
    text = returned_text(answer)
    assert secret not in text and "value = 1" not in text


@pytest.mark.parametrize(
    "value",
    [
        'api_key = "changeme_changeme"',
        "password: <your password>",
        "token = os.environ['GITHUB_TOKEN']",
    ],
)
def test_placeholders_are_not_credentials(value: str) -> None:
    assert credential_kind(value.encode()) is None


@pytest.mark.parametrize(
    "line",
    [
        "query, key = apply_rotary_pos_emb_2d(q, k)",
        "min_key = self.order.__getitem__",
        "def take(self, key: PositionalIndexer2D, axis: int = 0):",
        "constexpr auto *local_key = PYBIND11_MODULE_LOCAL_ID;",
        "const token = TOKEN_KIND_IDENTIFIER_V2;",
    ],
)
def test_code_found_in_installed_packages_is_not_a_credential(line: str) -> None:
    """Lines that withheld whole files of torch, transformers and pandas (bench-secrets)."""
    assert credential_kind(line.encode()) is None


@pytest.mark.parametrize(
    "line",
    [
        "API_KEY=Zq8vR2nK7wP4xT9mB3cY",
        'api_key = "Zq8vR2nK7wP4xT9mB3cY"',
        "export SECRET_TOKEN='Zq8vR2nK7wP4xT9mB3cY';",
    ],
)
def test_assigned_random_values_still_are(line: str) -> None:
    assert credential_kind(line.encode()) == "secret_assignment"


@pytest.mark.parametrize(
    "name",
    [
        ".env",
        ".ENV",
        ".env.local",
        ".Env.Production",
        "prod.env",
        "id_rsa",
        "ID_RSA.pub",
        "id_ed25519",
        "server.pem",
        "tls.KEY",
        "store.jks",
        "cert.p12",
        "credentials",
        "credentials.json",
        ".netrc",
        ".pgpass",
        ".git-credentials",
        ".bash_history",
        ".zsh_history",
        ".aws/config",
        ".ssh/config",
        "sub/.docker/config.json",
        ".npmrc",
        ".pypirc",
        "secrets.yaml",
        "kubeconfig",
    ],
)
def test_sensitive_names_are_never_read(tmp_path: Path, name: str) -> None:
    assert is_sensitive_name(name)
    ws = grep_workspace(tmp_path)
    target = ws.root / "root" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(f"{MARK} sensitive_payload\n")
    (ws.root / "root" / "ok.md").write_text(f"{MARK}\n")
    answer = run(GrepTool("grep", ws))
    assert [e.location.path for e in answer.evidence] == ["ok.md"]
    assert "sensitive_payload" not in returned_text(answer)


@pytest.mark.parametrize("name", ["notes.md", "environment.md", "keys_design.md", "tokenizer.py"])
def test_ordinary_names_are_searched(name: str) -> None:
    assert not is_sensitive_name(name)


def test_remembered_verdicts_follow_the_bytes() -> None:
    """Large contents' verdicts are remembered by digest: the same bytes get the same answer,
    and one changed byte that makes a credential is caught at once (no stale verdict)."""
    from arr.safety.rules import credential_kind

    filler = b"value = compute(key_states)\n" * 400  # > the 4 kB the cache starts at
    token = "ghp_" + "a1B2c3D4e5" * 4
    clean = filler + b"note = 'ghp_'\n"
    dirty = filler + f"note = '{token}'\n".encode()
    assert credential_kind(clean) is None
    assert credential_kind(clean) is None  # remembered
    assert credential_kind(dirty) == "betterleaks.github-pat"  # the scanner's rule id
    assert credential_kind(bytes(bytearray(clean))) is None  # equal bytes, another object
