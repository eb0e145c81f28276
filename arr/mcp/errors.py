"""The MCP service's error contract: every refusal or bad input is one ``ServiceError`` with a
fixed code, sent as exactly ``{"error": {"code", "message"}}``; a value is echoed only short."""

from __future__ import annotations

import json
from typing import Any

from arr.codes import BAD_REQUEST

MAX_ECHO = 200


class ServiceError(Exception):
    """A refusal or bad input, with the fixed code the client sees."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message[:1000]

    def payload(self) -> str:
        return json.dumps({"error": {"code": self.code, "message": self.message}})


def echo(value: object) -> str:
    text = repr(value)
    return text if len(text) <= MAX_ECHO else text[:MAX_ECHO] + f"... ({len(text)} chars)"


def argument_error(tool: str, fields: list[str], unknown: list[str]) -> ServiceError:
    named = ", ".join(repr(f[:40]) for f in unknown[:5])
    return ServiceError(
        BAD_REQUEST,
        f"unknown argument{'s' if len(unknown) > 1 else ''} {named} for {tool}; "
        f"allowed: {', '.join(fields)}",
    )


def type_error(tool: str, fields: list[str], error: Any) -> ServiceError:
    """A pydantic ValidationError of the SDK -> which argument, what it must be (no echo)."""
    first = error.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ())) or "arguments"
    return ServiceError(
        BAD_REQUEST,
        f"argument {where[:60]!r} of {tool}: {str(first.get('msg', 'invalid'))[:200]}; "
        f"allowed: {', '.join(fields)}",
    )
