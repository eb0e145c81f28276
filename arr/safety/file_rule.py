"""The one file rule: which files of a scope's tree any channel may read or return.

Every walk (index build, refresh, grep's tree walk), every read (chunking a file for bm25 and
vector, grep's verified re-read of what ripgrep reported) and every answer (the Router's check
of each returned place before fusion) asks the questions below, so no channel can admit a file
another refuses. Reasons are fixed codes, counted as ``skipped_<reason>`` in traces and index
manifests, ``withheld_<reason>`` for a place refused at answer time.

- ``link``: a symbolic link, here or on any folder of the path (never followed);
- ``hardlink``: a regular file with more than one name: a hard link can carry the text of a file
  outside the root, or of another scope, and no walk of one tree can tell which name is "its";
- ``special_file``: FIFOs, sockets, devices (reading one can block or never end);
- ``sensitive_name``: key stores, credential files, sensitive folders such as ``.ssh`` and ARR's
  own ``.arr`` (whose indexes hold the text of every scope);
- ``oversize``: over the size cap, decided on the open file, not on the name;
- ``binary``: a format binary by name, or a NUL byte in the content;
- ``credential``: content that looks like a credential (:func:`arr.safety.rules.credential_kind`).

A read opens each component from the root's descriptor with ``O_NOFOLLOW`` and judges the open
file (``fstat``), so a file swapped for a link between a walk and the read is refused, not read.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from pathlib import PurePosixPath

# Every reason a file can be refused for (in the order the rule asks): the codes' own strings.
from arr.codes import (
    BINARY,
    CREDENTIAL,
    FILE_RULE_REASONS,
    HARDLINK,
    LINK,
    OVERSIZE,
    PATH_ESCAPE,
    SENSITIVE_NAME,
    SPECIAL_FILE,
    UNREADABLE,
    VANISHED,
)
from arr.safety.rules import credential_kind, is_sensitive_filename, is_sensitive_name

REASONS = FILE_RULE_REASONS

# Formats that are binary by definition: refused by name, so a build does not read every
# compiled module, image or array of a tree just to find its NUL byte. (PDFs are read by their
# reader, arr.readers.pdf, not refused.)
BINARY_SUFFIXES = (
    ".pyc", ".pyo", ".so", ".o", ".a", ".dylib", ".dll", ".exe", ".class", ".jar", ".whl",
    ".zip", ".gz", ".bz2", ".xz", ".zst", ".tar", ".7z", ".png", ".jpg", ".jpeg", ".gif",
    ".bmp", ".ico", ".tif", ".tiff", ".webp", ".npy", ".npz", ".pt", ".pth", ".ckpt",
    ".safetensors", ".onnx", ".h5", ".hdf5", ".pkl", ".pickle", ".parquet", ".feather",
    ".arrow", ".sqlite", ".sqlite3", ".db", ".mp3", ".mp4", ".wav", ".ttf", ".otf", ".woff",
    ".woff2",
)  # fmt: skip


def name_reason(name: str) -> str | None:
    """The verdict on a file's own name (before any system call)."""
    if name.lower().endswith(BINARY_SUFFIXES):
        return BINARY
    if is_sensitive_filename(name):
        return SENSITIVE_NAME
    return None


def stat_reason(info: os.stat_result, max_file_bytes: int) -> str | None:
    """The verdict on a file's metadata (an ``lstat`` of the name, or an ``fstat`` of the
    open file): only a regular file with exactly one name, within the cap, is read."""
    mode = info.st_mode
    if stat.S_ISLNK(mode):
        return LINK
    if not stat.S_ISREG(mode):
        return SPECIAL_FILE
    if info.st_nlink != 1:
        return HARDLINK
    if info.st_size > max_file_bytes:
        return OVERSIZE
    return None


def content_reason(content: bytes) -> str | None:
    """The verdict on what was read: a NUL byte is binary (as ripgrep decides), then secrets."""
    if b"\x00" in content:
        return BINARY
    if credential_kind(content) is not None:
        return CREDENTIAL
    return None


def _relative_parts(relative: str) -> tuple[str, ...] | None:
    parts = PurePosixPath(relative).parts
    if not parts or ".." in parts or parts[0] == "/":
        return None
    return parts


def _open_below(root_fd: int, parts: tuple[str, ...]) -> tuple[int, list[int]]:
    """Open the file below root_fd, each folder with O_NOFOLLOW; (fd, folder fds to close)."""
    folders: list[int] = []
    current = root_fd
    try:
        for part in parts[:-1]:
            current = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=current)
            folders.append(current)
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        return os.open(parts[-1], flags, dir_fd=current), folders
    except BaseException:
        for fd in reversed(folders):
            os.close(fd)
        raise


def _os_reason(exc: OSError) -> str:
    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
        return LINK  # O_NOFOLLOW met a link (the file, or a folder on the path)
    if exc.errno == errno.ENOENT:
        return VANISHED
    return UNREADABLE


def read_file(
    root_fd: int, relative: str, max_file_bytes: int, check_content: bool = True
) -> tuple[bytes | None, str]:
    """Read ``relative`` below the root's descriptor under the whole rule; (content, "") or
    (None, reason). ``check_content=False`` leaves the NUL and credential tests to the caller
    (grep's verifier counts them apart)."""
    parts = _relative_parts(relative)
    if parts is None:
        return None, PATH_ESCAPE
    if is_sensitive_name(relative):
        return None, SENSITIVE_NAME
    try:
        fd, folders = _open_below(root_fd, parts)
    except OSError as exc:
        return None, _os_reason(exc)
    try:
        reason = stat_reason(os.fstat(fd), max_file_bytes)
        if reason is not None:
            return None, reason
        content = os.read(fd, max_file_bytes + 1)
        while len(content) <= max_file_bytes:
            more = os.read(fd, max_file_bytes + 1 - len(content))
            if not more:
                break
            content += more
        if len(content) > max_file_bytes:
            return None, OVERSIZE  # it grew after the fstat
    except OSError as exc:
        return None, _os_reason(exc)
    finally:
        os.close(fd)
        for opened in reversed(folders):
            os.close(opened)
    if check_content:
        reason = content_reason(content)
        if reason is not None:
            return None, reason
    return content, ""


def read_path(
    root: str, relative: str, max_file_bytes: int, check_content: bool = True
) -> tuple[bytes | None, str]:
    """:func:`read_file` from the root's path (one descriptor opened for this read)."""
    try:
        root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        return None, _os_reason(exc)
    try:
        return read_file(root_fd, relative, max_file_bytes, check_content)
    finally:
        os.close(root_fd)


def content_digest(root: str, relative: str, max_file_bytes: int) -> str | None:
    """sha256 of a file read under the same rule (no link on the path, a regular file of one
    name, within the cap), in 1 MiB steps; None where the rule refuses it (its read will say
    why)."""
    parts = _relative_parts(relative)
    if parts is None:
        return None
    try:
        root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fd, folders = _open_below(root_fd, parts)
    except OSError:
        os.close(root_fd)
        return None
    try:
        if stat_reason(os.fstat(fd), max_file_bytes) is not None:
            return None
        digest, read = hashlib.sha256(), 0
        while read <= max_file_bytes:
            block = os.read(fd, 1 << 20)
            if not block:
                return digest.hexdigest()
            digest.update(block)
            read += len(block)
        return None  # it grew past the cap after the fstat
    except OSError:
        return None
    finally:
        os.close(fd)
        for opened in reversed(folders):
            os.close(opened)
        os.close(root_fd)


def place_reason(root: str, relative: str, max_file_bytes: int) -> str | None:
    """The verdict on a place as it is now, without reading it (answer time: one ``lstat``
    per folder of the path and one of the file): None when it may be returned."""
    parts = _relative_parts(relative)
    if parts is None:
        return PATH_ESCAPE
    if is_sensitive_name(relative):
        return SENSITIVE_NAME
    reason = name_reason(parts[-1])
    if reason is not None:
        return reason
    current = root
    try:
        for part in parts[:-1]:
            current = os.path.join(current, part)
            if stat.S_ISLNK(os.lstat(current).st_mode):
                return LINK
        return stat_reason(os.lstat(os.path.join(current, parts[-1])), max_file_bytes)
    except OSError as exc:
        return VANISHED if exc.errno in (errno.ENOENT, errno.ENOTDIR) else UNREADABLE
