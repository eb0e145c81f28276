"""The name rules of :mod:`arr.safety.rules` as ripgrep's arguments, so the engine never even
opens a file every channel withholds by name.

Folders and files apart, because a glob handed to ``--iglob`` judges folders too: ``!*_key``
skipped a folder ``answer_key`` whole (and every file below it) while bm25 indexed it, and
``!credentials`` a folder of that name. So:

- the sensitive folders (``.ssh``, ``.arr``, ...) are one ``--iglob`` ending in ``/``, which
  ripgrep matches against folders only;
- the file rules (exact names, prefixes, suffixes, hidden histories) are a file *type*
  (``--type-add`` then ``--type-not``): ripgrep's types judge files only, never a folder.
  Type globs are case-sensitive, so each letter is written as a class (``[pP][eE][mM]``),
  as the name rules are case-insensitive.

Each is one alternation glob (a path is tested against one compiled pattern per kind).
"""

from __future__ import annotations

from arr.safety.rules import (
    HIDDEN_SUFFIXES,
    SENSITIVE_DIRS,
    SENSITIVE_EXACT,
    SENSITIVE_PREFIXES,
    SENSITIVE_SUFFIXES,
)

TYPE = "arrsecretname"  # ripgrep type names are letters and digits


def _any_case(text: str) -> str:
    """A glob of ``text`` in any case: each letter a class of its two cases."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in text)


FILE_GLOBS: tuple[str, ...] = (
    *(_any_case(name) for name in sorted(SENSITIVE_EXACT)),
    *(_any_case(p) + "*" for p in SENSITIVE_PREFIXES),
    *("*" + _any_case(s) for s in SENSITIVE_SUFFIXES),
    *(".*" + _any_case(s) for s in HIDDEN_SUFFIXES),
)
assert not any(c in g for g in FILE_GLOBS for c in ",{}\\:")
assert not any(c in d for d in SENSITIVE_DIRS for c in ",{}[]\\/")

# One alternation per kind: ripgrep compiles ~100 type globs given one by one in ~25 ms of
# every search (measured on werkzeug: 38 ms a search against 12 ms with the one --iglob
# before); as one glob, 15 ms.
ENGINE_EXCLUDE_ARGS: tuple[str, ...] = (
    "--iglob=!{" + ",".join(sorted(SENSITIVE_DIRS)) + "}/",
    f"--type-add={TYPE}:{{{','.join(FILE_GLOBS)}}}",
    f"--type-not={TYPE}",
)
