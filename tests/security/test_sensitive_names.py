"""Sensitive file names by family, case-insensitive: SSH keys of every key type (user, host,
deploy keys), infrastructure-as-code variable and state files; ordinary code is not hit."""

from __future__ import annotations

import pytest

from arr.safety import is_sensitive_filename, is_sensitive_name


@pytest.mark.parametrize(
    "name",
    [
        "id_rsa",
        "id_ed25519",
        "id_ed25519_sk",
        "ID_ECDSA",
        "id_ecdsa_sk.pub",
        "id_xmss",
        "ssh_host_ed25519_key",
        "ssh_host_rsa_key.pub",
        "deploy_key",
        "github_deploy_key",
        "terraform.tfvars",
        "prod.auto.tfvars",
        "vars.tfvars.json",
        "TERRAFORM.TFSTATE",
        "terraform.tfstate.backup",
        ".env.production",
        "server.PEM",
        "cert.p12",
    ],
)
def test_secret_bearing_names_are_refused(name: str) -> None:
    assert is_sensitive_filename(name) and is_sensitive_name(f"deploy/{name}")


@pytest.mark.parametrize(
    "name", ["keyboard.py", "monkey.py", "key.py", "primary_keys.md", "notes.md", "tfvars.md"]
)
def test_ordinary_files_are_not(name: str) -> None:
    assert not is_sensitive_filename(name)
