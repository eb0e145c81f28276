"""ARR's own rules for the credential forms the scanner misses (arr.safety.form_rules, issue 62):
each form withheld and redacted where a researcher writes it; the research text beside each
(a ConfigMap, digests under ``key``, a password policy in prose) is not; every rule linear."""

from __future__ import annotations

import base64
import json
import time

import pytest

from arr.readers.pdf import PdfReader
from arr.readers.walls import walled
from arr.safety.rules import credential_kind, redact_credentials

PASSWORD = "Tr0ub4dor&3x"
B64 = base64.b64encode(b"admin:" + PASSWORD.encode()).decode()


def secret_manifest(value: str = B64) -> str:
    return f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  extra: {value}\n"


FORMS = [
    pytest.param(secret_manifest(), B64, id="k8s-secret-data"),
    pytest.param(json.dumps({"note": secret_manifest()}), B64, id="k8s-secret-in-json"),
    pytest.param(secret_manifest().replace("\n  ", "\n"), B64, id="k8s-secret-flattened"),
    pytest.param(f'<add key="ClearTextPassword" value="{PASSWORD}" />', PASSWORD, id="nuget"),
    pytest.param(f'db_password = "{PASSWORD}"', PASSWORD, id="password-quoted"),
    pytest.param(f"export DB_PASSWORD={PASSWORD}", PASSWORD, id="password-shell"),
    pytest.param(f"password:        {PASSWORD}\n", PASSWORD, id="password-yaml-aligned"),
    pytest.param(f'AUTH = "elastic:{PASSWORD}"', PASSWORD, id="user-password"),
    pytest.param(f"CURL_AUTH = \"kevin:'{PASSWORD}'\"", PASSWORD, id="user-password-quoted"),
    pytest.param(f'{{"curl_auth": "\\":{PASSWORD}\\""}}', PASSWORD, id="password-only-json"),
    pytest.param(f'CURL_AUTH = "{PASSWORD}:"', PASSWORD, id="token-no-password"),
    pytest.param('AUTH = ""{acd3c08b-74e8}":"{ZqL5kVrX1n8tA2}""', "ZqL5kVrX1n8tA2", id="braced"),
    pytest.param("SIDEKIQ_SECRET=cafebabe:deadbeef", "deadbeef", id="hex-pair"),
    pytest.param('bot_token: "00449649:A46c7utvb50_4rvvy0lr93tz"', "A46c7utvb5", id="bot-token"),
    pytest.param('{"tf_password": "\\"thisIsDog11\\""}', "thisIsDog11", id="password-escaped"),
    pytest.param('discordToken = "631405730044314712577954281007"', "6314057300", id="digits"),
    pytest.param(f'secret_value: "{B64}"', B64, id="base64-of-text"),
    pytest.param("glc_" + "eyJvIjoiNzQ0NTg3IiwibiI6InN0YWNr", "glc_eyJvIjoi", id="grafana"),
    pytest.param("sk_test_0xm0dq8kj73rk92b1tis7xt4qfvpiz", "0xm0dq8kj73", id="stripe-test"),
    pytest.param('"credentials" : "0afae57f3ccfd9d7f5767067bc48b30f"', "0afae57f", id="creds-json"),
    pytest.param("mySecretString=NYiWxKAneIzrOXu7psKi9UpcQSMNTm", "NYiWxKAne", id="camel-case"),
]


@pytest.mark.parametrize(("text", "secret"), FORMS)
def test_each_form_is_withheld_and_redacted(text: str, secret: str) -> None:
    assert credential_kind(text.encode()) is not None
    assert secret not in redact_credentials(text)[0]


RESEARCH = [
    pytest.param(secret_manifest().replace("kind: Secret", "kind: ConfigMap"), id="configmap"),
    pytest.param("- path: data/1.csv\n  key: 0cc175b9c0f1b6a831c399e269772661\n", id="dvc-key"),
    pytest.param('password = "changeme"\npassword = "${DB_PASSWORD}"\n', id="placeholders"),
    pytest.param('password = "%(password)s"\npwd = "<password>"\n', id="templates"),
    pytest.param("password: required\nPASSWORD = DEFAULT_PASSWORD\n", id="words"),
    pytest.param("The password policy (password: required) was enforced.\n", id="prose"),
    pytest.param("auth_url: https://orcid.org/signin\nlogin: user:pass\n", id="urls"),
    pytest.param("login_at: 2024-01-01T10:30:00Z\nauth_timeout: 10:30:00\n", id="times"),
    pytest.param('token_type: "bearer:access_token"\nauth: google:oauth\n', id="name-pairs"),
    pytest.param("secret_plugin = mypkg.plugins:load_all\ntokens: [a:b, c:d]\n", id="refs"),
    pytest.param("inline Tokenizer::Token& Tokenizer::current() {}\n", id="cpp-scope"),
    pytest.param("Use `https://github.com/search?q=author:GITHUB_ID+org:nodejs`\n", id="author"),
    pytest.param('<b AuthorityKind="samlp:AttributeQuery"/>\n', id="authority"),
    pytest.param("'grant_type=urn:ietf:params:oauth:grant-type:device_code&scope=a+b'\n", id="urn"),
    pytest.param("token_count = 1234567890\nrun_id: 20240101123456789\n", id="numbers"),
    pytest.param("orcid: 0000-0002-1694-233X\nauthor: Jane Doe\n", id="orcid"),
    pytest.param("LayoutLMv3TokenizerFast = LayoutLMv3Tokenizer\n", id="class-alias"),
    pytest.param('tokenizer_class = "AutoTokenizer"\n', id="class-name"),
]


@pytest.mark.parametrize("text", RESEARCH)
def test_research_text_beside_each_form_is_not(text: str) -> None:
    assert credential_kind(text.encode()) is None


def test_a_token_that_ends_a_pdf_paragraph_is_judged_whole() -> None:
    """A token wrapped over lines and followed by a space and a word: the space join ran it
    into the word; the line join alone sees it whole."""
    from benchmarks.safety.placements import pdf_of

    token = "sk-proj-SevzWEV_NmNnMndQ5gn6PjFcX_9ay5SEKse8AL0EuYAB0cIgFW7Equ3vCbUbYShvii6L3r"
    token += "Bw3WT3BlbkFJdD9FqO9Z3BoBu9F-KFR6YJtvW6fUfqg2o2Lfel3diT3OCRmBB24hjcd_uLEjgr9tCqnner"
    token += "Vw8A"
    assert isinstance(walled(PdfReader().read(pdf_of(token))), str)


@pytest.mark.parametrize(
    "prefix",
    [b"password=", b"key: ", b"auth=", b"kind: secret\n", b"keys: Sequence\n", b"key: 0cc175b9\n"],
)
def test_each_rule_is_linear_on_a_run_of_its_own_words(prefix: bytes) -> None:
    from arr.safety.form_rules import form_spans

    started = time.perf_counter()
    list(form_spans(prefix * (1_000_000 // len(prefix))))
    assert time.perf_counter() - started < 10.0  # <= 0.8 s on this machine; quadratic: hours


def test_a_form_escaped_inside_a_json_string_is_judged_as_written() -> None:
    """A JSON file's strings are judged decoded too: NuGet's quotes escaped in a note."""
    note = json.dumps({"note": f'<add key="ClearTextPassword" value="{PASSWORD}" />'})
    assert '\\"' in note and credential_kind(note.encode()) == "config_password"
    assert credential_kind(json.dumps({"note": 'ordinary "quoted" text\n'}).encode()) is None
