"""Which files a grep call needs to scan: a word index over the files ripgrep would read.

On a 22,000-file tree ripgrep reads ~1 GB for every call (0.3-0.9 s on two cores) although a
look-up such as ``PositionalIndexer2D`` occurs in a handful of files. ``arr index`` therefore
also records, per file ripgrep would search, the set of its words (``[a-z0-9_]+`` after ASCII
lower-casing) with the file's size and mtime. A case-insensitive literal then narrows the scan:

- the literal is cut into its word runs; a run that starts the literal must *end* a word of
  the file (text before it may be anything), one that ends it must *start* a word, a run inside
  must *be* a word, and a literal that is one run must lie inside a word;
- each run's words are found in the sorted vocabulary (a scan of one ``\\n``-separated blob),
  their files united; the runs' file sets intersected;
- files changed or added since the index was built (by size and mtime, from the walk a watched
  tree remembers) are always scanned, and so are files holding a character that Unicode case
  folding maps onto ASCII (the Kelvin sign, the long s), which ASCII lower-casing cannot see,
  and hidden folders (searched by ripgrep, not seen by the tree watch), handed to ripgrep as
  folders so that it walks them live.

The narrowing is sound by construction: a file left out cannot hold the literal (tested against
full scans on generated trees). Regex calls, literals with non-ASCII characters or without a
word, an unwatched workspace (one-shot commands would pay a walk to save one) and a missing
index all scan the whole tree, as before.
"""

from __future__ import annotations

import bisect
import json
import os
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from arr.readers import suffix_of
from arr.safety import file_rule
from arr.safety.rules import is_sensitive_filename, is_sensitive_folder
from arr.workspace.sources import TEXT_SUFFIXES

WORD = re.compile(rb"[a-z0-9_]+")
# UTF-8 of U+212A KELVIN SIGN and U+017F LATIN SMALL LETTER LONG S: ripgrep -i matches them
# for k and s, ASCII lower-casing does not.
FOLDS_TO_ASCII = (b"\xe2\x84\xaa", b"\xc5\xbf")
BINARY_PROBE_BYTES = 8192
MAX_RUN_WORDS = 20_000  # a run matching more words than this narrows nothing worth the union
MAX_REMEMBERED_LITERALS = 256

FILES_FILE = "grep-files.json"
BINARY_FILE = "grep-binary.json"  # files the build's walk found binary: not probed again
WORDS_FILE = "grep-words.txt"
POSTINGS_FILE = "grep-postings.npy"
INDPTR_FILE = "grep-indptr.npy"


class TreeWalk(NamedTuple):
    """One walk of the roots as ripgrep sees them: withheld files by reason; per root the files
    it would read outside hidden folders (relative path -> (size, later of mtime and ctime));
    per root the outermost hidden folders ripgrep enters (``--hidden``), which the tree watch
    does not see (it watches what the indexes read) and which a narrowed call therefore always
    scans live."""

    withheld: dict[str, int]
    files: list[dict[str, tuple[int, int]]]
    hidden: list[list[str]]
    binary: list[dict[str, tuple[int, int]]]  # per root, files found binary (not hidden)
    # per root, regular files with more than one name: the engine is told to skip them (the
    # one file rule, arr.safety.file_rule), so not even ripgrep opens them
    hard_links: tuple[list[str], ...] = ()
    # per root, files a reader reads (arr.readers: PDFs, notebooks, LaTeX, BibTeX) outside
    # hidden folders: searched through their views (arr.tools.grep.views), never by ripgrep
    # on the tree and never in the word index
    readers: tuple[dict[str, tuple[int, int]], ...] = ()


class Known(NamedTuple):
    """What an earlier walk found, per root: files read as text and files found binary, by
    their (size, mtime_ns); a file in the same state is not opened again."""

    text: list[dict[str, tuple[int, int]]]
    binary: list[dict[str, tuple[int, int]]]


def walk(
    roots: Sequence[Path],
    max_file_bytes: int,
    known: Known | None = None,
    sources: Mapping[str, tuple[int, int]] | None = None,
    cap_of: Callable[[str, int], int] | None = None,
) -> TreeWalk:
    """What ripgrep, run as the grep channel runs it, skips without a word, counted by reason
    (sensitive folders and names, links, sockets/FIFOs/devices, files over the size cap,
    binary files), and every file it would read. With ``known`` (the word index's walk),
    files whose size and mtime are unchanged keep their text/binary verdict unopened: probing
    11,000 headers was a sixth of the first search on a 22,000-file tree. With ``sources``
    (absolute path -> (size, mtime_ns) of the regular, plainly named files the indexes' walk
    of the same unchanged tree found), those files are neither checked nor stat'ed again."""
    counts: Counter[str] = Counter()
    files: list[dict[str, tuple[int, int]]] = []
    hidden: list[list[str]] = []
    binaries: list[dict[str, tuple[int, int]]] = []
    hard_links: list[list[str]] = []
    read_by_readers: list[dict[str, tuple[int, int]]] = []
    for number, root in enumerate(roots):
        linked: list[str] = []
        hard_links.append(linked)
        viewed: dict[str, tuple[int, int]] = {}
        read_by_readers.append(viewed)
        seen: dict[str, tuple[int, int]] = {}
        files.append(seen)
        binary: dict[str, tuple[int, int]] = {}
        binaries.append(binary)
        was_text = known.text[number] if known and number < len(known.text) else {}
        was_binary = known.binary[number] if known and number < len(known.binary) else {}
        live: list[str] = []
        hidden.append(live)
        base = len(str(root)) + 1
        stack = [(str(root), False)]
        while stack:
            folder, inside_hidden = stack.pop()
            try:
                with os.scandir(folder) as listing:
                    entries = list(listing)
            except OSError:
                continue  # the engine reports unreadable folders itself (skipped_unreadable)
            for entry in entries:
                name = entry.name
                try:
                    # a regular file with a plain name that the sources walk saw just now
                    state = sources.get(entry.path) if sources else None
                    if state is not None:
                        pass  # its checks and its lstat are that walk's: on to its content
                    elif entry.is_symlink():
                        counts["skipped_link"] += 1
                        continue
                    elif entry.is_dir(follow_symlinks=False):
                        if is_sensitive_folder(name):
                            counts["skipped_sensitive_name"] += 1
                        else:
                            if name.startswith(".") and not inside_hidden:
                                live.append(entry.path[base:])
                            stack.append((entry.path, inside_hidden or name.startswith(".")))
                        continue
                    elif is_sensitive_filename(name):
                        counts["skipped_sensitive_name"] += 1
                        continue
                    elif not entry.is_file(follow_symlinks=False):
                        counts["skipped_special_file"] += 1
                        continue
                    else:
                        info = entry.stat(follow_symlinks=False)
                        if info.st_nlink != 1:  # a hard link: never opened, by anyone
                            counts["skipped_hardlink"] += 1
                            linked.append(entry.path[base:])
                            continue
                        state = (info.st_size, max(info.st_mtime_ns, info.st_ctime_ns))
                    reader = suffix_of(name) is not None
                    cap = cap_of(name, max_file_bytes) if reader and cap_of else max_file_bytes
                    if state[0] > cap:
                        counts["skipped_oversize"] += 1
                        continue
                    relative = entry.path[base:]
                    if reader:
                        if not inside_hidden:
                            viewed[relative] = state
                        continue
                    if name.lower().endswith(TEXT_SUFFIXES) or was_text.get(relative) == state:
                        is_binary = False
                    elif was_binary.get(relative) == state:
                        is_binary = True
                    else:
                        is_binary = _looks_binary(entry.path)
                    if is_binary:
                        counts["skipped_binary"] += 1
                        if not inside_hidden:
                            binary[relative] = state
                    elif not inside_hidden:
                        seen[relative] = state
                except OSError:
                    continue  # vanished meanwhile: nothing to withhold
    return TreeWalk(
        dict(counts), files, hidden, binaries, tuple(hard_links), tuple(read_by_readers)
    )


def _looks_binary(path: str) -> bool:
    """A NUL byte in the file's head: ripgrep's own test, which makes it skip the file without
    a word. Files with the text suffixes the indexes read are not opened: probing them would
    double the walk (about 0.1 s more on 10,000 files) for files that are text. ripgrep reports
    a NUL it meets after a match, and the channel counts that file itself; a text-named file
    with a NUL in its first 64 KiB (UTF-16 without a byte-order mark) is the one not counted."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        return b"\x00" in os.read(fd, BINARY_PROBE_BYTES)
    finally:
        os.close(fd)


def file_words(content: bytes) -> set[bytes] | None:
    """The file's words, or None when it must always be scanned (a character that folds onto
    ASCII under Unicode case folding)."""
    if any(marker in content for marker in FOLDS_TO_ASCII):
        return None
    return set(WORD.findall(content.lower()))


def write_index(
    folder: Path, roots: Sequence[Path], tree: TreeWalk, max_file_bytes: int
) -> dict[str, Any]:
    """Read every file of the walk once and write the word index into ``folder``."""
    entries: list[list[Any]] = []  # [root number, relative path, size, mtime_ns, always]
    vocabulary: dict[bytes, int] = {}
    pairs: list[Any] = []
    refused: Counter[str] = Counter()
    for number, (root, files) in enumerate(zip(roots, tree.files, strict=True)):
        for relative, (size, mtime_ns) in sorted(files.items()):
            # the one file rule: a link, hard link or credential file swapped in since the walk
            # leaves no word here (ripgrep may still report it; the verifier refuses it)
            content, reason = file_rule.read_path(str(root), relative, max_file_bytes)
            if content is None:
                if reason != file_rule.BINARY:  # the walk counted binary files already
                    refused[reason] += 1
                continue
            words = file_words(content)
            row = len(entries)
            entries.append([number, relative, size, mtime_ns, words is None])
            if words:
                ids = np.fromiter(
                    (vocabulary.setdefault(w, len(vocabulary)) for w in words),
                    dtype=np.int32,
                    count=len(words),
                )
                pairs.append(np.stack([ids, np.full(len(ids), row, dtype=np.int32)]))
    keys = list(vocabulary)  # in id order
    order = sorted(range(len(keys)), key=keys.__getitem__)
    rank = np.empty(len(vocabulary), dtype=np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    joined = np.concatenate(pairs, axis=1) if pairs else np.zeros((2, 0), dtype=np.int32)
    words_sorted = rank[joined[0]]
    by_word = np.lexsort((joined[1], words_sorted))
    postings = joined[1][by_word]
    indptr = np.zeros(len(vocabulary) + 1, dtype=np.int64)
    np.cumsum(np.bincount(words_sorted, minlength=len(vocabulary)), out=indptr[1:])
    (folder / WORDS_FILE).write_bytes(b"\n" + b"".join(keys[i] + b"\n" for i in order))
    np.save(folder / POSTINGS_FILE, postings.astype(np.int32))
    np.save(folder / INDPTR_FILE, indptr)
    (folder / FILES_FILE).write_text(json.dumps(entries), encoding="utf-8")
    binary = [
        [number, relative, size, mtime_ns]
        for number, found in enumerate(tree.binary)
        for relative, (size, mtime_ns) in sorted(found.items())
    ]
    (folder / BINARY_FILE).write_text(json.dumps(binary), encoding="utf-8")
    return {"files": len(entries), "words": len(vocabulary), "refused": dict(refused)}


class WordIndex:
    """A loaded word index (memory-mapped postings)."""

    def __init__(self, folder: Path) -> None:
        self.entries: list[list[Any]] = json.loads(
            (folder / FILES_FILE).read_text(encoding="utf-8")
        )
        self.blob = (folder / WORDS_FILE).read_bytes()
        # plain ndarray views of the memory maps: slicing an np.memmap builds a memmap object
        # per slice, which cost more than the look-up itself for words in thousands of files
        self.postings = np.asarray(np.load(folder / POSTINGS_FILE, mmap_mode="r"))
        self.indptr = np.asarray(np.load(folder / INDPTR_FILE, mmap_mode="r"))
        # literal -> rows: a call's word stages ask for the same words again (bounded)
        self._by_literal: dict[str, np.ndarray | None] = {}
        # the \n before each word (every \n but the last): one vectorised pass, not a loop
        newlines = np.flatnonzero(np.frombuffer(self.blob, dtype=np.uint8) == 10)
        self.starts = newlines[:-1].astype(np.int64)
        if len(self.starts) != len(self.indptr) - 1:
            raise ValueError("word index files do not agree")
        roots = 1 + max((e[0] for e in self.entries), default=0)
        # per root: relative path -> (size, mtime_ns) as the build read it, and -> row
        text: list[dict[str, tuple[int, int]]] = [{} for _ in range(roots)]
        self.rows: list[dict[str, int]] = [{} for _ in range(roots)]
        for row, (number, relative, size, mtime_ns, _always) in enumerate(self.entries):
            text[number][relative] = (size, mtime_ns)
            self.rows[number][relative] = row
        binary: list[dict[str, tuple[int, int]]] = [{} for _ in range(roots)]
        try:  # an index written before binary files were recorded: they are probed
            for number, relative, size, mtime_ns in json.loads(
                (folder / BINARY_FILE).read_text(encoding="utf-8")
            ):
                while number >= len(binary):
                    binary.append({})
                binary[number][relative] = (size, mtime_ns)
        except FileNotFoundError:
            pass
        self.known = Known(text, binary)
        self.always = np.array([r for r, e in enumerate(self.entries) if e[4]], dtype=np.int64)

    def _words(self, needle: bytes) -> np.ndarray | None:
        """Word numbers (one past each word's start) whose ``\\n``-framed form contains
        ``needle``, sorted; None: too many."""
        found: list[int] = []
        position = self.blob.find(needle)
        while position != -1:
            found.append(position)
            if len(found) > MAX_RUN_WORDS:
                return None
            position = self.blob.find(needle, position + 1)
        return np.unique(np.searchsorted(self.starts, found, side="right"))

    def _word(self, number: int) -> bytes:
        start = int(self.starts[number]) + 1
        return self.blob[start : self.blob.index(b"\n", start)]

    def _words_starting(self, prefix: bytes, whole: bool) -> np.ndarray | None:
        """Word numbers (one past, as ``_words``) of the words that start with ``prefix`` or,
        ``whole``, equal it: a binary search of the sorted vocabulary, no scan of the blob."""
        count = len(self.starts)
        low = bisect.bisect_left(range(count), prefix, key=self._word)
        if whole:
            high = low + 1 if low < count and self._word(low) == prefix else low
        else:  # words are [a-z0-9_]+: every word with the prefix sorts below prefix + 0xff
            high = bisect.bisect_left(range(count), prefix + b"\xff", key=self._word)
        if high - low > MAX_RUN_WORDS:
            return None
        return np.arange(low + 1, high + 1)

    def _files_of(self, words: np.ndarray) -> np.ndarray:
        """Sorted distinct rows of files holding any of the words, gathered in one vectorised
        step (a word run such as ``out`` lies inside thousands of words)."""
        starts = self.indptr[words - 1]  # words are one past their start (searchsorted)
        lengths = self.indptr[words] - starts
        total = int(lengths.sum())
        if not total:
            return np.zeros(0, dtype=np.int64)
        # positions starts[i] .. starts[i] + lengths[i] - 1 of every word, concatenated
        offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
        return np.unique(self.postings[np.arange(total) + offsets].astype(np.int64))

    def rows_for(self, literal: str) -> np.ndarray | None:
        """Sorted rows that may hold ``literal`` (case-insensitive); None: no narrowing."""
        key = literal.lower()
        if key not in self._by_literal:
            if len(self._by_literal) >= MAX_REMEMBERED_LITERALS:
                self._by_literal.pop(next(iter(self._by_literal)))
            self._by_literal[key] = self._rows_for(literal)
        return self._by_literal[key]

    def _rows_for(self, literal: str) -> np.ndarray | None:
        if not literal.isascii():
            return None
        text = literal.lower().encode()
        runs = list(WORD.finditer(text))
        if not runs:
            return None
        found: np.ndarray | None = None
        for run in runs:
            word = run.group()
            at_start, at_end = run.start() == 0, run.end() == len(text)
            if at_start and at_end:
                words = self._words(word)  # anywhere inside a word
            elif at_start:
                words = self._words(word + b"\n")  # the end of a word
            else:  # the start of a word, or (a run inside the literal) a whole word
                words = self._words_starting(word, whole=not at_end)
            if words is None:
                continue  # too common to narrow: the other runs decide
            rows = self._files_of(words)
            found = rows if found is None else np.intersect1d(found, rows, assume_unique=True)
            if not len(found):
                break
        if found is None:
            return None
        return np.union1d(found, self.always)
