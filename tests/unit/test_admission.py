"""Every admission rule of the Router, as a table: the call, the tool, the budget, the channel's
freshness -> the refusal code (or admitted), in the order the Router asks them."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from arr import codes
from arr.errors import WorkspaceError
from arr.models import Freshness
from arr.router.admission import (
    DROPPED_CODES,
    check_failure_refusal,
    dropped_detail,
    freshness_refusal,
    identity_refusal,
)

LOCAL = SimpleNamespace(read_only=True, provider="local")
WRITER = SimpleNamespace(read_only=False, provider="local")
REMOTE = SimpleNamespace(read_only=True, provider="openai")
UNMARKED = SimpleNamespace()


@pytest.mark.parametrize(
    "name, tool, used, expected",
    [
        ("bm25", LOCAL, 0, None),
        ("shell", LOCAL, 0, codes.FORBIDDEN_IDENTIFIER),  # registered or not
        ("Web-Search", None, 0, codes.FORBIDDEN_IDENTIFIER),  # folded: case, separators
        ("ｅｘｅｃ", None, 0, codes.FORBIDDEN_IDENTIFIER),  # NFKC: full-width letters
        ("file_writer", WRITER, 0, codes.FORBIDDEN_IDENTIFIER),  # the name first
        ("teleport", None, 0, codes.TOOL_NOT_REGISTERED),
        ("notes", WRITER, 0, codes.NOT_READ_ONLY),
        ("notes", UNMARKED, 0, codes.NOT_READ_ONLY),  # read-only must be said, not assumed
        ("notes", REMOTE, 0, codes.PROVIDER_NOT_LOCAL),
        ("bm25", LOCAL, 12, codes.BUDGET_CALLS),
        ("bm25", LOCAL, 11, None),
        ("teleport", None, 12, codes.TOOL_NOT_REGISTERED),  # what the call is comes first
    ],
)
def test_identity_rules(name: str, tool: object, used: int, expected: str | None) -> None:
    refusal = identity_refusal(name, tool, ["bm25", "notes"], used, 12)
    assert (refusal[0] if refusal else None) == expected
    if expected == codes.TOOL_NOT_REGISTERED:
        assert "bm25" in refusal[1]  # the refusal names what is registered


@pytest.mark.parametrize(
    "freshness, expected, dropped",
    [
        (Freshness(fresh=True), None, False),
        (Freshness(fresh=True, code="refreshed"), None, False),
        (Freshness(fresh=True, code=codes.INDEX_PARTIAL, detail="384 of 1,169"), None, False),
        (
            Freshness(fresh=False, code=codes.INDEX_MISSING, detail="no index"),
            codes.INDEX_MISSING,
            True,
        ),
        (Freshness(fresh=False, code=codes.INDEX_STALE, detail="3 files"), codes.INDEX_STALE, True),
        (
            Freshness(fresh=False, code=codes.INDEX_EMBEDDER_MISMATCH, detail="other model"),
            codes.INDEX_EMBEDDER_MISMATCH,
            True,
        ),
        (
            Freshness(fresh=False, code=codes.INDEX_BUILDING, detail="40%"),
            codes.INDEX_BUILDING,
            True,
        ),
        (Freshness(fresh=False, code=codes.DISK_FULL, detail="refresh"), codes.DISK_FULL, False),
    ],
)
def test_freshness_rule(freshness: Freshness, expected: str | None, dropped: bool) -> None:
    refusal = freshness_refusal(freshness)
    assert (refusal[0] if refusal else None) == expected
    assert (expected in DROPPED_CODES) is dropped


@pytest.mark.parametrize(
    "exc, expected",
    [
        (WorkspaceError("root gone", code=codes.SCOPE_ROOT_MISSING), codes.SCOPE_ROOT_MISSING),
        (WorkspaceError("unreadable"), codes.FRESHNESS_UNKNOWN),
        (WorkspaceError("odd", code="not_a_known_code"), codes.FRESHNESS_UNKNOWN),
        (OSError("EIO"), codes.FRESHNESS_UNKNOWN),
        (ValueError("bug"), codes.FRESHNESS_UNKNOWN),
    ],
)
def test_a_failed_freshness_check_refuses(exc: Exception, expected: str) -> None:
    assert check_failure_refusal(exc)[0] == expected


def test_a_dropped_channel_says_its_fix_once() -> None:
    fix = "arr index scope=a tools=[vector]"
    assert dropped_detail(codes.INDEX_STALE, "3 files changed", fix).endswith(f"fix: {fix}")
    building = dropped_detail(codes.INDEX_BUILDING, "build at 40%", fix)
    assert building == "build at 40%"
    gone = dropped_detail(codes.SCOPE_ROOT_MISSING, "root deleted; arr scope remove", fix)
    assert "fix:" not in gone
    assert len(dropped_detail(codes.INDEX_MISSING, "x" * 900, fix)) == 600
