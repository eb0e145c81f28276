"""A ``+key=value`` override that adds a key nothing reads, refused before anything composes
(the CLI asks this before the compose cache or a running server could answer: a light module,
no Hydra, no router)."""

from __future__ import annotations

from arr.errors import ConfigError
from arr.workspace.locations import config_groups


def refuse_added_keys(overrides: list[str]) -> None:
    """A ``+key=value`` (or ``++``) override adds a key that no part of arr reads: Hydra
    accepts it and the run silently ignores it (``+top_k=3``). Every key arr reads is in its
    config already, so such an addition is refused, naming the plain override; adding a config
    group (``+tools=...``) or a Hydra setting (``+hydra.job...``) stays allowed."""
    groups = config_groups()
    for override in overrides:
        if not override.startswith("+") or "=" not in override:
            continue
        key = override.lstrip("+").split("=", 1)[0].strip()
        head = key.split(".", 1)[0].split("@", 1)[0]
        if head in groups or head == "hydra":
            continue
        raise ConfigError(
            f"{override.split('=', 1)[0][:80]!r} adds a key arr does not read (it would be "
            f"ignored); to set an existing option write {key[:80]}=..., and see "
            "arr <command> --cfg job for every option"
        )
