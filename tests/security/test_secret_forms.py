"""The walls on the paths beside the ones they were built for (issue 53): secrets without a
known prefix written the ordinary ways (YAML/INI unquoted, a subscript, ``os.environ[...]``),
Hugging Face tokens, a private key's body, memories shown by MCP and the CLI, format characters
in a bookmark title; and every token rule linear in its input (RE2)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from arr.readers.outline import clean_title
from arr.safety.rules import credential_kind, redact_credentials
from arr.safety.secret_rules import RULES
from tests.machine_speed import grace_s

HEX = "a3f9c1d27e5b4a8f9c0d1e2f3a4b5c6d7e8f90a1b2c3d4e5f6a7b8c9d0e1f2a3"  # starts with a letter
HF = "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh"  # 34 letters
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9v8X2Lk4"
PEM = (
    "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n"
    "q3W9x8Z2LmN4pR6sT8vU0wY2aC4eG6iK8mO0qS2uW4yA6cE8gI0kM\n-----END PRIVATE KEY-----"
)

PLANTED = [
    f"client_secret: {HEX}",  # YAML, unquoted, a value opening with a letter
    f"client_secret = {HEX}",  # INI
    f'cfg["client_secret"] = "{HEX}"',  # a subscript
    f'os.environ["AWS_SECRET_ACCESS_KEY"] = "{AWS_SECRET}"',
    f'login("{HF}")',  # a Hugging Face token as a call's argument
    f'os.environ["HF_TOKEN"] = "{HF}"',
    f"huggingface: {HF}",
    PEM,
]
CODE = [
    "key = apply_rotary_pos_emb_2d(q)",
    "num_key_value_heads: 8",
    "min_key = self.order.__getitem__",
    "token: PositionalIndexer2D,",
    "secret_word = lookup_table_entry",
    "hf_hub_download(repo_id, filename)",
]


@pytest.mark.parametrize("text", PLANTED)
def test_a_secret_written_the_ordinary_ways_is_judged_and_redacted(text: str) -> None:
    assert credential_kind(text.encode()) is not None
    shown, count = redact_credentials(f"before\n{text}\nafter")
    assert count >= 1 and "before" in shown and "after" in shown
    for secret in (HEX, HF, AWS_SECRET, "MIIEvQIBADANBgkqhkiG9w0", "q3W9x8Z2LmN4pR6s"):
        assert secret not in shown  # a private key's body too, not its first line alone


@pytest.mark.parametrize("text", CODE)
def test_code_that_names_keys_and_tokens_is_not_a_secret(text: str) -> None:
    assert credential_kind(text.encode()) is None


def test_a_format_character_in_a_bookmark_is_removed_so_the_token_is_whole() -> None:
    title = clean_title("Notes AKIA\u200bQ7XZ3B9KJ2LMN4PR\u2060 here")
    assert "AKIAQ7XZ3B9KJ2LMN4PR" in title
    assert credential_kind(title.encode()) == "cloud_access_key"


def test_every_token_rule_runs_on_a_linear_time_engine() -> None:
    """RE2 matches in time linear in the text whatever the pattern; Python's ``re`` took 8.4 s,
    50 s and 47 s on 96 KB runs of ``eyJ``, ``sk-`` and ``//``."""
    assert all(type(pattern).__module__.startswith("re2") for _, _, pattern in RULES)


@pytest.mark.slow
@pytest.mark.parametrize(
    "unit",
    [b"eyJ", b"sk-", b"//", b"AKIA", b"ghp_", b"xoxb-", b"glpat-", b"hf_", b"key=", b"token: ",
     b'x["secret"] = ', b"://a:", b"-----BEGIN PRIVATE KEY-----", b"a" * 7 + b"."],
)  # fmt: skip
def test_a_megabyte_of_a_rules_own_prefix_is_judged_in_about_a_second(unit: bytes) -> None:
    """Each rule's pathological input: 1 MB of its prefix, with every anchor present so no rule
    is skipped. The bound is loose (a slow CI machine); quadratic rules took minutes."""
    anchors = b" T3BlbkFJ _authToken PRIVATE KEY AIza SG. pypi-AgE sq0csp- AccountKey= eyJ"
    content = unit * (1_000_000 // len(unit)) + anchors
    started = time.perf_counter()
    credential_kind(content)
    redact_credentials(content.decode("latin-1")[:200_000])
    assert time.perf_counter() - started < grace_s(5.0, at_most=60)


def test_memory_get_and_memory_show_never_return_a_stored_secret(tmp_path: Path) -> None:
    from arr.memory.store import ResearchMemoryStore
    from tests.conftest import SCOPE_A
    from tests.unit.test_serve_memory_errors import service

    db = tmp_path / "m.sqlite3"
    store = ResearchMemoryStore(db)
    body = f"deploy notes\n{PEM}\ntoken ghp_{'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'}\n{HF}"
    store.add_draft("m1", SCOPE_A, "Access", body)
    store.transition("m1", "publish")
    shown = service(db).memory_get("m1", "a")
    text = repr(shown)
    assert "deploy notes" in text and "[REDACTED]" in text
    for secret in ("MIIEvQIBADANBgkqhkiG9w0", "ghp_a1B2", HF):
        assert secret not in text
    assert store.get("m1").body == body  # the store keeps what was written
