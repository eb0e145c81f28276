"""``arr memory``: list, show, add, publish, retract, export and import research memories, one
function per action."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from arr.cli.output import as_json, emit
from arr.compose.runner import build_workspace
from arr.errors import ConfigError, MemoryStoreError
from arr.memory.store import ResearchMemoryStore
from arr.models import ResearchMemory, resolve_scope
from arr.workspace.workspace import Workspace


def parse_tags(text: str) -> tuple[str, ...]:
    """``a,b``, ``[a,b]`` and ``[a, 'b']`` all mean the two tags a and b."""
    inner = text.strip()
    if inner.startswith("[") and inner.endswith("]"):
        inner = inner[1:-1]
    return tuple(t.strip().strip("'\"").strip() for t in inner.split(",") if t.strip(" '\""))


def _existing_store(workspace: Workspace) -> ResearchMemoryStore:
    if not workspace.memory_db.is_file():
        raise MemoryStoreError(
            f"memory database {str(workspace.memory_db)!r} does not exist;"
            " run arr index or arr memory add first"
        )
    return ResearchMemoryStore(workspace.memory_db)


def run_memory(
    container: dict[str, Any], texts: dict[str, str], action: str | None, run_dir: Path
) -> int:
    workspace = build_workspace(container)
    if action == "list":
        return _list(container, workspace)
    if action in ("export", "import"):
        return _transfer(container, texts, workspace, action)
    if "id" not in texts:
        raise ConfigError(f"memory {action} needs id=<memory id>")
    if action == "show":
        return _show(texts["id"], workspace)
    store = ResearchMemoryStore(workspace.memory_db)
    actor = str(container.get("actor") or "cli")
    if action == "add":
        memory = _add(container, texts, workspace, store, actor)
    else:
        memory = store.transition(texts["id"], str(action), actor=actor)
    assert memory is not None
    if as_json(container):
        emit(memory.model_dump(mode="json"))
    else:
        print(f"{memory.id}: {memory.status} (version {memory.version})")
    return 0


def _list(container: dict[str, Any], workspace: Workspace) -> int:
    from arr.memory.shown import shown_memory

    scope = container.get("scope")
    store = _existing_store(workspace)
    status = container.get("status")
    if status not in (None, "draft", "published", "retracted"):
        raise ConfigError(f"status must be draft, published or retracted, got {status!r}")
    named = workspace.named_scopes()
    listed = store.list(resolve_scope(scope, named) if scope else None, status)
    memories = [shown_memory(m) for m in listed]
    if as_json(container):
        emit({"memories": [m.model_dump(mode="json") for m in memories]})
        return 0
    for memory in memories:
        print(
            f"{memory.id:<20} {memory.status:<10} v{memory.version}  "
            f"{memory.scope.label():<60} {memory.title}"
        )
    print(f"{len(memories)} memories")
    return 0


def _transfer(
    container: dict[str, Any], texts: dict[str, str], workspace: Workspace, action: str
) -> int:
    if not texts.get("file"):
        raise ConfigError(f"memory {action} needs file=<path.jsonl>")
    from arr.memory.transfer import export_memories, import_memories

    target = Path(texts["file"]).expanduser()
    if action == "export":
        count = export_memories(_existing_store(workspace), target)
        if as_json(container):
            emit({"exported": count, "file": str(target)})
        else:
            print(f"exported {count} memories to {target}")
        return 0
    actor = str(container.get("actor") or "cli")
    store = ResearchMemoryStore(workspace.memory_db)
    added, kept = import_memories(store, target, actor=actor)
    if as_json(container):
        emit({"imported": added, "kept": kept, "memory_db": str(workspace.memory_db)})
    else:
        print(f"imported {added} memories into {workspace.memory_db} ({kept} already present)")
    return 0


def _show(memory_id: str, workspace: Workspace) -> int:
    from arr.cli.terminal import json_for_terminal
    from arr.memory.shown import shown_memory

    found = _existing_store(workspace).get(memory_id)
    if found is None:
        raise MemoryStoreError(f"no memory with id {memory_id[:200]!r}")
    shown = json.dumps(shown_memory(found).model_dump(mode="json"), indent=2, ensure_ascii=False)
    print(json_for_terminal(shown))  # parseable JSON that a terminal shows inertly
    return 0


def _add(
    container: dict[str, Any],
    texts: dict[str, str],
    workspace: Workspace,
    store: ResearchMemoryStore,
    actor: str,
) -> ResearchMemory:
    missing = [k for k in ("title", "body") if not texts.get(k)]
    if missing or not container.get("scope"):
        raise ConfigError(
            "memory add needs id=, scope=, title= and body= "
            f"(missing: {', '.join(missing + ([] if container.get('scope') else ['scope']))})"
        )
    if container.get("status") is not None:
        raise ConfigError(
            "memory add takes no status= (a memory starts as a draft; "
            "then arr memory publish id=...)"
        )
    try:
        return store.add_draft(
            texts["id"],
            resolve_scope(container["scope"], workspace.named_scopes()),
            texts["title"],
            texts["body"],
            parse_tags(texts.get("tags", "")),
            "cli",
            actor=actor,
        )
    except ValidationError as exc:  # pydantic validation of id/title/body: name the field
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "memory"
        raise MemoryStoreError(f"invalid memory field {field!r}: {first['msg']}") from None
    except ValueError as exc:
        raise MemoryStoreError(f"invalid memory: {str(exc).splitlines()[0]}") from None
