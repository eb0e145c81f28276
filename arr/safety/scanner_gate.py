"""A linear pre-check before the maintained scanner: most texts cannot hold a finding of any of
its rules, and for them the scanner's rule set is never compiled (0.3-1 s per process with
Kingfisher's compiled-rule cache, 3.5-8 s without: most of a cold search).

Each rule the judge reports (:mod:`arr.safety.scanner`) has a *condition*, read from its regex
by :mod:`arr.safety.gate_derive`: a few literals, one of which every match holds (``ghp_``,
``xoxb-``, ``-----begin``), or a run of characters every match holds (the 32 hex digits of a
key). A text that meets no rule's condition, nor holds a base64 run that decodes to one that
may, holds no finding. The gate is a few RE2 searches (linear, over bytes as Latin-1: about
0.15 s per MB) and a decode of the rare long base64-like run, asked only until the rule set is
compiled (:func:`arr.safety.scanner.scanner_spans`). The conditions are a generated table
(``scanner_gate_table.json`` beside this module) that ``tests/security/test_scanner_gate.py``
proves against the installed rule set; with any other Kingfisher version installed than the
one it was made from, the gate passes every text to the scanner (open to the judge, never
past it).
"""

from __future__ import annotations

import binascii
import functools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arr.safety.gate_derive import Condition, Primitive, primitive_regex

TABLE = Path(__file__).with_name("scanner_gate_table.json")

# What the scanner decodes before it judges: a base64 run (standard or URL-safe alphabet) of 32
# characters or more, padding included (Kingfisher 1.5.0, probed: 31 unpadded not decoded, 32
# with one ``=`` decoded); the margin is ours. Such a run passes the gate only when what it
# decodes to (from each of the four alignments, so whatever offset the scanner starts at) may
# hold a finding itself: an identifier of 28 letters decodes to bytes no rule matches.
BASE64_RUN = 28
DECODE_DEPTH = 2  # the scanner decodes one layer; a second is our margin
_URLSAFE = bytes.maketrans(b"-_", b"+/")


def _pruned(primitives: set[Primitive]) -> list[Primitive]:
    """The primitives less those another implies (a run within a wider, shorter run)."""
    runs = [p for p in primitives if p[0] == "run"]
    kept = [p for p in primitives if p[0] == "atom"]
    for run in runs:
        wider = (o for o in runs if o != run and set(run[1]) <= set(o[1]) and run[2] >= o[2])
        if not any(True for _ in wider):
            kept.append(run)
    return sorted(kept)


@functools.lru_cache(maxsize=1)
def table() -> tuple[str, dict[str, tuple[Condition, ...]]]:
    """(the Kingfisher version the table was made from, rule id -> its conditions: every
    finding's text meets all of them; the first is the one the fewest texts meet)."""
    doc = json.loads(TABLE.read_text(encoding="utf-8"))
    conditions = {
        rule_id: tuple(
            frozenset((kind, value.encode("latin-1"), extra) for kind, value, extra in rows)
            for rows in all_of
        )
        for rule_id, all_of in doc["all_of"].items()
    }
    return doc["kingfisher"], conditions


def _options() -> Any:
    import re2

    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    return options


@functools.lru_cache(maxsize=1)  # one gate per process, compiled in a few milliseconds
def _gates() -> list[Any]:
    """The quick gate: each rule's first condition, the atoms as one RE2 pattern, then each
    run as its own (runs of different lengths in one automaton multiply its states: 0.9 s per
    MB against 0.13 s apart), shortest first."""
    import re2

    kept = _pruned({p for conditions in table()[1].values() for p in conditions[0]})
    atoms = b"|".join(primitive_regex(p) for p in kept if p[0] == "atom")
    runs = sorted((p for p in kept if p[0] == "run"), key=lambda p: (p[2], len(p[1])))
    return [re2.compile(pattern, _options()) for pattern in (atoms, *map(primitive_regex, runs))]


@functools.lru_cache(maxsize=1)
def _every_primitive() -> tuple[list[Primitive], Any, dict[Primitive, Any]]:
    """(the atoms of every condition, one RE2 set of them, each run with its own pattern)."""
    import re2

    primitives = sorted({p for conditions in table()[1].values() for c in conditions for p in c})
    atoms = [p for p in primitives if p[0] == "atom"]
    atom_set = re2.Set.SearchSet(_options())
    for atom in atoms:
        atom_set.Add(primitive_regex(atom))
    atom_set.Compile()
    runs = {p: re2.compile(primitive_regex(p), _options()) for p in primitives if p[0] == "run"}
    return atoms, atom_set, runs


def _meets_a_rule(content: bytes) -> bool:
    """Whether some rule's every condition is met: which atoms the text holds (one pass of an
    RE2 set), then each rule's conditions against them, a run searched only when a rule's
    literals are all met (once per text)."""
    atoms, atom_set, runs = _every_primitive()
    held = {atoms[i] for i in atom_set.Match(content) or ()}
    searched: dict[Primitive, bool] = {}

    def meets(condition: Condition) -> bool:
        if not condition.isdisjoint(held):
            return True
        for run in (p for p in condition if p[0] == "run"):
            if run not in searched:
                searched[run] = runs[run].search(content) is not None
            if searched[run]:
                return True
        return False

    return any(all(meets(c) for c in conditions) for conditions in _literals_first())


@functools.lru_cache(maxsize=1)
def _literals_first() -> list[tuple[Condition, ...]]:
    """Each rule's conditions, those of literals alone first (told by the set's one pass: a
    rule they rule out costs no run search)."""
    has_run = lambda c: any(p[0] == "run" for p in c)  # noqa: E731
    return [tuple(sorted(conditions, key=has_run)) for conditions in table()[1].values()]


@functools.lru_cache(maxsize=1)
def _base64_runs() -> Any:
    import re2

    return re2.compile(rb"[A-Za-z0-9+/_=\-]{%d,}" % BASE64_RUN, _options())


def _decoded(run: bytes) -> Iterator[bytes]:
    """What a base64 run decodes to, from each alignment of each padded part."""
    for part in run.translate(_URLSAFE).split(b"="):
        for offset in range(4):
            chunk = part[offset:]
            chunk = chunk[: len(chunk) // 4 * 4]
            if chunk:
                yield binascii.a2b_base64(chunk)


def _candidate(content: bytes, depth: int) -> bool:
    quick = any(gate.search(content) is not None for gate in _gates())
    if quick and _meets_a_rule(content):
        return True
    runs = _base64_runs().finditer(content)
    if depth == 0:
        return next(runs, None) is not None
    return any(_candidate(text, depth - 1) for run in runs for text in _decoded(run.group()))


@functools.lru_cache(maxsize=1)
def _covers_installed() -> bool:
    """The table was made from the rule set installed (its version; the test checks rules)."""
    from importlib.metadata import version

    return version("kingfisher-secret-scanner") == table()[0]


def may_hold_finding(content: bytes) -> bool:
    """False only when no rule of the scanner can find anything in ``content``. A NUL byte
    passes it whole: the scanner reads UTF-16 as text, the gate reads bytes."""
    if not _covers_installed() or b"\x00" in content:
        return True
    return _candidate(content, DECODE_DEPTH)
