"""How a command prints: text for people or one JSON object (``output=json``, ``--json``)."""

from __future__ import annotations

import json
from typing import Any

from arr.errors import ConfigError


def as_json(container: dict[str, Any]) -> bool:
    output = container.get("output", "text")
    if output not in ("text", "json"):
        raise ConfigError(f"output must be 'text' or 'json', got {output!r}")
    return output == "json"


def emit(payload: Any) -> None:
    print(json.dumps(payload, indent=2, ensure_ascii=False, default=str))
