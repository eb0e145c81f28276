"""Every reason a file can be skipped for, as the code counts it (``skipped_<reason>`` in
traces and ``arr index``'s report): one vocabulary, documented from here (docs/channels.md
lists exactly these; ``tests/unit/test_skip_reasons.py`` compares both with the code)."""

from __future__ import annotations

from arr.readers import view
from arr.safety import file_rule

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

# Each reason in a researcher's words (``arr index`` and ``arr skipped`` print them beside it).
REASON_WORDS: dict[str, str] = {
    "path_escape": "outside the scope's roots",
    "sensitive_name": "a secret-bearing file name (withheld)",
    "binary": "binary content",
    "link": "a symbolic link (never followed)",
    "special_file": "not a regular file",
    "hardlink": "a file with another name elsewhere (never opened)",
    "oversize": "larger than the size cap",
    "credential": "holds credential-like text (withheld whole)",
    "unreadable": "could not be read",
    "vanished": "gone before it was read",
    "unreadable_dir": "a folder that cannot be listed",
    "changed_during_scan": "changed while it was searched",
    "io_error": "a read error",
    "non_utf8_name": "a file name that is not UTF-8",
    "pdf_encrypted": "needs a password",
    "no_text": "no text to index",
    "garbled_text": "its text layer is mostly unmapped characters (a broken font encoding)",
    "pdf_too_many_pages": "more pages than the limit",
    "extract_timeout": "reading took longer than the per-file budget",
    "extract_memory": "reading needed more memory than the limit",
    "view_not_cached": "its extracted text could not be cached",
}
