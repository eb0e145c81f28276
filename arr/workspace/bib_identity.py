"""A PDF identified by the workspace's own bibliography: a Zotero data folder's item whose
attachment it is (``zotero.sqlite`` beside ``storage/<KEY>/x.pdf``:
:mod:`arr.workspace.zotero_records`), else the ``.bib`` entry that names the PDF (its ``file``
field, as Zotero with Better BibTeX, JabRef or Mendeley write it), else the one whose title is
the PDF's, gives the title, the authors, the year and the DOI shown with its pages
(``location.identity``: ``title: bib; authors: bib; year: bib; bib: refs.bib#lamport78``; a
Zotero item's fields read ``zotero`` and its pointer ``zotero: Zotero/zotero.sqlite#AB12CD34``).
Each field is the record's own: a record without a year shows ``year: unknown`` and no
citation, never the PDF's guessed one beside ``authors: bib``.

A researcher's reference manager knows a paper better than its first page does, so a record
outranks what the PDF's own reader found (:mod:`arr.readers.identity`). It is applied when an
answer is shown, never stored in an index: an edited ``.bib`` is seen by the next search (its
records are read again when a ``.bib`` of the scope changed size or time), a new one within
``WALK_EVERY_S``. A ``.bib`` is read under the one file rule, whole: one holding a credential
is not used. Only the pages of the PDF's first paper are renamed (not the other works of a
collected volume).
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
import threading
import time
import weakref
from dataclasses import dataclass, field

from arr.models import EvidenceChunk, Location, ScopeKey, replaced
from arr.readers.bib_records import BibRecord, records, title_key
from arr.readers.citation import cite_surnames
from arr.safety import file_rule
from arr.workspace.sources import SourceFile

MAX_BIB_BYTES = 50_000_000


@dataclass
class Lookup:
    """A scope's records by the label of the PDF they name, by its file name (when one record
    names it), and by title."""

    by_label: dict[str, tuple[str, BibRecord]] = field(default_factory=dict)
    by_name: dict[str, tuple[str, BibRecord] | None] = field(default_factory=dict)
    by_title: dict[str, tuple[str, BibRecord] | None] = field(default_factory=dict)

    def find(self, location: Location) -> tuple[str, BibRecord] | None:
        path = location.path or ""
        found = self.by_label.get(path) or self.by_name.get(posixpath.basename(path))
        if found or not location.title:
            return found
        title = location.title
        return self.by_title.get(title_key(title)) or self.by_title.get(
            title_key(_TITLE_NOTE.sub("", title))
        )


# A note a publisher prints after a title and a bibliography leaves out: "Pure Exploration of
# Multi-armed Bandit Under Matroid Constraints [Extended Abstract]" is the entry's paper.
_TITLE_NOTE = re.compile(r"\s*[\[(][^\[\]()]{1,40}[\])]\s*$")


def _label_of(bib: SourceFile, named: str, roots: dict[str, str]) -> str | None:
    """The scope label of the file a record names: a relative path from the ``.bib``'s folder,
    or an absolute path under one of the scope's roots (None when it lies elsewhere)."""
    bib_relative = bib.path[len(bib.root) + 1 :]
    prefix = bib.label[: len(bib.label) - len(bib_relative)]
    if not os.path.isabs(named):
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(bib_relative), named))
        return None if joined.startswith("..") else prefix + joined
    for root, root_prefix in roots.items():
        if named.startswith(root + os.sep):
            return root_prefix + named[len(root) + 1 :]
    return None


_STORED = re.compile(r"(?:^|/)storage/[A-Z0-9]{8}/[^/]+\.pdf$", re.IGNORECASE)


def zotero_databases(files: list[SourceFile]) -> list[SourceFile]:
    """The ``zotero.sqlite`` of each Zotero data folder whose stored PDFs the walk found (the
    walk itself skips databases as binary): a regular file, never through a link."""
    found: dict[str, SourceFile] = {}
    for source in files:
        relative = source.path[len(source.root) + 1 :]
        match = _STORED.search(relative)
        if match is None:
            continue
        folder = relative[: match.start() + (1 if relative[match.start()] == "/" else 0)]
        database = folder + "zotero.sqlite"
        if database in found:
            continue
        try:
            info = os.lstat(os.path.join(source.root, database))
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            label = source.label[: len(source.label) - len(relative)] + database
            found[database] = SourceFile.of(
                label, os.path.join(source.root, database), info, source.root
            )
    return list(found.values())


def add_zotero(found: Lookup, database: SourceFile) -> None:
    """The stored PDFs of a Zotero data folder (``zotero.sqlite`` beside ``storage/``)."""
    from arr.workspace.zotero_records import zotero_records

    relative = database.path[len(database.root) + 1 :]
    folder = database.label[: -len("zotero.sqlite")]  # the data folder's label, with its /
    for stored, record in zotero_records(database.root, relative).items():
        found.by_label.setdefault(folder + stored, (f"{database.label}#{record.key}", record))


def build_lookup(
    bibs: list[SourceFile], all_roots: dict[str, str], zotero: list[SourceFile] = ()
) -> Lookup:
    found = Lookup()
    for database in zotero:  # a reference manager's own database first: the most trusted
        add_zotero(found, database)
    for bib in bibs:
        relative = bib.path[len(bib.root) + 1 :]
        raw, _ = file_rule.read_path(bib.root, relative, MAX_BIB_BYTES)  # content judged too
        if raw is None:
            continue
        for record in records(raw.decode("utf-8", "replace")):
            entry = (f"{bib.label}#{record.key}", record)
            for named in record.files:
                label = _label_of(bib, named, all_roots)
                if label is not None:
                    found.by_label.setdefault(label, entry)
                name = posixpath.basename(named.replace("\\", "/"))
                found.by_name[name] = None if name in found.by_name else entry
            key = title_key(record.title)
            if len(key) >= 12:  # a title of a few letters names no paper
                found.by_title[key] = None if key in found.by_title else entry
    return found


def _pdf_parts(identity: str) -> dict[str, str]:
    """The reader's identity line as its parts (``title: layout; doi: 10.1/x`` -> fields)."""
    parts = (part.partition(": ") for part in identity.split("; "))
    return {name: value for name, _, value in parts if value}


def identified(item: EvidenceChunk, lookup: Lookup) -> EvidenceChunk:
    """The item with its PDF's identity from the record that names it, each field from the
    record (``bib`` or ``zotero``): a field the record lacks is unknown, never filled from the
    PDF's own guess (the title aside, which the page always shows), so the citation is the
    record's authors and year or none; or the item as it was."""
    where = item.location
    if where.page is None or where.identity is None:
        return item
    found = lookup.find(where)
    if found is None:
        return item
    entry, record = found
    pdf = _pdf_parts(where.identity)
    source = record.source
    cited = cite_surnames(list(record.surnames), record.year, record.more) if record.year else None
    parts = [
        f"title: {source if record.title else pdf.get('title', 'unknown')}",
        f"authors: {source if record.surnames else 'unknown'}",
        f"year: {source if record.year else 'unknown'}",
    ]
    doi = record.doi or pdf.get("doi")  # a DOI page 1 prints still names the file
    parts += [f"doi: {doi}"] if doi else []
    parts += [f"arxiv: {pdf['arxiv']}"] if pdf.get("arxiv") else []
    parts.append(f"{source}: {entry}")
    location = replaced(
        where,
        title=record.title or where.title,
        citation=f"{cited}, p. {where.page}" if cited else None,
        identity="; ".join(parts),
    )
    return replaced(item, location=location)


# A scope's tree is walked for its bibliographies at most this often; between walks the ones
# found are only stat-ed (a few system calls, where a walk of 12,000 files cost 117 ms of every
# search that showed a PDF page): an edited .bib shows at the next search, a new one within this.
WALK_EVERY_S = 5.0


def _restat(found: SourceFile) -> SourceFile | None:
    """The file as it is now (size and time), or None when it is gone or no regular file."""
    try:
        info = os.lstat(found.path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return SourceFile.of(found.label, found.path, info, found.root)


@dataclass
class _Scope:
    walked_at: float = -WALK_EVERY_S
    files: list[SourceFile] = field(default_factory=list)  # its .bib files and Zotero databases
    state: tuple[tuple[str, int, int, int], ...] = ()  # (label, size, mtime, ctime) each
    lookup: Lookup | None = None


class BibIdentities:
    """The lookups of a workspace's scopes, read again when a scope's ``.bib`` files change."""

    def __init__(self) -> None:
        self._scopes: dict[ScopeKey, _Scope] = {}
        self._lock = threading.Lock()

    def lookup(self, workspace: object, scope: ScopeKey) -> Lookup | None:
        with self._lock:  # one scope's records read once, however many searches ask
            known = self._scopes.setdefault(scope, _Scope())
            return self._current(workspace, scope, known)

    @staticmethod
    def _current(workspace: object, scope: ScopeKey, known: _Scope) -> Lookup | None:
        now = time.monotonic()
        if now - known.walked_at >= WALK_EVERY_S:
            walked = workspace.source_files(scope)  # type: ignore[attr-defined]
            bibs = [f for f in walked if f.label.lower().endswith(".bib")]
            known.files, known.walked_at = [*zotero_databases(walked), *bibs], now
        else:
            known.files = [now_ for f in known.files if (now_ := _restat(f)) is not None]
        if not known.files:
            return None
        state = tuple((f.label, f.size, f.mtime_ns, f.ctime_ns) for f in known.files)
        if known.lookup is not None and known.state == state:
            return known.lookup
        roots = {}
        spec = workspace.spec_for(scope)  # type: ignore[attr-defined]
        paths = workspace.root_paths(spec) if spec is not None else []  # type: ignore[attr-defined]
        for root in paths:
            roots[os.path.realpath(root)] = f"{root.name}/" if len(paths) > 1 else ""
        zotero = [f for f in known.files if f.label.endswith("zotero.sqlite")]
        bibs = [f for f in known.files if not f.label.endswith("zotero.sqlite")]
        known.lookup, known.state = build_lookup(bibs, roots, zotero), state
        return known.lookup


# per workspace object (a pydantic model: not hashable, so by id, checked through a weak
# reference that dies with it)
_BY_WORKSPACE: dict[int, tuple[weakref.ref[object], BibIdentities]] = {}
_GUARD = threading.Lock()


def with_bib_identity(
    workspace: object | None, scope: ScopeKey, ranked: list[EvidenceChunk]
) -> list[EvidenceChunk]:
    """``ranked`` with every PDF page a scope's ``.bib`` names shown with that record's
    identity; unchanged where no page is a PDF's or the scope has no ``.bib``."""
    if workspace is None or not any(c.location.page is not None for c in ranked):
        return ranked
    lookup = _lookup_for(workspace, scope)
    if lookup is None:
        return ranked
    return [identified(item, lookup) for item in ranked]


def _lookup_for(workspace: object, scope: ScopeKey) -> Lookup | None:
    """The scope's records (read again when a bibliography changed), or None without one."""
    with _GUARD:
        held = _BY_WORKSPACE.get(id(workspace))
        if held is None or held[0]() is not workspace:
            for key in [k for k, (ref, _) in _BY_WORKSPACE.items() if ref() is None]:
                del _BY_WORKSPACE[key]
            held = _BY_WORKSPACE[id(workspace)] = (weakref.ref(workspace), BibIdentities())
        identities = held[1]
    return identities.lookup(workspace, scope)


def described_papers(
    workspace: object | None, scope: ScopeKey, ranked: list[EvidenceChunk]
) -> dict[str, int]:
    """For each bibliography entry that names a PDF page of ``ranked``: the entry's place
    (``refs.bib#lamport78``, as :meth:`Location.ref` names it) and the position of the first of
    that PDF's pages in ``ranked``."""
    if workspace is None or not any(c.location.page is not None for c in ranked):
        return {}
    lookup = _lookup_for(workspace, scope)
    if lookup is None:
        return {}
    papers: dict[str, int] = {}
    for position, item in enumerate(ranked):
        if item.location.page is None or item.location.identity is None:
            continue
        found = lookup.find(item.location)
        if found is not None:
            papers.setdefault(found[0], position)
    return papers
