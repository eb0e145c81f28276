"""Generated credentials of every supported family, planted in every channel (grep, bm25,
vector, memory) at every position (line start, glued to the text before it, deep inside a long
line, split by an invisible character, across the snippet's edge): no 12-character slice of any
of them appears anywhere in a RouterResult or its JSON, while a planted non-secret control is
still found. Policy (README, "Security model"): a file holding a credential is withheld whole
by grep and by the indexes (counted ``skipped_credential``); any snippet, from any channel,
loses the credential's bytes (``[REDACTED]``) before it leaves the Router."""

from __future__ import annotations

import itertools
import random
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arr.embedder.hashing import HashingEmbedder
from arr.fusion.wsum import WSumFusion
from arr.memory.store import ResearchMemoryStore
from arr.planner.rule import RuleQueryPlanner
from arr.reranker.rule import RuleReranker
from arr.router.router import RetrievalRouter
from arr.safety.rules import credential_kind, redact_credentials
from arr.tools.bm25 import BM25Tool
from arr.tools.grep import GrepTool
from arr.tools.memory import MemoryTool
from arr.tools.vector import VectorTool
from arr.vector_store.chroma import ChromaStore
from arr.workspace.workspace import Workspace
from tests.conftest import SCOPE_A

pytestmark = pytest.mark.slow

ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
LOWER_DIGITS = string.ascii_lowercase + string.digits


def text(alphabet: str, size: int) -> st.SearchStrategy[str]:
    """Random characters as a real token holds them: Hypothesis draws the seed (a failure
    replays and shrinks to a small seed), never the characters (a shrunk all-"a" string would
    be no token at all)."""
    return st.integers(0, 2**32).map(
        lambda seed: "".join(random.Random(seed).choices(alphabet, k=size))
    )


def mixed(alphabet: str, size: int) -> st.SearchStrategy[str]:
    """Random characters with at least one letter and one digit (what real tokens look like)."""
    head = "Q7" if alphabet == UPPER_DIGITS else "a7"
    return text(alphabet, size - 2).map(lambda s: head + s)


# One strategy per supported family (the vendored rule set and ARR's own rules).
FAMILIES: dict[str, st.SearchStrategy[str]] = {
    "github": mixed(ALNUM, 36).map(lambda s: "ghp_" + s),
    "github_fine": mixed(ALNUM, 40).map(lambda s: "github_pat_" + s),
    "aws": mixed(UPPER_DIGITS, 16).map(lambda s: "AKIA" + s),
    "google": mixed(ALNUM, 35).map(lambda s: "AIza" + s),
    "gitlab": mixed(ALNUM, 20).map(lambda s: "glpat-" + s),
    "slack": st.tuples(text(string.digits, 11), mixed(LOWER_DIGITS, 24)).map(
        lambda p: f"xoxb-{p[0]}-{p[0]}-{p[1]}"
    ),
    "slack_webhook": st.tuples(
        mixed(UPPER_DIGITS, 9), mixed(UPPER_DIGITS, 9), mixed(ALNUM, 24)
    ).map(lambda p: f"https://hooks.slack.com/services/T{p[0]}/B{p[1]}/{p[2]}"),
    "slack_app": st.tuples(mixed(UPPER_DIGITS, 11), mixed(LOWER_DIGITS, 40)).map(
        lambda p: f"xapp-1-{p[0]}-1234567890123-{p[1]}"
    ),
    "stripe": mixed(ALNUM, 24).map(lambda s: "sk_live_" + s),
    "sendgrid": st.tuples(mixed(ALNUM, 22), mixed(ALNUM, 43)).map(lambda p: f"SG.{p[0]}.{p[1]}"),
    "openai": st.tuples(mixed(ALNUM, 20), mixed(ALNUM, 20)).map(
        lambda p: f"sk-proj{p[0]}T3BlbkFJ{p[1]}"
    ),
    "pypi": mixed(ALNUM, 72).map(lambda s: "pypi-AgEIcHlwaS5vcmc" + s),
    "square": mixed(ALNUM, 43).map(lambda s: "sq0csp-" + s),
    "azure": mixed(ALNUM, 88).map(lambda s: "AccountKey=" + s),
    "jwt": st.tuples(mixed(ALNUM, 20), mixed(ALNUM, 30), mixed(ALNUM, 20)).map(
        lambda p: f"eyJ{p[0]}.eyJ{p[1]}.{p[2]}"
    ),
    "url_password": mixed(ALNUM, 14).map(lambda s: f"postgresql://svc:{s}@db.internal/prod"),
    "assignment": mixed(ALNUM, 28).map(lambda s: f'api_token = "{s}"'),
}
POSITIONS = ("line_start", "glued", "long_line", "invisible", "snippet_edge")
CONTROL = "quillwort"  # a plain word in a clean file and a clean memory: must still be found


def secret_part(planted: str) -> str:
    """The bytes that must never come back (the value of an assignment, the password of a URL,
    else the whole token)."""
    if planted.startswith("api_token"):
        return planted.split('"')[1]
    if planted.startswith("postgresql://"):
        return planted.split(":")[2].split("@")[0]
    return planted


def place(token: str, position: str) -> str:
    if position == "line_start":
        return f"{token} rotated on the cluster"
    if position == "glued":
        return f"credentials:{token}"
    if position == "long_line":
        return "lorem ipsum dolor " * 120 + token + " sit amet"
    if position == "invisible":
        return f"cluster token {token[:6]}\u200b{token[6:]} end"
    return "x" * (390 - 4) + " " + token  # across a 400-character snippet edge
    # (grep's line snippet, bm25/vector chunk snippet and memory snippet are all cut near it)


def slices(value: str, width: int = 12) -> list[str]:
    return [value[i : i + width] for i in range(0, len(value) - width + 1)]


@settings(max_examples=150, deadline=None)
@given(family=st.sampled_from(sorted(FAMILIES)), data=st.data())
def test_every_family_is_detected_and_redacted(family: str, data: st.DataObject) -> None:
    """Each family's generator yields what the detector sees, in files and in snippets."""
    sample = data.draw(FAMILIES[family])
    assert credential_kind(sample.encode()) is not None, family
    for position in POSITIONS:
        redacted, count = redact_credentials(place(sample, position))
        assert count and not any(part in redacted for part in slices(secret_part(sample))), (
            family,
            position,
        )


def build_router(root: Path, planted: str) -> RetrievalRouter:
    files = root / "files"
    files.mkdir(parents=True)
    (files / "leaky.md").write_text(f"# notes\n{planted}\nmore notes\n")
    (files / "clean.md").write_text(f"# clean notes\nthe {CONTROL} experiment finished\n")
    store = ResearchMemoryStore(root / "memory.sqlite3")
    store.add_draft("m1", SCOPE_A, "Leaky memory", f"cluster notes {planted}")
    store.transition("m1", "publish")
    store.add_draft("m2", SCOPE_A, "Clean memory", f"the {CONTROL} run used 8 GPUs")
    store.transition("m2", "publish")
    workspace = Workspace(
        name="t",
        root=root,
        index_dir=root / ".index",
        memory_db=root / "memory.sqlite3",
        scopes={"a": {"key": SCOPE_A, "roots": ["files"]}},
    )
    bm25 = BM25Tool("bm25", workspace)
    vector = VectorTool("vector", workspace, HashingEmbedder(), ChromaStore(root / ".chroma"))
    bm25.build(SCOPE_A)
    vector.build(SCOPE_A)
    return RetrievalRouter(
        tools={
            "grep": GrepTool("grep", workspace),
            "bm25": bm25,
            "vector": vector,
            "memory": MemoryTool("memory", workspace),
        },
        planner=RuleQueryPlanner(),
        fusion=WSumFusion(),
        reranker=RuleReranker(),
        scopes={"a": SCOPE_A},
    )


_counter = itertools.count()


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    family=st.sampled_from(sorted(FAMILIES)),
    position=st.sampled_from(POSITIONS),
    data=st.data(),
)
def test_no_channel_returns_any_part_of_a_generated_credential(
    tmp_path: Path, family: str, position: str, data: st.DataObject
) -> None:
    token = data.draw(FAMILIES[family])
    planted = place(token, position)
    router = build_router(tmp_path / f"case{next(_counter)}", planted)
    forbidden = slices(secret_part(token))
    for query in (
        "cluster notes token",  # natural language: vector + bm25 + memory
        "rotated",  # one word: grep + bm25
        "lorem ipsum dolor",
        secret_part(token)[:16],  # asking for the secret itself
        CONTROL,
    ):
        result = router.search(query, SCOPE_A)
        # The caller's own query is echoed (query, plan); everything else comes from the data.
        dumped = result.model_dump_json(exclude={"query", "plan"})
        shown = str(result.model_dump(exclude={"query", "plan"}))
        leaked = [part for part in forbidden if part in dumped or part in shown]
        assert not leaked, (family, position, query, leaked[:1])
    found = router.search(f"where did the {CONTROL} experiment run", SCOPE_A)
    assert any(CONTROL in e.snippet for e in found.evidence), "the clean control is still found"
    grep = router.search(CONTROL, SCOPE_A)
    # found by grep (merged into the chunk that holds the line: "grep" is among its ranks)
    assert any(CONTROL in e.snippet for e in grep.evidence if "grep" in e.ranks)
    router.close()
