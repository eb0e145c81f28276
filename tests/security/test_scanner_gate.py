"""The gate before the scanner never lets a finding through unjudged: every rule the judge
reports has a condition in the table that its regex implies (read by structure, errs one way),
every finding the scanner makes on gitleaks' samples placed in every research context and on
its own rules' examples is in a text the gate passes to it, base64 of a token too; and a text
without a candidate judged alone does not compile the rule set (the cold search's second)."""

from __future__ import annotations

import base64
import functools
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from arr.safety import scanner
from arr.safety.gate_derive import parse, rule_implies, visible_rules
from arr.safety.normalise import neutral_view, visible_bytes
from arr.safety.scanner_gate import may_hold_finding, table

KINGFISHER, CONDITIONS = table()

PLACEMENTS = Path(__file__).resolve().parents[3] / "shared/data/secrets-dev/gitleaks-samples.jsonl"
TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


@functools.cache
def _rules() -> list[tuple[str, str]]:
    return visible_rules()


def _finds(text: bytes) -> bool:
    findings = scanner.scanner().scan(text, timeout=30)
    return any(f.visible for f in findings)


@pytest.mark.parametrize(
    ("pattern", "condition", "holds"),
    [
        pytest.param(r"ghp_[0-9a-zA-Z]{36}", {("atom", b"ghp_", False)}, True, id="literal-prefix"),
        pytest.param(r"ghp_[0-9a-zA-Z]{36}", {("atom", b"ghx_", False)}, False, id="other-literal"),
        pytest.param(r"(?i)ghp_x", {("atom", b"ghp_", False)}, False, id="folded-needs-folded"),
        pytest.param(r"(?i)ghp_x", {("atom", b"GHP_", True)}, True, id="folded-atom"),
        pytest.param(r"(?:sk|rk)_live", {("atom", b"sk_live", False)}, False, id="one-branch"),
        pytest.param(
            r"(?:sk|rk)_live",
            {("atom", b"sk_live", False), ("atom", b"rk_", False)},
            True,
            id="every-branch",
        ),
        pytest.param(r"x[a-f0-9]{32}", {("run", b"0123456789abcdef", 32)}, True, id="run"),
        pytest.param(r"x[a-f0-9]{32}", {("run", b"0123456789abcdef", 33)}, False, id="run-short"),
        pytest.param(r"x[a-g0-9]{32}", {("run", b"0123456789abcdef", 8)}, False, id="run-wider"),
        pytest.param(
            r"x\w{20}",
            {("run", b"_0123456789abcdefghijklmnopqrstuvwxyz", 8)},
            False,
            id="unicode-word",
        ),
        pytest.param(r"a(?:bc)?d", {("atom", b"abcd", False)}, False, id="optional-part"),
        pytest.param(r"(?:abc){0,3}d", {("atom", b"abc", False)}, False, id="zero-repeats"),
    ],
)
def test_a_condition_is_implied_only_when_every_match_meets_it(
    pattern: str, condition: set[Any], holds: bool
) -> None:
    assert rule_implies(pattern, frozenset(condition)) is holds


@pytest.mark.slow
def test_every_rule_the_judge_reports_has_a_condition_its_regex_implies() -> None:
    assert version("kingfisher-secret-scanner") == KINGFISHER, "regenerate the gate's table"
    rules = _rules()
    assert {rule_id for rule_id, _ in rules} == set(CONDITIONS)
    wrong = [
        (rule_id, number)
        for rule_id, pattern in rules
        for number, condition in enumerate(CONDITIONS[rule_id])
        if not rule_implies(pattern, condition)
    ]
    assert wrong == []
    assert all(parse(pattern) for _, pattern in rules)


@pytest.mark.slow
def test_every_finding_on_the_rules_own_examples_is_in_a_text_the_gate_passes() -> None:
    import kingfisher_sdk

    rules = kingfisher_sdk.Rules(confidence="medium", cache_dir=scanner.rule_cache_dir())
    missed = []
    for rule_id, _ in _rules():
        for example in rules.detail(rule_id)["examples"] or ():
            text = example.encode()
            if _finds(text) and not may_hold_finding(text):
                missed.append(rule_id)
    assert missed == []


@pytest.mark.slow
@pytest.mark.skipif(not PLACEMENTS.is_file(), reason="gitleaks samples not here")
def test_every_finding_on_placed_samples_is_in_a_text_the_gate_passes() -> None:
    from benchmarks.safety.placements import placed, samples

    missed = []
    for number, sample in enumerate(samples()):
        for context, (name, raw) in placed(sample, number).items():
            if name.endswith(".pdf"):
                continue  # typeset: its text is judged as the reader extracts it
            content = visible_bytes(raw)
            for view in (content, neutral_view(content)):
                if view is not None and _finds(view) and not may_hold_finding(view):
                    missed.append((sample["rule"], context))
    assert missed == []


@pytest.mark.parametrize(
    "encode", [base64.b64encode, base64.urlsafe_b64encode], ids=["base64", "base64url"]
)
def test_a_token_in_base64_is_passed_to_the_scanner(encode: Any) -> None:
    encoded = encode(f"key?>> {TOKEN}".encode())
    assert may_hold_finding(b"blob = " + encoded + b"\n")


def test_a_text_without_a_candidate_does_not_compile_the_rule_set() -> None:
    scanner.scanner.cache_clear()
    text = b"def secure_filename(filename: str) -> str:\n    return filename.strip('._')\n"
    assert list(scanner.scanner_spans(text)) == []
    assert scanner.scanner.cache_info().currsize == 0
    assert list(scanner.scanner_spans(f"token = {TOKEN}\n".encode())) != []


@pytest.mark.parametrize(
    "prose",
    [
        b"Data: the New York Times annotated corpus (Sandhaus, 2008).",
        b"We ran the experiments on AWS; each session used a security token of the lab.",
        b"Code and data: https://github.com/lab/project (MIT licence).",
        b"Discord servers and Twitter threads were not sampled.",
        b"Reprinted from the journal (DOI 10.1080/1019678042000123456).",
    ],
    ids=["nytimes", "aws-words", "url", "platform-names", "long-doi"],
)
def test_prose_that_meets_one_condition_of_a_rule_is_not_a_candidate(prose: bytes) -> None:
    # each rule asks every condition: a word of its keyword alone, in a paper, is not enough.
    # (A URL and an e-mail address in one passage still meet the credential URI's three:
    # "://", "@" and a scheme; their order is not a condition.)
    assert not may_hold_finding(prose)


@pytest.mark.parametrize(
    "secret",
    [
        b'AWS_SESSION_TOKEN="FQoGZXIvYXdzEBYaDHhBTn0Rw3CpL9xR8fr0k"\n',
        b"postgres://admin:s3cr3tPassw0rd@db.lab.example.org:5432/runs\n",
        b"discord_client_secret = 'abcdefghij0123456789klmnopqrstuv'\n",
    ],
    ids=["aws-session-token", "credential-uri", "discord-secret"],
)
def test_a_text_that_meets_every_condition_of_a_rule_is_a_candidate(secret: bytes) -> None:
    # the scanner judges these (whether it finds them is its own matter: the gate's soundness
    # is proved on the rules' examples and gitleaks' placed samples above)
    assert may_hold_finding(secret)
