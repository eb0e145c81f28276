"""Sensitive file names by family, case-insensitive: SSH keys of every key type (user, host,
deploy keys), infrastructure-as-code variable and state files; ordinary code is not hit."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from arr.safety.engine_globs import ENGINE_EXCLUDE_ARGS
from arr.safety.rules import is_sensitive_filename, is_sensitive_name
from arr.tools.grep import find_rg

SENSITIVE = [
    "id_rsa", "id_ed25519", "id_ed25519_sk", "ID_ECDSA", "id_ecdsa_sk.pub", "id_xmss",
    "ssh_host_ed25519_key", "ssh_host_rsa_key.pub", "deploy_key", "github_deploy_key",
    "terraform.tfvars", "prod.auto.tfvars", "vars.tfvars.json", "TERRAFORM.TFSTATE",
    "terraform.tfstate.backup", ".env.production", "server.PEM", "cert.p12", ".netrc",
    "Credentials.JSON", ".bash_history", "secrets.yaml", "kubeconfig",
    # from whispers' known-files list: keystores, password databases, tools' credential files
    "release.keystore", "login.keychain", "login.keychain-db", "vault.kdbx", "old.kdb",
    "safe.psafe3", "cert.pkcs12", "backup_ed25519", "host_ecdsa", "pip.conf", ".s3cfg",
    "sftp-config.json", "LocalSettings.php", "FileZilla.xml", "logins.json", "keys.db",
    "prod.secret.exs", "office.rdp", "recovery.BEK", "site.pubxml.user", "password.txt",
    ".muttrc", "robomongo.json",
]  # fmt: skip
# Ordinary code, data and configuration keep their place (names the source list has but are
# left out on purpose, and code named after what it handles).
ORDINARY = [
    "keyboard.py", "monkey.py", "key.py", "primary_keys.md", "notes.md", "tfvars.md",
    "secrets.py", "passwords.py", "settings.py", "setup.cfg", "config.php", "app.log",
    "dump.sql", "keyring.py", "rsa.py", "test_ed25519.py", "history.py", "cacert.crt",
    "glm_moe_dsa", "pca_rsa",
]  # fmt: skip


@pytest.mark.parametrize("name", SENSITIVE)
def test_secret_bearing_names_are_refused(name: str) -> None:
    assert is_sensitive_filename(name) and is_sensitive_name(f"deploy/{name}")


@pytest.mark.parametrize("name", ORDINARY)
def test_ordinary_files_are_not(name: str) -> None:
    assert not is_sensitive_filename(name)


def engine_files(rg: str, root: Path) -> list[str]:
    """The files ripgrep lists under ``root`` with the engine's exclusions, as grep runs it."""
    return subprocess.run(
        [rg, "--files", "--no-ignore", "--hidden", "--no-config", *ENGINE_EXCLUDE_ARGS],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()


def test_the_engine_glob_never_lists_a_sensitive_file(tmp_path: Path) -> None:
    """The arguments handed to ripgrep exclude every sensitive name at any depth and in any
    case, and nothing else (the engine never opens these files)."""
    rg = find_rg(None)
    if rg is None:
        pytest.skip("ripgrep not installed")
    for depth, folder in enumerate(["", "a", "a/b/c"]):
        for name in [*SENSITIVE, *ORDINARY]:
            path = tmp_path / folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"payload {depth}\n")
    (tmp_path / "deep" / ".aws").mkdir(parents=True)
    (tmp_path / "deep" / ".aws" / "config").write_text("payload\n")
    listed = engine_files(rg, tmp_path)
    names = sorted(Path(p).name for p in listed)
    assert names == sorted(ORDINARY * 3)


def test_the_engine_never_skips_a_folder_named_like_a_secret_file(tmp_path: Path) -> None:
    """A folder whose name a file rule would withhold (``answer_key``, ``credentials``,
    ``.env.d``, ``comp_sci_fundamentals_and_history``) is searched; a sensitive folder's own
    name (``.ssh``) is withheld, and a file of that name is not."""
    rg = find_rg(None)
    if rg is None:
        pytest.skip("ripgrep not installed")
    folders = ["answer_key", "credentials", ".env.d", "release.keystore", "notes.pem",
               "comp_sci_fundamentals_and_history", "war_history", ".SSH"]  # fmt: skip
    for folder in folders:
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "week1.md").write_text("payload\n")
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / ".ssh").write_text("a file named like the folder\n")
    listed = engine_files(rg, tmp_path)
    assert sorted(listed) == sorted([f"{f}/week1.md" for f in folders[:-1]] + ["x/.ssh"])
