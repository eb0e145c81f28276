"""The secret judge (issue 62): a maintained scanner's rules (Kingfisher, real, in process) plus
ARR's own, on text normalised once. Credentials written where researchers write them are
withheld and redacted; research text that only looks random (sequences, digests, content keys,
public keys, run ids) is not. ``make bench-judges`` measures the same on gitleaks' samples."""

from __future__ import annotations

import hashlib
import json
import random
import unicodedata
import uuid

import pytest

from arr.safety.normalise import FORMAT_CHARACTERS, neutral_view, visible_bytes, visible_text
from arr.safety.rules import credential_kind, redact_credentials

GITHUB = "ghp_" + "Xq7vR2nK9wP4xT1mB3cYa8LdE5fG6hJ0kM2n"  # 36 after the prefix
SLACK = "xoxb-159279836768-4720113853203-FOst5DLfEzmQgkz7cte5qiIx"
AZURE_AD = "bP88Q~rcBcYjzzOhg1Hnn76Wm3jGgakZiZ.8vMgR"  # no known prefix: the keyword rule


def notebook(source: str) -> str:
    cell = {"cell_type": "code", "source": [source], "outputs": [], "metadata": {}}
    return json.dumps({"cells": [cell], "nbformat": 4, "nbformat_minor": 5, "metadata": {}})


CONTEXTS = [
    pytest.param(f'github_token <- "{GITHUB}"', GITHUB, id="r-assignment"),
    pytest.param(f'api_key := "{AZURE_AD}"', AZURE_AD, id="go-short-assignment"),
    pytest.param(f'"client_secret" => "{AZURE_AD}",', AZURE_AD, id="php-arrow"),
    pytest.param(f"\\newcommand{{\\slacktoken}}{{{SLACK}}}", SLACK, id="latex-macro"),
    pytest.param(f"% token {GITHUB}\nWe train.", GITHUB, id="latex-comment"),
    pytest.param(f"@misc{{x,\n  note = {{{GITHUB}}}\n}}", GITHUB, id="bib-note"),
    pytest.param(f"@misc{{x,\n  password = {{{AZURE_AD}}}\n}}", AZURE_AD, id="bib-field"),
    pytest.param(notebook(f'token = "{SLACK}"\n'), SLACK, id="notebook-json-on-disk"),
    pytest.param(json.dumps({"note": f'set "client_secret": "{AZURE_AD}"'}), AZURE_AD, id="json"),
    pytest.param(f"SECRET_KEY_BASE = '{AZURE_AD}'", AZURE_AD, id="keyword-inside-the-name"),
    pytest.param(f"Run it with `{GITHUB}` as the token.", GITHUB, id="markdown-backticks"),
]


@pytest.mark.parametrize(("text", "secret"), CONTEXTS)
def test_a_credential_where_researchers_write_it_is_withheld_and_redacted(
    text: str, secret: str
) -> None:
    assert credential_kind(text.encode()) is not None
    shown, count = redact_credentials(f"before\n{text}\nafter")
    assert count >= 1 and "before" in shown and "after" in shown
    assert secret[4:20] not in shown


@pytest.mark.parametrize(
    "splitter",
    ["\u200b", "\u200e", "\u200f", "\ufe0f", "\u034f", "\u3164", "\u2060", "\u00ad", "\U000e0020"],
    ids=["ZWSP", "LRM", "RLM", "VS16", "CGJ", "HANGUL-FILLER", "WJ", "SHY", "TAG-SPACE"],
)
def test_a_token_split_by_a_character_that_renders_as_nothing_is_judged_whole(
    splitter: str,
) -> None:
    split = GITHUB[:18] + splitter + GITHUB[18:]
    assert credential_kind(f"token {split} here".encode()) is not None
    shown, count = redact_credentials(f"token {split} here")
    assert count == 1 and shown == "token [REDACTED] here"


def test_the_format_table_holds_every_format_character_of_this_python() -> None:
    table = {c for first, last in FORMAT_CHARACTERS for c in range(first, last + 1)}
    missing = [
        hex(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf" and c not in table
    ]
    assert not missing
    assert visible_text("a\u200bb\ufe0fc") == "abc"
    ascii_text = b"plain ascii"
    assert visible_bytes(ascii_text) is ascii_text  # no copy on the common path
    assert visible_bytes("é\u200e".encode() + b"\xff") == "é".encode() + b"\xff"  # not UTF-8: kept


def test_the_neutral_view_keeps_every_offset() -> None:
    text = b'\\newcommand{\\k}{v} x <- "y" {"a": "b\\n"} z := 1 => `q`'
    view = neutral_view(text)
    assert view is not None and len(view) == len(text)
    assert b"<-" not in view and b"{" not in view and b"\\" not in view
    assert neutral_view(b"plain words only") is None


def fasta(alphabet: str, lines: int) -> str:
    rng = random.Random(7)
    body = ("".join(rng.choice(alphabet) for _ in range(60)) for _ in range(lines))
    return ">chr1 sample\n" + "\n".join(body) + "\n"


SHA256 = [hashlib.sha256(str(i).encode()).hexdigest() for i in range(40)]
UUIDS = [str(uuid.UUID(int=i * 7919 << 64, version=4)) for i in range(50)]
EXPERIMENTS = [{"key": f"exp-k3j9x2a{i}", "seed": i} for i in range(30)]
RESEARCH = [
    # ACCA + 16 capitals (the AWS key rule's prefix) occurs in about one DNA line in 256
    pytest.param(fasta("ACGT", 3000), id="fasta-dna"),
    pytest.param(fasta("ACDEFGHIKLMNPQRSTVWY", 3000), id="fasta-protein"),
    pytest.param("".join(f'cache_key = "{d}"\n' for d in SHA256), id="cache-key-sha256"),
    pytest.param("".join(f"- path: d.csv\n  key: {d}\n" for d in SHA256), id="yaml-key-hash"),
    pytest.param(f'public_key = "04{SHA256[0]}{SHA256[1]}"\n', id="public-key-04"),
    pytest.param("\n".join(UUIDS), id="uuids"),
    pytest.param(json.dumps(EXPERIMENTS), id="exp-keys"),
    pytest.param("".join(f"commit {d[:40]}\n" for d in SHA256), id="git-shas"),
    pytest.param("".join(f"run_id: {d[:32]}\n" for d in SHA256), id="mlflow-run-ids"),
    pytest.param("wandb: run_id = 3k2j9x1a\nhttps://wandb.ai/lab/p/runs/8fk3ab2x\n", id="wandb"),
    pytest.param("doi:10.1016/j.cell.2024.01.017 arXiv:2310.06825v2\n", id="doi-arxiv"),
]  # fmt: skip


@pytest.mark.parametrize("text", RESEARCH)
def test_research_text_that_looks_random_is_not_a_credential(text: str) -> None:
    assert credential_kind(text.encode()) is None
    assert redact_credentials(text[:20_000])[1] == 0


@pytest.mark.parametrize(
    "text",
    [
        "AKIAQ7B5L1WUAEZKSHL8 rotated",  # an access key id with its digits
        f'client_secret: "{SHA256[0]}"',  # a hex secret under a secret's name
        f'api_key = "{SHA256[0]}"',
    ],
)
def test_what_the_research_exceptions_do_not_excuse(text: str) -> None:
    assert credential_kind(text.encode()) is not None
