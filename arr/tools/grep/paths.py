"""Path look-ups for the grep channel: a query that names a file finds that file first.

``httpx/_transports/default.py`` as a query shares no words with the file's text that would
rank it: the path is the answer. Each path-shaped token of the query (a name with an
extension, or with a folder: ``default.py``, ``routing/rules.py``, ``./conf/x.yaml``) is
matched against the files the channel's walk found (exactly, or as the end of their path at a
folder boundary); a match is read under the one file rule and returned as the file's head,
ahead of any line the text search found.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from arr import file_rule

_PATH_TOKEN = re.compile(r"(?:[\w.\-]+/)*[\w\-]+\.[A-Za-z][\w]{0,7}\b|(?:[\w.\-]+/)+[\w.\-]+")
MAX_PATH_HITS = 5


def path_tokens(query: str) -> list[str]:
    """Path-shaped tokens of the query, without a leading ``./``."""
    found = []
    for token in _PATH_TOKEN.findall(query):
        token = token.removeprefix("./").strip("/")
        if token and (("/" in token) or "." in token) and not token.replace(".", "").isdigit():
            found.append(token)
    return found


def matches(relative: str, token: str) -> bool:
    return relative == token or relative.endswith("/" + token)


def path_hits(
    query: str,
    roots: Sequence[Path],
    files: Sequence[dict[str, tuple[int, int]]],
    labels: Sequence[str],
    max_file_bytes: int,
    head_lines: int,
) -> list[tuple[str, int, str]]:
    """(label, last line shown, snippet) of the files the query names, best token first."""
    tokens = path_tokens(query)
    if not tokens:
        return []
    hits: list[tuple[str, int, str]] = []
    seen: set[str] = set()
    for token in sorted(tokens, key=len, reverse=True):  # the most specific name first
        for root, known, label in zip(roots, files, labels, strict=False):
            for relative in sorted(known):
                if len(hits) >= MAX_PATH_HITS:
                    return hits
                if not matches(relative, token) or label + relative in seen:
                    continue
                content, _ = file_rule.read_path(str(root), relative, max_file_bytes)
                if content is None:
                    continue  # refused by the rule: as absent as a file that is not there
                seen.add(label + relative)
                lines = content.decode("utf-8", "replace").split("\n")[:head_lines]
                hits.append((label + relative, max(1, len(lines)), "\n".join(lines)))
    return hits
