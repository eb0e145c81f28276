"""A researcher's own workspace: ``.arr/workspace.yaml``, written by ``arr init`` and ``arr scope``.

The file is small, commented and human-editable::

    name: thesis
    defaults: {team_id: alice, project_id: thesis, experiment_environment: local}
    scopes:
      code:
        roots: [src]
        key: {team_id: alice, project_id: thesis, repository: thesis, branch: main,
              experiment_environment: local}

``arr scope add NAME PATH...`` fills the five ScopeKey fields: team_id, project_id and
experiment_environment from ``defaults``; repository and branch from the git metadata of the
first root (the repository folder's name and the checked-out branch; ``detached-<sha>`` for a
detached HEAD; ``<repository>/<scope>`` when another scope already has that repository and
branch), or the scope's name and ``local`` when the root is not in a git repository.
Any field can be given explicitly (``branch=dev``). The key is written in full, so a later
branch switch never silently moves a scope. Every change is validated as a whole before the
file is replaced atomically: a refused change writes nothing.
"""

from __future__ import annotations

import getpass
import os
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from arr import atomic_write
from arr.errors import WorkspaceError
from arr.models import SCOPE_FIELDS, ScopeKey
from arr.workspace.locations import (
    WORKSPACE_DIRNAME,
    enclosing_workspace,
    workspace_config,
)
from arr.workspace.roots import check_root_text, trusted_root

_SCOPE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
HEADER = """\
# ARR workspace ({name}). Created by `arr init`; `arr scope add|remove` rewrite this file
# (keeping this header). Every arr command run in this folder or below uses it.
#   name      a label for reports
#   defaults  ScopeKey fields that `arr scope add` uses when not given explicitly
#   default_scope  the scope a search uses when none is named (the first one added)
#   scopes    NAME -> roots (folders, relative to this workspace or absolute) and the full
#             five-field ScopeKey every indexed item and every request of that scope carries
# Derived indexes live in .arr/index (rebuildable: `arr index rebuild=true`), run folders in
# .arr/outputs; .arr/state holds the memory store and approvals ledger: state, never deleted.
"""


class ScopeDefaults(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    team_id: str = "me"
    project_id: str = "project"
    experiment_environment: str = "local"


class ScopeEntry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    roots: list[str] = Field(min_length=1)
    key: ScopeKey


class WorkspaceFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=100)
    defaults: ScopeDefaults = ScopeDefaults()
    chunk_lines: int = Field(default=40, ge=1, le=10_000)
    max_file_bytes: int = Field(default=2_000_000, ge=1)
    # the scope a command uses when none is named (the first one added; the only one anyway)
    default_scope: str | None = None
    scopes: dict[str, ScopeEntry] = {}

    def scope_by_default(self) -> str | None:
        if len(self.scopes) == 1:
            return next(iter(self.scopes))
        return self.default_scope if self.default_scope in self.scopes else None


def _describe(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "<top>"
    if first["type"] == "extra_forbidden":
        return f"unknown key {where!r}"
    return f"{where}: {first['msg']}"


def read_file(folder: Path) -> WorkspaceFile:
    import yaml

    path = workspace_config(folder)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise WorkspaceError(f"{path}: cannot read ({exc.strerror})") from None
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise WorkspaceError(f"{path}: not valid YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(raw, dict):
        raise WorkspaceError(f"{path}: must be a mapping with name, defaults and scopes")
    try:
        parsed = WorkspaceFile.model_validate(raw)
    except ValidationError as exc:
        raise WorkspaceError(f"{path}: {_describe(exc)}") from None
    check_scopes(folder, parsed)
    return parsed


def root_path(folder: Path, root: str) -> Path:
    path = Path(root).expanduser()
    return path if path.is_absolute() else folder / path


def check_root(folder: Path, root: str, where: str) -> None:
    """A root being added must exist and pass the rules every later command applies
    (:func:`arr.workspace.roots.trusted_root`): what they would refuse is refused now, before it
    is written."""
    check_root_text(root, f"{where}: root")
    path = root_path(folder, root)
    if not path.is_dir():
        raise WorkspaceError(f"{where}: root {str(path)!r} does not exist or is not a directory")
    state = folder / WORKSPACE_DIRNAME
    trusted_root(path, state / "index", state / "state", f"{where}: root")


def check_scopes(folder: Path, parsed: WorkspaceFile) -> None:
    """The file's own rules (names, root paths as text). Whether each root still exists is
    not asked here: a deleted root degrades its own scope at search time and never stops
    another scope, ``arr scope list`` or ``arr scope remove``."""
    path = workspace_config(folder)
    for name, entry in parsed.scopes.items():
        if not _SCOPE_NAME.match(name):
            raise WorkspaceError(
                f"{path}: scope name {name[:80]!r} must be 1-64 letters, digits, '.', '_' or '-'"
            )
        for root in entry.roots:
            check_root_text(root, f"{path}: scope {name!r}: root")
    if parsed.default_scope is not None and parsed.default_scope not in parsed.scopes:
        raise WorkspaceError(
            f"{path}: default_scope {parsed.default_scope[:80]!r} names no scope; "
            f"scopes: {sorted(parsed.scopes)}"
        )


def render(parsed: WorkspaceFile) -> str:
    import yaml

    body = parsed.model_dump(mode="json", exclude_none=True)
    return HEADER.format(name=parsed.name) + yaml.safe_dump(
        body, sort_keys=False, default_flow_style=None, width=100, allow_unicode=True
    )


def write_file(folder: Path, parsed: WorkspaceFile) -> Path:
    """Validate, then replace the file atomically (a refused change leaves it as it was)."""
    check_scopes(folder, parsed)
    path = workspace_config(folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write.write_text(path, render(parsed))  # no temporary file left on a full disk
    return path


def init_workspace(folder: Path, values: dict[str, str]) -> Path:
    """Create ``.arr/workspace.yaml`` in ``folder``; refuses to nest or to overwrite."""
    folder = folder.resolve()
    if not folder.is_dir():
        raise WorkspaceError(f"{str(folder)!r} is not a directory")
    existing = workspace_config(folder)
    if existing.is_file():
        raise WorkspaceError(f"{existing} already exists; this folder is already a workspace")
    outer = enclosing_workspace(folder)
    if outer is not None:
        raise WorkspaceError(
            f"{str(folder)!r} is inside workspace {str(outer)!r} ({workspace_config(outer)}); "
            "workspaces may not nest: add a scope there instead (arr scope add)"
        )
    inner = _inner_workspace(folder)
    if inner is not None:
        raise WorkspaceError(
            f"{str(folder)!r} contains workspace {str(inner)!r}; workspaces may not nest"
        )
    unknown = sorted(set(values) - {"name", *ScopeDefaults.model_fields})
    if unknown:
        raise WorkspaceError(
            f"arr init: unknown option {unknown[0]!r}; valid: name, "
            + ", ".join(ScopeDefaults.model_fields)
        )
    defaults = {
        "team_id": _safe_user(),
        "project_id": folder.name or "project",
        "experiment_environment": "local",
    }
    defaults.update({k: v for k, v in values.items() if k in ScopeDefaults.model_fields})
    try:
        for field, value in defaults.items():
            _probe_field(field, value)  # the same rules as a ScopeKey field
        parsed = WorkspaceFile(
            name=values.get("name") or folder.name or "workspace",
            defaults=ScopeDefaults(**defaults),
        )
    except ValidationError as exc:
        raise WorkspaceError(f"arr init: {_describe(exc)}") from None
    path = write_file(folder, parsed)
    (folder / WORKSPACE_DIRNAME / ".gitignore").write_text(
        "# derived indexes and run folders; state/ (memory store, approvals) is yours to keep\n"
        "index/\noutputs/\n",
        encoding="utf-8",
    )
    return path


def _probe_field(field: str, value: str) -> None:
    probe = {f: "x" for f in SCOPE_FIELDS}
    probe[field] = value
    ScopeKey.model_validate(probe)


def _inner_workspace(folder: Path, max_entries: int = 20_000) -> Path | None:
    """A workspace below ``folder`` (bounded walk; hidden and huge trees are not searched)."""
    for seen, (dirpath, dirnames, _) in enumerate(os.walk(folder)):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "node_modules"]
        if seen > max_entries:
            return None
        if Path(dirpath) != folder and workspace_config(Path(dirpath)).is_file():
            return Path(dirpath)
    return None


def _safe_user() -> str:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = ""
    return user if user and user.strip() == user and user.isprintable() else "me"


def git_metadata(path: Path) -> tuple[str, str] | None:
    """(repository name, branch) of the git work tree holding ``path``, read from .git."""
    current = path.resolve()
    for folder in (current, *current.parents):
        dot_git = folder / ".git"
        try:
            if dot_git.is_file():  # a linked worktree or submodule: "gitdir: <path>"
                text = dot_git.read_text(encoding="utf-8").strip()
                git_dir = root_path(folder, text.removeprefix("gitdir:").strip())
            elif dot_git.is_dir():
                git_dir = dot_git
            else:
                continue
            head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return None
        if head.startswith("ref: refs/heads/"):
            branch = head.removeprefix("ref: refs/heads/")
        else:
            branch = f"detached-{head[:7]}"
        return folder.name, branch
    return None


def add_scope(folder: Path, name: str, roots: list[str], fields: dict[str, str]) -> ScopeEntry:
    """Add scope ``name`` with ``roots`` (paths as typed, relative to the cwd or absolute)."""
    parsed = read_file(folder)
    path = workspace_config(folder)
    if name in parsed.scopes:
        raise WorkspaceError(
            f"{path}: scope {name!r} already exists (roots {parsed.scopes[name].roots}); "
            "remove it first with arr scope remove"
        )
    if not _SCOPE_NAME.match(name):
        raise WorkspaceError(
            f"scope name {name[:80]!r} must be 1-64 letters, digits, '.', '_' or '-'"
        )
    if not roots:
        raise WorkspaceError(f"scope {name!r} needs at least one root: arr scope add NAME PATH")
    unknown = sorted(set(fields) - set(SCOPE_FIELDS))
    if unknown:
        raise WorkspaceError(
            f"arr scope add: unknown field {unknown[0]!r}; valid: {', '.join(SCOPE_FIELDS)}"
        )
    stored = []
    for root in roots:
        # as typed: '..' is refused, not resolved
        check_root_text(root, f"arr scope add {name}: root")
        absolute = Path(root).expanduser().resolve()
        check_root(folder, str(absolute), f"arr scope add {name}")
        try:
            stored.append(absolute.relative_to(folder).as_posix() or ".")
        except ValueError:
            stored.append(str(absolute))
    git = git_metadata(root_path(folder, stored[0]))
    # Outside git the scope's own name is its repository: distinct by construction, so a
    # second scope never collides with the first. Two scopes of one git repository and branch
    # get "<repository>/<scope>" unless a field was given explicitly.
    key_values: dict[str, Any] = {
        **parsed.defaults.model_dump(),
        "repository": git[0] if git else name,
        "branch": git[1] if git else "local",
        **fields,
    }
    entry = _entry(name, stored, key_values)
    if git and not {"repository", "branch"} & set(fields) and _clash(parsed, entry):
        entry = _entry(name, stored, key_values | {"repository": f"{git[0]}/{name}"})
    clash = _clash(parsed, entry)
    if clash is not None:
        raise WorkspaceError(
            f"{path}: scope {name!r} would have the same ScopeKey as scope {clash!r} "
            f"({entry.key.label()}); give a field explicitly, e.g. branch=<other>"
        )
    update: dict[str, Any] = {"scopes": {**parsed.scopes, name: entry}}
    if parsed.default_scope is None:  # the first scope added stays the default
        update["default_scope"] = next(iter(parsed.scopes), name)
    write_file(folder, parsed.model_copy(update=update))
    return entry


def _entry(name: str, roots: list[str], key_values: dict[str, Any]) -> ScopeEntry:
    try:
        return ScopeEntry(roots=roots, key=ScopeKey.model_validate(key_values))
    except ValidationError as exc:
        raise WorkspaceError(f"arr scope add {name}: {_describe(exc)}") from None


def _clash(parsed: WorkspaceFile, entry: ScopeEntry) -> str | None:
    return next((n for n, e in parsed.scopes.items() if e.key == entry.key), None)


def remove_scope(folder: Path, name: str) -> None:
    parsed = read_file(folder)
    if name not in parsed.scopes:
        raise WorkspaceError(
            f"{workspace_config(folder)}: no scope {name[:80]!r}; scopes: {sorted(parsed.scopes)}"
        )
    scopes = {n: e for n, e in parsed.scopes.items() if n != name}
    default = None if parsed.default_scope == name else parsed.default_scope
    write_file(folder, parsed.model_copy(update={"scopes": scopes, "default_scope": default}))


def require_workspace(found: Path | None) -> Path:
    """The workspace ``resolve_workspace`` found, or a one-line error when there is none."""
    if found is None:
        raise WorkspaceError(
            f"no ARR workspace in {str(Path.cwd())!r} or above; create one with arr init"
        )
    return found
