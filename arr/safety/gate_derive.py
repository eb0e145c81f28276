"""What every finding of a scanner rule must contain, read from the rule's regex: the proof
behind :mod:`arr.safety.scanner_gate`, and the generator of its table.

A rule's pattern is parsed (Python's own regex parser; the rules' Rust syntax is rewritten
where it differs: POSIX classes, ``\\z``, inline flags) into a tree, and a *condition* is a set
of primitives of which every match of the pattern contains at least one:

- ``("atom", text, folded)``: a literal substring (``folded``: compared case-insensitively);
- ``("run", characters, length)``: ``length`` consecutive bytes, each one of ``characters``.

:func:`implied` decides whether a condition holds for a pattern, by structure: a sequence
implies it when one of its parts does, or when a window of parts matches only strings that hold
an atom, or only runs of the given characters as long; an alternation when every branch does.
It errs one way only (it may answer no for a condition that holds), so the table it accepts is
sound. Unicode classes (``\\w``, ``\\d``, ``\\s``, negated classes) count every non-ASCII
byte as a member; a pattern with a case-insensitive part is read case-insensitively whole.

``python -m arr.safety.gate_derive FOLDER...`` picks, per rule, the sound condition that the
fewest blocks (five lines) of the ordinary text under the folders meet, then adds sound
conditions while each narrows the blocks that meet them all, then the rarest others (at most
``MAX_CONDITIONS``): a rule may match a text only when the text meets every one of its
conditions (each is implied on its own, so their conjunction is too). ``aws`` alone opens the
gate on any text that names the cloud; ``aws`` and ``token`` and a run of 16 key characters
rarely meet in prose. It prints the
table (``arr/safety/scanner_gate_table.json``; the one shipped was made on 2026-12-07 from
pdfgold's SciFact text, ``docs/`` and ``arr/``: a corpus chooses among sound conditions, it
never makes one sound).
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Iterable, Sequence
from re import _constants as C  # type: ignore[attr-defined]
from re import _parser as P  # type: ignore[attr-defined]
from typing import Any

Primitive = tuple[str, Any, Any]
Condition = frozenset[Primitive]

HIGH = frozenset(range(128, 256))
ALL = frozenset(range(256))
WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
CATEGORIES = {
    C.CATEGORY_DIGIT: frozenset(b"0123456789") | HIGH,
    C.CATEGORY_WORD: WORD | HIGH,
    C.CATEGORY_SPACE: frozenset(b" \t\n\r\x0b\x0c") | HIGH,
}
MAX_STRINGS = 64  # exact string sets larger than this are not expanded


def parse(pattern: str) -> tuple[list[Any], bool]:
    """(the pattern's parsed items, whether it is read case-insensitively)."""
    folded = "(?i" in pattern
    text = pattern.replace("[[:alnum:]]", "[A-Za-z0-9]").replace(r"\z", r"\Z")
    text = re.sub(r"\(\?[imsx]+\)", "", text.replace("(?-i:", "(?:"))
    return list(P.parse(text, re.VERBOSE if "(?x)" in pattern else 0)), folded


def _fold(characters: Iterable[int]) -> frozenset[int]:
    out = set(characters)
    return frozenset(out | {c ^ 32 for c in out if 65 <= c <= 90 or 97 <= c <= 122})


def _class(op: Any, av: Any) -> frozenset[int] | None:
    """The bytes one character item may match (a superset), or None for a larger item."""
    if op is C.LITERAL:
        return frozenset({av}) if av < 128 else HIGH
    if op in (C.NOT_LITERAL, C.ANY):
        return ALL
    if op is not C.IN:
        return None
    members: set[int] = set()
    for kind, value in av:
        if kind is C.NEGATE:
            return ALL
        if kind is C.LITERAL:
            members |= {value} if value < 128 else HIGH
        elif kind is C.RANGE:
            members |= set(range(value[0], min(value[1], 127) + 1))
            members |= HIGH if value[1] >= 128 else set()
        elif kind is C.CATEGORY and value in CATEGORIES:
            members |= CATEGORIES[value]
        else:
            return ALL
    return frozenset(members)


class _Shape:
    """What one item always matches: ``strings`` (every string it can match, when few) and
    ``run`` (characters every matched byte is one of, and the least length)."""

    __slots__ = ("strings", "run")

    def __init__(self, strings: set[bytes] | None, run: tuple[frozenset[int], int] | None):
        self.strings, self.run = strings, run


def _shape(op: Any, av: Any, folded: bool) -> _Shape:
    members = _class(op, av)
    if members is not None:
        members = _fold(members) if folded else members
        # a case-insensitive pattern's strings are kept in lower case (atoms are folded)
        chars = {bytes([c]).lower() if folded else bytes([c]) for c in members}
        small = len(chars) <= 8 and not members & HIGH
        return _Shape(chars if small else None, (members, 1))
    if op is C.SUBPATTERN:
        return _sequence_shape(av[3], folded)
    if op is C.ATOMIC_GROUP:
        return _sequence_shape(av, folded)
    if op is C.BRANCH:
        shapes = [_sequence_shape(b, folded) for b in av[1]]
        strings: set[bytes] | None = set()
        for s in shapes:
            strings = strings | s.strings if strings is not None and s.strings is not None else None
        runs = [s.run for s in shapes]
        run = None
        if all(runs):
            run = (frozenset().union(*(r[0] for r in runs if r)), min(r[1] for r in runs if r))
        return _Shape(strings if strings is None or len(strings) <= MAX_STRINGS else None, run)
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
        low, high, sub = av
        inner = _sequence_shape(sub, folded)
        run = (inner.run[0], inner.run[1] * low) if inner.run else None
        strings = None
        if inner.strings is not None and low == high and len(inner.strings) ** low <= MAX_STRINGS:
            strings = {b""}
            for _ in range(low):
                strings = {a + b for a in strings for b in inner.strings}
        return _Shape(strings, run)
    if op in (C.AT, C.ASSERT, C.ASSERT_NOT):
        return _Shape({b""}, (frozenset(), 0))
    return _Shape(None, None)


def _sequence_shape(items: Sequence[Any], folded: bool) -> _Shape:
    strings: set[bytes] | None = {b""}
    members: frozenset[int] = frozenset()
    length: int | None = 0
    for op, av in items:
        s = _shape(op, av, folded)
        if strings is not None and s.strings is not None and len(strings) * len(s.strings) <= 4096:
            strings = {a + b for a in strings for b in s.strings}
        else:
            strings = None
        if length is not None and s.run is not None:
            members, length = members | s.run[0], length + s.run[1]
        else:
            length = None
    if strings is not None and len(strings) > MAX_STRINGS:
        strings = None
    return _Shape(strings, (members, length) if length is not None else None)


def _combine(left: _Shape, right: _Shape) -> _Shape:
    strings = None
    if (
        left.strings is not None
        and right.strings is not None
        and len(left.strings) * len(right.strings) <= MAX_STRINGS
    ):
        strings = {a + b for a in left.strings for b in right.strings}
    run = None
    if left.run is not None and right.run is not None:
        run = (left.run[0] | right.run[0], left.run[1] + right.run[1])
    return _Shape(strings, run)


def _holds(shape: _Shape, folded: bool, condition: Condition) -> bool:
    """Whether every string of this shape meets the condition: each holds one of its atoms,
    or the shape is a run within one of its runs, as long."""
    folded_atoms = [v.lower() for kind, v, extra in condition if kind == "atom" and extra]
    exact_atoms = [v for kind, v, extra in condition if kind == "atom" and not extra]
    if shape.strings and all(
        any(a in s.lower() for a in folded_atoms)
        or (not folded and any(a in s for a in exact_atoms))
        for s in shape.strings
    ):
        return True
    return shape.run is not None and any(
        kind == "run" and extra > 0 and shape.run[0] <= frozenset(value) and shape.run[1] >= extra
        for kind, value, extra in condition
    )


def _windows(items: Sequence[Any], folded: bool) -> Iterable[_Shape]:
    """The shape of every window of consecutive items that has one."""
    shapes = [_shape(op, av, folded) for op, av in items]
    for start in range(len(shapes)):
        window = _Shape({b""}, (frozenset(), 0))
        for shape in shapes[start:]:
            window = _combine(window, shape)
            if window.strings is None and window.run is None:
                break
            yield window


def _inner(op: Any, av: Any) -> list[Sequence[Any]] | None:
    """The sequences an item's every match passes through whole (all of them for a branch)."""
    if op is C.SUBPATTERN:
        return [av[3]]
    if op is C.ATOMIC_GROUP:
        return [av]
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT) and av[0] >= 1:
        return [av[2]]
    return None


def implied(items: Sequence[Any], folded: bool, condition: Condition) -> bool:
    """Whether every match of the parsed sequence ``items`` meets ``condition``."""
    for op, av in items:
        if op is C.BRANCH:
            if all(implied(b, folded, condition) for b in av[1]):
                return True
        elif (inner := _inner(op, av)) is not None and implied(inner[0], folded, condition):
            return True
    return any(_holds(w, folded, condition) for w in _windows(items, folded))


def rule_implies(pattern: str, condition: Condition) -> bool:
    items, folded = parse(pattern)
    return implied(items, folded, condition)


MAX_RUN = 64  # a longer run is asked as 64 characters: the same gate, a smaller program


def _own(items: Sequence[Any], folded: bool) -> list[Condition]:
    out = []
    for w in _windows(items, folded):
        # one character (``@``, ``:``) is no gate alone, but narrows another condition
        if w.strings and min(len(s) for s in w.strings) >= 1:
            out.append(frozenset(("atom", s, folded) for s in w.strings))
        if w.run is not None and w.run[1] >= 8 and w.run[0] != ALL:
            out.append(frozenset({("run", bytes(sorted(w.run[0])), min(w.run[1], MAX_RUN))}))
    return out


def candidates(items: Sequence[Any], folded: bool, cost: Any) -> list[Condition]:
    """Conditions every match of ``items`` meets; a branch's is the union of each branch's
    cheapest (``cost``: condition -> number, lower is better)."""
    out = _own(items, folded)
    for op, av in items:
        if op is C.BRANCH:
            picks = [candidates(b, folded, cost) for b in av[1]]
            if all(picks):
                out.append(frozenset().union(*(min(p, key=cost) for p in picks)))
        elif (inner := _inner(op, av)) is not None:
            out += candidates(inner[0], folded, cost)
    return out


def primitive_regex(primitive: Primitive) -> bytes:
    """A primitive as RE2 syntax over Latin-1 bytes."""
    kind, value, extra = primitive
    if kind == "atom":
        return (b"(?i:%s)" if extra else b"%s") % re.escape(value)
    members = b"".join(b"\\x%02x" % c for c in value)
    return b"[%s]{%d}" % (members, extra)


BLOCK, MAX_CONDITIONS = 5, 3  # lines a cost counts (a judged passage's few); conditions a rule


def _block_sets(corpus: bytes) -> Any:
    """condition -> the blocks of ``corpus`` that meet it."""
    import bisect
    import functools

    import re2

    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    starts = [0] + [m.end() for m in re.finditer(b"\n", corpus)]

    @functools.cache
    def blocks(primitive: Primitive) -> frozenset[int]:
        pattern = re2.compile(primitive_regex(primitive), options)
        return frozenset(
            bisect.bisect_right(starts, m.start()) // BLOCK for m in pattern.finditer(corpus)
        )

    @functools.cache
    def met(condition: Condition) -> frozenset[int]:
        return frozenset().union(*(blocks(p) for p in condition))

    return met


def _strength(condition: Condition) -> float:
    """How much a condition asks, in bits: its weakest primitive's (an atom 8 a byte, 7 folded;
    a run its length times log2(256 / its alphabet)). Among conditions the corpus cannot tell
    apart, the one that asks most is the least likely in other text: 64 hex digits before 64
    characters of digits, spaces and letters (a plot's axis in a PDF's text holds those)."""

    def bits(kind: str, value: bytes, extra: Any) -> float:
        if kind == "atom":
            return len(value) * (7.0 if extra else 8.0)
        return extra * math.log2(256 / max(1, len(value)))

    return min(bits(kind, value, extra) for kind, value, extra in condition)


def _conjunction(options: list[Condition], met: Any) -> tuple[Condition, ...]:
    """The cheapest condition, then others while each narrows the blocks that meet them all."""
    ranked = sorted(options, key=lambda c: (len(met(c)), -_strength(c), sorted(c)))
    chosen = [ranked[0]]
    blocks = met(chosen[0])
    while ranked and blocks and len(chosen) < MAX_CONDITIONS:
        best = min(ranked, key=lambda c: len(blocks & met(c)))
        if len(blocks & met(best)) >= len(blocks):
            break
        chosen.append(best)
        blocks = blocks & met(best)
    # the corpus cannot tell the rest apart (no block meets them all): the rarest conditions
    # that share no primitive with those chosen, since research text is not this corpus (a
    # paper names the New York Times; a DOI holds 16 digits) and each one only narrows
    for condition in ranked:
        if len(chosen) >= MAX_CONDITIONS:
            break
        if not any(_narrower(c, condition) for c in chosen):
            chosen.append(condition)
    return tuple(chosen)


def _narrower(first: Condition, second: Condition) -> bool:
    """Every text that meets ``first`` meets ``second``: each primitive holds one of its."""

    def holds(p: Primitive, q: Primitive) -> bool:
        if p[0] != q[0]:
            return False
        if p[0] == "atom":
            return q[1].lower() in p[1].lower() if q[2] else (not p[2] and q[1] in p[1])
        return set(p[1]) <= set(q[1]) and p[2] >= q[2]

    return all(any(holds(p, q) for q in second) for p in first)


def derive(rules: Iterable[tuple[str, str]], corpus: bytes) -> dict[str, tuple[Condition, ...]]:
    """rule id -> the sound conditions (all of which every match meets), the first the one the
    fewest blocks of ``corpus`` meet."""
    met = _block_sets(corpus)
    cost = lambda c: len(met(c))  # noqa: E731
    table = {}
    for rule_id, pattern in rules:
        items, folded = parse(pattern)
        options = [c for c in candidates(items, folded, cost) if implied(items, folded, c)]
        if not options:
            raise ValueError(f"no condition found for {rule_id}: {pattern}")
        table[rule_id] = _conjunction(list(dict.fromkeys(options)), met)
    return table


def visible_rules() -> list[tuple[str, str]]:
    """(id, pattern) of every rule whose findings the judge reports (arr.safety.scanner)."""
    import kingfisher_sdk

    rules = kingfisher_sdk.Rules(confidence="medium", cache=False)
    return [
        (rule["id"], rules.detail(rule["id"])["pattern"])
        for rule in rules.metadata()
        if rule["visible"]
    ]


def main(folders: list[str]) -> int:
    from pathlib import Path

    import kingfisher_sdk

    suffixes = {".py", ".md", ".rst", ".txt", ".tex", ".bib", ".r", ".yaml", ".toml", ".cfg"}
    files = sorted(
        p for f in folders for p in Path(f).rglob("*") if p.is_file() and p.suffix in suffixes
    )
    table = derive(visible_rules(), b"\n".join(p.read_bytes() for p in files))
    conditions = {
        rule_id: [
            [[kind, value.decode("latin-1"), extra] for kind, value, extra in sorted(c)]
            for c in all_of
        ]
        for rule_id, all_of in sorted(table.items())
    }
    doc = {
        "generated_by": "python -m arr.safety.gate_derive (do not edit; "
        "tests/security/test_scanner_gate.py checks it)",
        "corpus_files": len(files),
        "kingfisher": kingfisher_sdk.__version__,
        # rule id -> conditions, all of which every finding's text meets (the first alone is
        # the quick gate)
        "all_of": conditions,
    }
    sys.stdout.write(json.dumps(doc, indent=0) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
