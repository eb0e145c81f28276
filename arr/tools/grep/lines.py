"""One grep call's line search: engine stages run root by root, lines scored by the query's
terms, ranked, then verified in rank order into the answer under the per-file cap.

Lines rank by how many of the query's terms they hold (the whole phrase counting twice), then by
their file's number of matching lines, then by path and line number. Ranking comes before
verification, so only files that reach the answer are re-read.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from arr.readers import Readers
from arr.readers.view import View
from arr.tools.grep.engine import Engine, Hit
from arr.tools.grep.query import Stage, line_score, whole_score
from arr.tools.grep.verify import (
    Candidate,
    CheckedFiles,
    engine_target,
    root_label,
    snippet,
    verified,
)
from arr.tools.grep.views import RootViews, is_reader_file


@dataclass
class LineSearch:
    """The state of one call: where it looks, its deadline and counters, and what it kept."""

    engine: Engine
    roots: list[Path]
    sub_path: str | None
    regex: bool
    deadline: float
    counters: Counter[str]
    limit: int = 0
    max_matches_per_file: int = 1
    context_lines: int = 1
    max_line_chars: int = 300
    kept: list[tuple[Candidate, str]] = field(default_factory=list)
    taken: Counter[str] = field(default_factory=Counter)  # lines kept per file
    checked: CheckedFiles = field(default_factory=dict)  # files verified this call
    # the reader files of each root and where their views lie (arr.tools.grep.views)
    views: list[RootViews] | None = None
    view_root: Path | None = None
    readers: Readers | None = None
    views_seen: dict[tuple[Path, str], View] = field(default_factory=dict)

    def run(
        self,
        number: int,
        root: Path,
        stage: Stage,
        targets: list[str],
        max_rows: int = 0,
        count: bool = False,
    ) -> tuple[list[Hit], dict[str, int], str]:
        """The engine over one root's targets: the tree (reader files left out), then the
        views of its reader files among the targets, their hits put back on the files."""
        tree = [t for t in targets if not is_reader_file(t)]
        hits: list[Hit] = []
        counters: Counter[str] = Counter()
        cut = ""
        if tree:
            hits, found, cut = self.engine.run(
                root, stage.patterns, stage.regex, tree, self.deadline, max_rows, count
            )
            counters.update(found)
        views = self.views[number] if self.views and number < len(self.views) else None
        if cut or views is None or self.view_root is None or not views.files:
            return hits, dict(counters), cut
        if targets and targets[0].startswith(".") and len(targets) == 1:
            wanted = views.within(targets[0])  # the root or a sub-path of it
        else:  # named files (a narrowed scan, or the files ranked from counts)
            wanted = sorted({views.files[t] for t in targets if t in views.files})
        if not wanted:
            return hits, dict(counters), cut
        left = max(1, max_rows - len(hits)) if max_rows else 0
        found_hits, found, cut = self.engine.run(
            self.view_root,
            stage.patterns,
            stage.regex,
            wanted,
            self.deadline,
            left,
            count,
            views=True,
        )
        for key, value in found.items():
            counters[key] += value
        for hit in found_hits:
            for original in views.by_view.get(hit.path, ()):
                hits.append(Hit(original, hit.line, hit.text))
        return hits, dict(counters), cut

    def answer(
        self,
        stages: list[Stage],
        terms: list[str],
        files_for: Callable[[Stage], list[list[str]] | None],
    ) -> str:
        """Run the stages in order until the answer is full (each later stage returns no line
        an earlier one did); ``files_for`` narrows a stage's scan. Returns the cut reason."""
        counters = self.counters
        seen: set[tuple[str, int]] = set()
        cut = ""
        for stage in stages:
            if len(self.kept) >= self.limit or cut == "deadline":
                break
            files = files_for(stage)
            if files is not None:
                counters["files_narrowed"] = max(counters["files_narrowed"], sum(map(len, files)))
            # The phrase stage counts apart (the first stage: nothing counted yet but the
            # narrowing): with many lines it is answered from per-file counts instead, and
            # what this pass counted is dropped.
            counted: Counter[str] = Counter() if stage.by_counts else counters
            candidates, cut = self.candidates(stage, terms, counted, files)
            if cut == "rows" and stage.by_counts:
                cut = self.by_counts(stage, terms, files)
                seen.update((c.file, c.hit.line) for c, _ in self.kept)
                continue
            if counted is not counters:
                counters.update(counted)
            counters["matches"] += len(candidates)
            if seen:  # lines the exact stage already returned are not returned twice
                candidates = [c for c in candidates if (c.file, c.hit.line) not in seen]
            cut = self.take(candidates) or cut
            seen.update((c.file, c.hit.line) for c, _ in self.kept)
        return cut

    def targets(
        self, files: list[list[str]] | None, counters: Counter[str]
    ) -> Iterator[tuple[int, Path, str, list[str]]]:
        """Per root with something to scan: its number, path, label (the root's prefix when a
        scope has several) and the engine's targets (the sub-path, or the narrowed files)."""
        for number, root in enumerate(self.roots):
            target = engine_target(root, self.sub_path, counters)
            if target is None:
                continue
            if files is None:
                targets = [target]
            else:  # reader files are never narrowed: their views are always searched
                views = self.views[number] if self.views and number < len(self.views) else None
                sub = None if target == "." else target.removeprefix("./")
                extra = (
                    [r for r in views.files if sub is None or r == sub or r.startswith(sub + "/")]
                    if views is not None
                    else []
                )
                targets = files[number] + extra
            if targets:  # else the word index says no file of this root can match
                yield number, root, root_label(root, self.roots), targets

    def candidates(
        self,
        stage: Stage,
        terms: list[str],
        counters: Counter[str],
        files: list[list[str]] | None = None,
    ) -> tuple[list[Candidate], str]:
        """Unverified hits of the stage's patterns in every root (or only in ``files``, per
        root, when the word index narrowed the scan), scored by the ``terms`` they hold."""
        byte_terms = [t.encode("utf-8") for t in terms]
        whole_holds = whole_score(byte_terms)
        at_most = self.engine.max_matches_per_file
        found: list[Candidate] = []
        cut = capped = ""
        for number, root, label, targets in self.targets(files, counters):
            hits, engine_counters, cut = self.run(number, root, stage, targets, stage.max_rows)
            if cut == "rows" and stage.by_counts:
                break  # many lines: the caller ranks them from per-file counts instead
            if cut == "rows":  # the bounded any-word stage: more lines existed than were read
                counters["engine_rows_cut"] += 1
                cut = "cap"
            for key, value in engine_counters.items():
                counters[key] = max(counters[key], value)
            # ripgrep stops reading a file at --max-count: such a file may hold more lines
            at_cap = (
                sum(n == at_most for n in Counter(h.path for h in hits).values())
                if len(hits) >= at_most  # else no file can be at it
                else 0
            )
            if at_cap:
                counters["files_at_engine_cap"] += at_cap
            if self.regex:
                found += [Candidate(label, root, hit, 1.0) for hit in hits]
            else:
                found += [
                    Candidate(label, root, hit, line_score(hit.text, byte_terms, whole_holds))
                    for hit in hits
                ]
            if cut == "cap":  # this root was read up to the bound; the others still are
                capped, cut = "cap", ""
            if cut:
                break
        return found, cut or capped

    def by_counts(self, stage: Stage, terms: list[str], files: list[list[str]] | None) -> str:
        """The phrase stage when it holds many lines, with the answer of reading them all.

        Every line of the phrase holds every term, so lines rank by their file's number of
        matching lines, then path and line (``take``'s order). One engine pass counts the
        lines per file (``--count``, the same ``--max-count``); the files are ranked from the
        counts, and only the lines of the top files are read - a batch at a time, until the
        answer is full - and handed to ``take`` with the counts, so ranking, per-file caps,
        verification and counters come out as if every line had been read. Lines that hold
        the phrase only under Unicode case folding (ripgrep's ``-i``, not Python's) score lower
        and rank after all others, as they would: they are kept back until every file is read.
        Returns the cut reason."""
        counters = self.counters
        byte_terms = [t.encode("utf-8") for t in terms]
        whole = whole_score(byte_terms)  # every term lies inside the phrase (countable)
        ranked: list[tuple[int, str, int, str]] = []  # (-lines, file, root number, path)
        for number, root, label, targets in self.targets(files, counters):
            found, engine_counters, cut = self.run(number, root, stage, targets, 0, count=True)
            for key, value in engine_counters.items():
                counters[key] = max(counters[key], value)
            if cut:
                return cut
            ranked += [(-hit.line, label + hit.path, number, hit.path) for hit in found]
        ranked.sort()
        lines = {file: -negative for negative, file, _, _ in ranked}
        counters["matches"] += sum(lines.values())
        counters["files_at_engine_cap"] += sum(
            n == self.engine.max_matches_per_file for n in lines.values()
        )
        later: list[Candidate] = []  # lines holding the phrase only under case folding
        position = 0
        while position < len(ranked):
            room, batch = 0, []
            while position < len(ranked) and room < self.limit - len(self.kept):
                negative, file, _, _ = ranked[position]
                batch.append(ranked[position])
                room += min(-negative, max(0, self.max_matches_per_file - self.taken[file]))
                position += 1
            candidates: list[Candidate] = []
            for number, root in enumerate(self.roots):
                paths = [path for _, _, n, path in batch if n == number]
                if not paths:
                    continue
                found, _, cut = self.run(number, root, stage, paths, 0)
                if cut:
                    return cut
                label = root_label(root, self.roots)
                for hit in found:
                    score = line_score(hit.text, byte_terms, whole)
                    (candidates if score == whole else later).append(
                        Candidate(label, root, hit, score)
                    )
            cut = self.take(candidates, lines)
            if cut:
                return cut
            if len(self.kept) >= self.limit and position < len(ranked):
                return "cap"  # full, and the next file's first line would have been next
        # the folded lines last; with the answer full they are only counted (per-file cap)
        return self.take(later, lines)

    def take(self, candidates: list[Candidate], per_file: Mapping[str, int] | None = None) -> str:
        """Rank, then verify in rank order into ``kept``; returns a cut reason or "".
        ``per_file``: the stage's matching lines per file when ``candidates`` are only some
        of them (ranked from counts). A file withheld by the rules is counted once per call."""
        counters = self.counters
        files = [c.file for c in candidates]
        if per_file is None:
            per_file = Counter(files)
        keys = [
            (-c.score, -per_file[f], f, c.hit.line) for c, f in zip(candidates, files, strict=True)
        ]
        order = sorted(range(len(candidates)), key=keys.__getitem__)
        candidates[:] = [candidates[i] for i in order]
        cut = ""
        max_bytes = self.engine.max_file_bytes
        for candidate, lines in verified(
            candidates,
            max_bytes,
            counters,
            self.deadline,
            self.checked,
            self.readers,
            self.views_seen,
        ):
            key = candidate.file
            if self.taken[key] >= self.max_matches_per_file:
                counters["lines_over_file_cap"] += 1  # withheld by the per-file cap: said
                continue
            if len(self.kept) == self.limit:
                cut = "cap"
                break
            self.taken[key] += 1
            text = snippet(
                lines, candidate.hit.line, self.context_lines, self.max_line_chars, counters
            )
            self.kept.append((candidate, text))
        if counters.pop("_deadline_in_verify", 0):
            cut = "deadline"
        return cut
