"""Whether the state an index recorded for a file still holds, by content where size and mtime
can lie.

Size and mtime come from the walk's one ``lstat`` and decide almost every file. A file
rewritten with its size kept and its mtime set back (``touch -r``, ``rsync -t``, a tar or a
backup restored over it) passes that test with new text; its inode's change time has moved
all the same (no user can set it), so where only the change time differs the file's content
hash is compared with the one recorded. A copied or restored tree therefore costs one read
of each file, never a re-read by the readers or a new embedding.

A recorded state is ``[size, mtime_ns, ctime_ns, sha256]``; one of two items (written before
content was recorded) is judged by size and mtime alone.
"""

from __future__ import annotations

import functools
from typing import Any

from arr.safety import file_rule
from arr.workspace.sources import SourceFile

# a file the rule refuses has no digest: its state never matches, so the read says why
NO_DIGEST = ""


def digest_of(source: SourceFile) -> str:
    return _digest(source.root, source.path, source.size, source.mtime_ns, source.ctime_ns)


# One hash per file version and process: bm25 and vector in one ``arr index`` (and refreshes
# in a server) ask for the same files; the change time in the key makes a rewrite a new entry.
@functools.lru_cache(maxsize=1 << 16)
def _digest(root: str, path: str, size: int, mtime_ns: int, ctime_ns: int) -> str:
    # the walk's size is the cap: a file grown since is changed, whatever its hash
    found = file_rule.content_digest(root, path[len(root) + 1 :], size)
    return NO_DIGEST if found is None else found


def new_state(source: SourceFile) -> list[Any]:
    """The state to record for a file about to be read (hashed before the read: a change
    meanwhile moves the change time again, and the next index compares anew)."""
    return [source.size, source.mtime_ns, source.ctime_ns, digest_of(source)]


def kept_state(recorded: Any, source: SourceFile) -> list[Any] | None:
    """The state to record again when ``recorded`` still holds for ``source`` (its change
    time brought up to date where the content was compared); None when the file must be read
    again."""
    if not isinstance(recorded, list) or recorded[:2] != [source.size, source.mtime_ns]:
        return None
    if len(recorded) < 4 or recorded[2] == source.ctime_ns:
        return recorded
    digest = digest_of(source)
    if digest == NO_DIGEST or digest != recorded[3]:
        return None
    return [source.size, source.mtime_ns, source.ctime_ns, digest]
