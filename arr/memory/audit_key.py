"""The key that makes the audit chains prove who appended, not only in what order.

A hash chain has no secret: anyone who can write the database can append a correctly chained
row (a forged "publish m3 by alice"). So each row also carries ``mac`` = HMAC-SHA256(key, the
row's hash), with a key kept outside every workspace and every scope's roots: a process that
can write a store but not read the key cannot make a row ``arr audit verify`` authenticates.

Where the key lives: ``$ARR_AUDIT_KEY`` (a file path) when set, else
``$XDG_CONFIG_HOME/arr/audit.key`` (``~/.config/arr/audit.key``). It is created on first use,
32 random bytes as hex, mode 0600 in a 0700 folder; a key file readable by others, or one that
is a link, is refused. Beside it, ``keyed/`` remembers which stores began a keyed chain (one
file per database path, holding the hash of the row that began it), so a store whose keyed rows
were stripped to look like one made before keys is named, not passed.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import stat
from pathlib import Path

from arr import atomic_write
from arr.errors import ArrError
from arr.safety.audit_secret import KEY_ENV, key_path


class AuditKeyError(ArrError):
    """The audit key cannot be made or read safely."""


def _workspace_of(database: Path) -> Path | None:
    """The folder holding the ``.arr`` folder the database lies in, if any."""
    for folder in Path(database).resolve().parents:
        if folder.name == ".arr":
            return folder.parent
    return None


def check_location(database: Path, path: Path | None = None) -> None:
    """Refuse a key inside the database's folder, its workspace or any scope root of that
    workspace (anyone who can write the store, or search a scope, could then read the key),
    and a key whose folder others can write (they could swap the key); for every use, verify
    included."""
    _check_location(str(database), str(path or key_path()))


def _scope_roots(workspace: Path | None) -> list[Path]:
    """The trusted roots of every scope of the workspace (its ``.arr/workspace.yaml``)."""
    if workspace is None:
        return []
    try:
        from arr.workspace.file import read_file

        parsed = read_file(workspace)
    except Exception:  # no workspace file, or an unreadable one: the folders above still hold
        return []
    found = []
    for entry in parsed.scopes.values():
        for root in entry.roots:
            path = Path(root) if os.path.isabs(root) else workspace / root
            found.append(path.resolve())
    return found


@functools.lru_cache(maxsize=64)
def _check_location(database_text: str, key_text: str) -> None:
    database = Path(database_text)
    key = Path(key_text).expanduser().resolve()
    workspace = _workspace_of(database)
    for inside in (Path(database).resolve().parent, workspace, *_scope_roots(workspace)):
        if inside is not None and (key == inside or inside in key.parents):
            raise AuditKeyError(
                f"the audit key {str(key)!r} lies inside {str(inside)!r}, beside what it "
                f"protects or where a search reads; set {KEY_ENV} to a file outside the "
                "workspace and every scope's roots"
            )
    try:
        folder = os.stat(key.parent)
    except OSError:
        return  # no folder yet: made 0700 with the key
    if folder.st_mode & 0o022 and not folder.st_mode & stat.S_ISVTX:
        raise AuditKeyError(
            f"the audit key's folder {str(key.parent)!r} can be written by others (mode "
            f"{stat.S_IMODE(folder.st_mode):o}): they could replace the key; chmod 700 it"
        )


def _read(path: Path) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise AuditKeyError(f"cannot read the audit key {str(path)!r}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_mode & 0o077:
            raise AuditKeyError(
                f"the audit key {str(path)!r} must be a regular file only its owner can read "
                "(chmod 600)"
            )
        text = os.read(fd, 4096).decode("ascii", "replace").strip()
    finally:
        os.close(fd)
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) < 16:
        raise AuditKeyError(f"the audit key {str(path)!r} is not a hex key of 16+ bytes")
    return key


# path -> ((inode, size, mtime, mode), key): a write reads the key once per process while the
# file is unchanged (one lstat instead of open, fstat and read: 0.2 ms of every memory write)
_LOADED: dict[str, tuple[tuple[int, int, int, int], bytes]] = {}


def load(create: bool) -> bytes | None:
    """The key (made now when ``create`` and there is none), or None when there is none."""
    path = key_path()
    try:
        info = os.lstat(path)
        state = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_mode)
        cached = _LOADED.get(str(path))
        if cached is not None and cached[0] == state:
            return cached[1]
    except OSError:
        state = None
    key = _read(path)
    if key is not None and state is not None:
        _LOADED[str(path)] = (state, key)
    if key is not None or not create:
        return key
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        return _read(path)  # another process made it first
    except OSError as exc:
        raise AuditKeyError(f"cannot create the audit key {str(path)!r}: {exc}") from None
    try:
        os.write(fd, os.urandom(32).hex().encode() + b"\n")
    finally:
        os.close(fd)
    return _read(path)


def fingerprint(key: bytes) -> str:
    """A name for the key that reveals nothing of it (shown by verify, kept in the chain)."""
    return hashlib.sha256(b"arr-audit-key\0" + key).hexdigest()[:16]


def mac(key: bytes, row_hash: str) -> str:
    """``<key fingerprint>:<HMAC-SHA256 of the row's hash>`` (the fingerprint says which key
    a row claims, so a row of another key is told from a forged one under this key)."""
    digest = hmac.new(key, row_hash.encode("ascii"), hashlib.sha256).hexdigest()
    return f"{fingerprint(key)}:{digest}"


def authentic(key: bytes, row_hash: str, found: object) -> bool:
    return isinstance(found, str) and hmac.compare_digest(mac(key, row_hash), found)


def claimed_key(found: object) -> str:
    return found.split(":", 1)[0] if isinstance(found, str) and ":" in found else "?"


def sign(database: Path, row_hash: str) -> str:
    """The ``mac`` of a row appended to the store at ``database`` (the key made on first use;
    refused when it lies beside the store)."""
    check_location(database)
    key = load(create=True)
    assert key is not None
    return mac(key, row_hash)


def _mark(database: Path) -> Path:
    name = hashlib.sha256(str(Path(database).resolve()).encode()).hexdigest()[:32]
    return key_path().parent / "keyed" / name


def unmarked(database: Path) -> bool:
    """Whether no mark says yet where this store's keyed chain began (one stat)."""
    return not _mark(database).is_file()


def remember_keyed(database: Path, first_hash: str) -> None:
    """Record, outside the workspace, that this store's keyed chain began at ``first_hash``.
    Called after the row's commit: a rolled-back first row must leave no mark (verify would
    report a keyed chain that never was)."""
    mark = _mark(database)
    if not unmarked(database):
        return
    try:
        mark.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        mark.write_text(f"{first_hash}\n{Path(database).resolve()}\n", encoding="utf-8")
    except OSError:
        pass  # a read-only config folder: verify then trusts what the store shows


def remember_head(database: Path, seq: int, row_hash: str) -> None:
    """Record, outside the workspace, the last row this store's chain has reached (after the
    row's commit; only forward: a slower writer never moves it back). A store found behind it
    was rolled back to an older copy or lost its last rows; one with another row there was
    replaced."""
    head = _mark(database).with_suffix(".head")
    found = recorded_head(database)
    if found is not None and found[0] >= seq:
        return
    try:
        head.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        atomic_write.write_text(head, f"{seq} {row_hash}\n")
    except OSError:
        pass  # a read-only config folder: verify then trusts what the store shows


def recorded_head(database: Path) -> tuple[int, str] | None:
    """(sequence, hash) of the last row this store was seen to reach, if recorded."""
    try:
        seq, row_hash = _mark(database).with_suffix(".head").read_text("utf-8").split()[:2]
        return int(seq), row_hash
    except (OSError, ValueError):
        return None


def head_problems(
    database: Path, rows: list[dict], what: str, head: tuple[int, str] | None
) -> list[str]:
    """A store behind its recorded head (rolled back, its tail cut), or holding another row
    where the head was (replaced by another copy). ``head`` must be read *before* the rows:
    a writer records its head after its commit, so rows read later hold at least it (read
    after the rows, a concurrent append's head is ahead of what was read, a false alarm)."""
    if head is None:
        return []
    seq, row_hash = head
    last = rows[-1]["seq"] if rows else 0
    if last < seq:
        return [
            f"the {what} ends at row {last} but reached row {seq} (hash {row_hash[:16]}...): "
            "it was rolled back to an older copy, or its last rows were removed"
        ]
    there = next((r for r in rows if r["seq"] == seq), None)
    if there is not None and there.get("hash") != row_hash:
        return [
            f"row {seq} of the {what} is not the row it reached (hash {row_hash[:16]}...): "
            "the store was replaced by another copy"
        ]
    return []


def head_record_problems(database: Path, what: str, keyed_here: bool) -> list[str]:
    """The record of the head itself, judged where it lies: gone while the store's keyed chain
    began here (``keyed_here``: keyed rows, and the mark says so; every append writes the
    record, so a rollback could hide behind its deletion), or a link or a file of several
    names (it may name an older head) - the rollback check cannot then be trusted."""
    path = _mark(database).with_suffix(".head")
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        if keyed_here:  # the mark, read once by the caller
            return [
                f"the record of the row the {what} last reached ({path}) is gone: a rollback to "
                "an older copy cannot be ruled out (it is written with every append; a store "
                "keyed before ARR kept heads has none until its next append)"
            ]
        return []
    except OSError as exc:
        return [f"the record of the {what}'s head ({path}) cannot be read: {exc.strerror}"]
    if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
        return [
            f"the record of the {what}'s head ({path}) is a link or not a plain file: it may "
            "name an older head, so a rollback cannot be ruled out"
        ]
    return []


def keyed_since(database: Path) -> str | None:
    """The hash of the row that began this store's keyed chain, if it was ever keyed here."""
    try:
        return _mark(database).read_text(encoding="utf-8").split("\n", 1)[0].strip() or None
    except OSError:
        return None


def check_macs(
    database: Path, rows: list[dict], what: str, head: tuple[int, str] | None = None
) -> tuple[list[str], str]:
    """(problems, a one-line account) of the MACs of a chain's rows (dicts with ``seq``,
    ``hash`` and ``mac``), read-only: rows before the keyed chain began are covered by the
    chain alone (the first keyed row's hash vouches for them); after it, every row must carry
    the MAC of its hash under the key. ``head``: :func:`recorded_head`, read before the rows
    (None: the rows are not checked against a head)."""
    keyed = [r for r in rows if r.get("mac") is not None]
    since = keyed_since(database)
    problems: list[str] = head_problems(database, rows, what, head)
    problems += head_record_problems(database, what, bool(keyed) and since is not None)
    if since is not None and not any(r.get("hash") == since for r in keyed):
        problems.append(
            f"the {what} began a keyed chain here (at row hash {since[:16]}...) that is gone: "
            "its keyed rows were stripped, or the store was replaced"
        )
    if not keyed:
        return problems, f"not keyed yet: {len(rows)} rows prove order, not who appended them"
    first = keyed[0]["seq"]
    problems += [
        f"row {r['seq']}: no MAC after the keyed chain began at row {first} (appended "
        "without the key)"
        for r in rows
        if r["seq"] > first and r.get("mac") is None
    ]
    try:
        key = load(create=False)
        if key is not None:  # a key beside what it protects, or where a search reads it,
            check_location(database)  # authenticates nothing
    except AuditKeyError as exc:
        return [*problems, str(exc)], "the key could not be read or lies where others read it"
    if key is None:
        problems.append(
            f"rows {first}-{rows[-1]['seq']} carry MACs but there is no audit key at "
            f"{str(key_path())!r} (set {KEY_ENV}): who appended them cannot be checked"
        )
        return problems, "no key to authenticate with"
    mine = fingerprint(key)
    other = [r for r in keyed if claimed_key(r["mac"]) != mine]
    if other:
        problems.append(
            f"{len(other)} rows (rows {other[0]['seq']}-{other[-1]['seq']}) carry MACs of "
            f"another key ({claimed_key(other[0]['mac'])}; this key is {mine}): appended with "
            "a key that is not here, or forged; they cannot be authenticated"
        )
    forged = [
        r["seq"]
        for r in keyed
        if claimed_key(r["mac"]) == mine and not authentic(key, str(r.get("hash")), r["mac"])
    ]
    problems += [f"row {seq}: its MAC does not match (appended without the key)" for seq in forged]
    good = len(keyed) - len(forged) - len(other)
    before = f"; rows before {first} predate the keyed chain" if first > rows[0]["seq"] else ""
    return (
        problems,
        f"{good} of {len(keyed)} keyed rows authenticated (key {fingerprint(key)}){before}",
    )
