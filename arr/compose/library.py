"""Library mode and config composition (Hydra's compose API; no run folder is written).

``load_router(workspace=PATH, overrides=[...])`` composes ``arr/conf/<config_name>.yaml`` with
the same overrides the CLI accepts and returns a RetrievalRouter ready to
``search(query, scope)``. Without ``workspace`` the workspace is found as the CLI finds it
($ARR_WORKSPACE, then the current directory upward); with none found, the bundled demo (in a
source checkout) is used.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from arr.compose.added_keys import refuse_added_keys
from arr.compose.runner import build_router, config_container
from arr.errors import ConfigError
from arr.router.router import RetrievalRouter
from arr.workspace.locations import (
    CONF_DIR,
    PIPELINES_DIR,
    checkout_root,
    config_groups,
    resolve_workspace,
    workspace_overrides,
)

# The source checkout when arr runs from one; otherwise the current directory (benchmarks and
# the scenario replay read data/ from here).
PROJECT_ROOT = checkout_root() or Path.cwd()

__all__ = [
    "CONF_DIR",
    "PIPELINES_DIR",
    "PROJECT_ROOT",
    "compose",
    "load_router",
    "refuse_added_keys",
]


def register_resolvers() -> None:
    from omegaconf import OmegaConf

    if not OmegaConf.has_resolver("arr.root"):
        OmegaConf.register_new_resolver("arr.root", lambda: str(PROJECT_ROOT))
    if not OmegaConf.has_resolver("arr.basename"):
        OmegaConf.register_new_resolver("arr.basename", lambda p: Path(str(p)).resolve().name)
    if not OmegaConf.has_resolver("arr.collection_id"):
        OmegaConf.register_new_resolver("arr.collection_id", collection_id)


def collection_id(path: object) -> str:
    """``<folder name>-<8 hex of the absolute path>``: stable, distinct per collection."""
    import hashlib
    import re

    resolved = Path(str(path)).expanduser().resolve()
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", resolved.name)[:40] or "collection"
    return f"{slug}-{hashlib.sha256(str(resolved).encode()).hexdigest()[:8]}"


def searchpath_override() -> str:
    return f"hydra.searchpath=[file://{PIPELINES_DIR}]"


def hydra_message(exc: BaseException) -> str:
    """Hydra's message in one line, keeping its helpful second line (available options, the
    ``+key=value`` hint) and dropping the stack-like rest."""
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    helpful = []
    for index, line in enumerate(lines[1:4], 1):
        if line.startswith("Available options"):
            options = [o for o in lines[index + 1 : index + 40] if " " not in o]
            helpful.append(f"{line} {', '.join(options)}")
            break
        # (Hydra's "To append to your config use +key=value" is dropped: arr refuses a key
        # that nothing reads, see refuse_added_keys)
        if line.startswith(("Did you mean", "Key '")):
            helpful.append(line)
        elif line.startswith("To append") and lines[0].startswith("Could not override"):
            helpful.append("arr has no such option (arr <command> --cfg job lists them).")
    return " ".join([lines[0], *helpful])[:2000]


_UNKNOWN_KEY = re.compile(r"Could not override '([^']+)'|Key '([^']+)' (?:is not in struct|not in)")


def _flat_keys(node: Any, prefix: str = "", depth: int = 3) -> list[str]:
    from omegaconf import DictConfig

    keys = []
    if isinstance(node, DictConfig) and depth:
        for key in node:
            name = f"{prefix}{key}"
            keys.append(name)
            try:
                child = node._get_node(key)
            except Exception:  # interpolations that cannot resolve here: the key still counts
                continue
            keys += _flat_keys(child, f"{name}.", depth - 1)
    return keys


def did_you_mean(message: str, config_name: str, overrides: list[str]) -> str:
    """`` Did you mean 'fusion.norm'?`` for a mistyped key in Hydra's message, else ""."""
    import difflib

    found = _UNKNOWN_KEY.search(message)
    key = next((g for g in found.groups() if g), None) if found else None
    if not key:
        return ""
    try:
        kept = [o for o in overrides if not o.lstrip("+~").startswith(key)]
        base = compose(config_name, kept, resolved=True)
    except ConfigError:
        return ""
    close = difflib.get_close_matches(
        key, [*_flat_keys(base), *sorted(config_groups())], n=1, cutoff=0.75
    )
    return f" Did you mean '{close[0]}'?" if close and close[0] != key else ""


def full_overrides(
    overrides: list[str] | None, workspace: str | os.PathLike[str] | None
) -> list[str]:
    given = list(overrides or [])
    return [*given, *workspace_overrides(resolve_workspace(workspace), given)]


def compose(
    config_name: str = "search",
    overrides: list[str] | None = None,
    workspace: str | os.PathLike[str] | None = None,
    resolved: bool = False,
) -> Any:
    """Compose a config exactly as the CLI would; Hydra errors become one-line ConfigErrors.

    ``resolved=True`` means ``overrides`` already carry the workspace overrides."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from hydra.errors import HydraException, OverrideParseException
    from omegaconf.errors import OmegaConfBaseException

    if not CONF_DIR.is_dir():
        raise ConfigError(f"config folder {str(CONF_DIR)!r} is missing; reinstall arr")
    register_resolvers()
    refuse_added_keys(list(overrides or []))
    everything = list(overrides or []) if resolved else full_overrides(overrides, workspace)
    try:
        with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
            return hydra_compose(
                config_name=config_name, overrides=[*everything, searchpath_override()]
            )
    except OverrideParseException as exc:
        raise ConfigError(unreadable_override(everything) or hydra_message(exc)) from None
    except (HydraException, OmegaConfBaseException, ValueError) as exc:
        message = hydra_message(exc)
        raise ConfigError(message + did_you_mean(message, config_name, everything)) from None


OVERRIDE_FORM = (
    "an override is key=value (top_k=5), a list key=[a,b], a value with spaces or "
    "brackets quoted (key='a b')"
)


def unreadable_override(overrides: list[str]) -> str | None:
    """The one line for the first override Hydra's grammar cannot read: the token and the
    right form, instead of ``LexerNoViableAltException: -n2``; None when each reads alone."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import OverrideParseException

    parser = OverridesParser.create()
    for override in overrides:
        try:
            parser.parse_overrides([override])
        except OverrideParseException as exc:
            token = repr(override[:80])
            if override.startswith("-"):
                return f"unknown option {token} (arr <command> --help lists them); {OVERRIDE_FORM}"
            if "=" not in override:
                return f"{token} is not an override: {OVERRIDE_FORM}"
            detail = next((line for line in str(exc).splitlines() if line.strip()), "")
            return f"cannot read the override {token} ({detail.strip()[:120]}): {OVERRIDE_FORM}"
    return None


def checked_overrides(overrides: object) -> list[str]:
    """Overrides as a list of str (a str alone, bytes or a number is a ConfigError naming it,
    never an AttributeError from inside Hydra)."""
    if overrides is None:
        return []
    if isinstance(overrides, (str, bytes)) or not isinstance(overrides, (list, tuple)):
        raise ConfigError(
            f"overrides must be a list of 'key=value' strings, got {type(overrides).__name__}"
        )
    for index, item in enumerate(overrides):
        if not isinstance(item, str):
            raise ConfigError(
                f"overrides[{index}] must be a 'key=value' string, got {type(item).__name__}"
            )
    return list(overrides)


def load_router(
    overrides: list[str] | None = None,
    config_name: str = "search",
    warm: bool = True,
    workspace: str | os.PathLike[str] | None = None,
) -> RetrievalRouter:
    # Library mode is quiet unless asked (progress=true): no progress bars (embedding, model
    # loading) and no third-party chatter on the caller's stderr.
    overrides = checked_overrides(overrides)
    if not isinstance(config_name, str) or not isinstance(warm, bool):
        raise ConfigError("config_name must be a str and warm a bool")
    if workspace is not None and not isinstance(workspace, (str, os.PathLike)):
        raise ConfigError(f"workspace must be a path, got {type(workspace).__name__}")
    if not any(o.lstrip("+~").split("=", 1)[0] == "progress" for o in overrides):
        overrides.append("progress=false")
    if "workspace=demo" in overrides:  # the bundled demo in its own folder, from a wheel too
        from arr.workspace.demo_home import with_demo_paths

        overrides = with_demo_paths(overrides)
    for name, value in (
        ("HF_HUB_OFFLINE", "1"),
        ("TRANSFORMERS_OFFLINE", "1"),
        ("TRANSFORMERS_VERBOSITY", "error"),
        ("HF_HUB_DISABLE_PROGRESS_BARS", "1"),
    ):
        os.environ.setdefault(name, value)
    router = build_router(config_container(compose(config_name, overrides, workspace)))
    if warm:  # a router kept for many searches: its trees are watched, not walked each time
        router.warm_up()
        router.watch_changes()
    return router
