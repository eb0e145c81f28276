"""Every reason a file can be skipped for, as the code counts it (``skipped_<reason>`` in
traces and ``arr index``'s report): one vocabulary, documented from here (docs/channels.md
lists exactly these; ``tests/unit/test_skip_reasons.py`` compares both with the code)."""

from __future__ import annotations

from arr import file_rule
from arr.readers import view

# the walk: a folder it could not list
WALK = ("unreadable_dir",)
# grep: a line that changed between ripgrep's report and the re-read; ripgrep's own file
# errors other than vanished/unreadable; a file name that is not UTF-8
GREP = ("changed_during_scan", "io_error", "non_utf8_name")
# grep over a reader's file whose view could not be cached (a read-only index folder)
VIEWS = ("view_not_cached",)

SKIP_REASONS: tuple[str, ...] = tuple(
    dict.fromkeys((*file_rule.REASONS, *WALK, *GREP, *view.REASONS, *VIEWS))
)
