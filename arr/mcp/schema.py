"""The MCP tools' input schema as an agent reads it: every field described, ranges and
names enumerated. Bounds are checked by pydantic in the SDK (a wrong value is ``bad_request``
naming the field); channel names are listed but left to the Router, which refuses an unknown or
forbidden one with its own reason code (``tool_not_registered``, ``forbidden_identifier``), as
for every other caller."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

DEFAULT_TOP_K = 10
MAX_TOP_K = 100
SCOPE_NAME_TEXT = "a scope name as list_scopes returns it"
SCOPE_FIELD_TEXT = {
    "team_id": "the team that owns the work",
    "project_id": "the project",
    "repository": "the repository (a folder's name outside git)",
    "branch": "the branch (local outside git)",
    "experiment_environment": "where the experiments run (a cluster, local)",
}


def search_fields(channels: list[str]) -> dict[str, Any]:
    """The search tool's argument annotations: descriptions, bounds and enumerations."""

    def five_fields(schema: dict[str, Any]) -> None:
        for option in schema.get("anyOf", []):
            if option.get("type") == "object":
                option["properties"] = {
                    name: {"type": "string", "description": text}
                    for name, text in SCOPE_FIELD_TEXT.items()
                }
                option["required"] = list(SCOPE_FIELD_TEXT)
                option["additionalProperties"] = False

    def named_channels(schema: dict[str, Any]) -> None:
        for option in schema.get("anyOf", []):
            if option.get("type") == "array":
                option["items"] = {"type": "string", "enum": channels}

    scope_text = f"{SCOPE_NAME_TEXT}, or the scope's five fields (all of them)"
    return {
        "query": Annotated[
            str, Field(description="what to find: a question, words, a phrase, a path:line")
        ],
        "scope": Annotated[
            str | dict[str, str], Field(description=scope_text, json_schema_extra=five_fields)
        ],
        "tools": Annotated[
            list[str] | None,
            Field(
                description="the channels to search (default: the planner chooses)",
                json_schema_extra=named_channels,
            ),
        ],
        "top_k": Annotated[
            int | None,
            Field(
                description=f"how many evidence items to return (default {DEFAULT_TOP_K})",
                ge=1,
                le=MAX_TOP_K,
            ),
        ],
        "return": dict[str, Any],
    }
