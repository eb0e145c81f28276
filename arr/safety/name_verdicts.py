"""File and folder names already judged, kept beside the index: a cold search judges only the
names it has not met (issue 64).

Names are text (a token in a file name is never shown), so every walk judges every name. A name
with a run of 16 token characters (``texlive-doc__latex__base__...``: every file of a folder
named that way) goes to the full judge, and one such name that passes the scanner's gate makes
the process compile the scanner's rule set: on 541 Debian manuals, 0.73 s of a cold identifier
search's 1.5 s, paid again by every new process for the same names.

A verdict depends on the name and the judge alone, so it is kept under a keyed hash of the name
(no name is written in clear), the key being a digest of the judge: ARR's rule modules and gate
table as they are on disk and the installed scanner's files (another version of either, and
every kept verdict is void). The audit key is the one input that is not the judge's code: a name
kept as clean is still asked for the key's hex (a ``find``), every time.

The index folder holds what the indexes hold (text already judged); the file is one more of the
same trust. A verdict file that is missing, damaged or of another judge is judged anew.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from arr import atomic_write

log = logging.getLogger(__name__)

FILE = "name_verdicts.json"
MAX_KEPT = 500_000  # names of the largest trees measured (33,000 files) many times over

_known: dict[str, bool] = {}  # keyed hash of a name -> it holds a credential
_lock = threading.Lock()
_judged = 0  # verdicts made in this process (not read from a file)
_read: set[str] = set()  # verdict files read in this process


@functools.lru_cache(maxsize=1)
def judge_digest() -> bytes:
    """A digest of the judge: ARR's rule modules and gate table, and the scanner's files."""
    digest = hashlib.blake2b(b"arr-name-verdicts-1", digest_size=32)
    here = Path(__file__).parent
    for path in sorted([*here.glob("*.py"), *here.glob("*.json")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    spec = importlib.util.find_spec("kingfisher_sdk")
    folders = (spec.submodule_search_locations or []) if spec is not None else []
    for folder in folders:
        for path in sorted(Path(folder).iterdir()):
            if path.is_file():
                info = path.stat()
                digest.update(f"{path.name}:{info.st_size}:{info.st_mtime_ns}\0".encode())
    return digest.digest()


def _key(name: str) -> str:
    raw = name.encode("utf-8", "surrogateescape")
    return hashlib.blake2b(raw, digest_size=12, key=judge_digest()).hexdigest()


def known(name: str) -> bool | None:
    """The kept verdict on ``name`` (True: it holds a credential), or None."""
    with _lock:
        return _known.get(_key(name))


def record(name: str, holds: bool) -> None:
    global _judged
    with _lock:
        if len(_known) < MAX_KEPT:
            _known[_key(name)] = holds
            _judged += 1


@contextmanager
def kept(index_dir: Path) -> Iterator[None]:
    """Around a walk: the verdicts kept in ``index_dir`` are read first (once a process), and
    new ones written back after (only into an index folder that exists: a search of a folder
    never indexed creates nothing)."""
    _load(index_dir)
    before = _judged
    try:
        yield
    finally:
        if _judged != before:
            _save(index_dir)


def _load(index_dir: Path) -> None:
    where = str(index_dir)
    with _lock:
        if where in _read:
            return
        _read.add(where)
    try:
        kept = json.loads((index_dir / FILE).read_bytes())
        if kept.get("judge") != judge_digest().hex():
            return
        found = {key: True for key in kept["held"]} | {key: False for key in kept["clean"]}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return  # missing, damaged or another judge's: judged anew
    with _lock:
        for key, holds in found.items():
            if len(_known) >= MAX_KEPT:
                break
            _known.setdefault(key, holds)


def _save(index_dir: Path) -> None:
    if not index_dir.is_dir():
        return
    with _lock:
        held = sorted(k for k, v in _known.items() if v)
        clean = sorted(k for k, v in _known.items() if not v)
    text = json.dumps({"judge": judge_digest().hex(), "held": held, "clean": clean})
    try:
        atomic_write.write_text(index_dir / FILE, text)
    except OSError as exc:  # a read-only index folder: the next process judges again
        log.debug("name verdicts not kept in %s: %s", index_dir, exc)


def forget() -> None:
    """Every verdict of this process dropped (tests)."""
    global _judged
    with _lock:
        _known.clear()
        _read.clear()
        _judged = 0
