"""The runner: the one place that instantiates stages from a composed config.

It refuses any ``_target_`` outside ``arr.`` (so a config file cannot make ARR import and run
arbitrary code), injects each tool's name from its YAML key, and turns Hydra's instantiation
errors into one-line ConfigErrors that name the offending option.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterator
from typing import Any

from arr.compose.demo_index import index_demo_once
from arr.errors import ArrError, ConfigError
from arr.router.router import RetrievalRouter
from arr.workspace.workspace import Workspace

ALLOWED_TARGET_PREFIX = "arr."


def _targets(node: Any, path: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(node, dict):
        for key, value in node.items():
            where = f"{path}.{key}" if path else str(key)
            if key == "_target_":
                yield path or "<root>", str(value)
            else:
                yield from _targets(value, where)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _targets(value, f"{path}[{index}]")


def check_targets(container: dict[str, Any]) -> None:
    """Every ``_target_`` must live in the arr package."""
    for where, target in _targets(container):
        if not target.startswith(ALLOWED_TARGET_PREFIX):
            raise ConfigError(
                f"{where}._target_ = {target!r} is outside the arr package; "
                f"only '{ALLOWED_TARGET_PREFIX}*' targets may be instantiated"
            )


def _import_target(target: str) -> Any:
    """``arr.module.Class`` or ``arr.module.Class.factory`` -> the callable."""
    parts = target.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            found: Any = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        try:
            for attribute in parts[cut:]:
                found = getattr(found, attribute)
        except AttributeError:
            break
        return found
    raise ConfigError(f"cannot import {target!r}: no such module or attribute in arr")


def _build(node: Any) -> Any:
    """Depth-first: nested ``_target_`` nodes are built before the node that takes them."""
    if isinstance(node, dict):
        if "_target_" in node:
            target = _import_target(str(node["_target_"]))
            return target(**{k: _build(v) for k, v in node.items() if k != "_target_"})
        return {k: _build(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_build(v) for v in node]
    return node


# A parameter's annotation (a string: the modules use postponed annotations) -> what a value
# of it is called in an error, and an example when the parameter has no default to show.
_PLAIN_KINDS = {
    "int": ("a whole number", 10),
    "float": ("a number", 0.5),
    "bool": ("true or false", "true"),
}


def _kind(annotation: object) -> str | None:
    """``int``, ``float`` or ``bool`` when a parameter takes that (or None as well), else None."""
    name = annotation.__name__ if isinstance(annotation, type) else str(annotation)
    name = name.replace(" ", "").removesuffix("|None").removeprefix("Optional[").rstrip("]")
    return name if name in _PLAIN_KINDS else None


def check_values(target: Any, node: dict[str, Any], label: str) -> None:
    """A text where a parameter takes a number or a flag (``router.deadline_ms=abc``) is a
    ConfigError naming the option and its form, before the constructor compares it with a
    number (``'<' not supported between instances of 'str' and 'int'``)."""
    try:
        parameters = inspect.signature(target).parameters
    except (TypeError, ValueError):
        return
    for key, value in node.items():
        parameter = parameters.get(key)
        kind = _kind(parameter.annotation) if parameter is not None else None
        if kind is None or value is None:
            continue
        wrong = isinstance(value, str) or (kind != "bool" and isinstance(value, bool))
        wrong = wrong or (kind == "bool" and not isinstance(value, bool))
        if not wrong:
            continue
        words, example = _PLAIN_KINDS[kind]
        default = parameter.default  # type: ignore[union-attr]
        if default is not inspect.Parameter.empty and default is not None:
            example = str(default).lower() if isinstance(default, bool) else default
        nullable = "None" in str(parameter.annotation)  # type: ignore[union-attr]
        raise ConfigError(
            f"{label}.{key}={str(value)[:60]!r} is not {words}; write it as "
            f"{label}.{key}={example}" + (f" (or {label}.{key}=null)" if nullable else "")
        )


def instantiate_stage(node: dict[str, Any], label: str, **kwargs: Any) -> Any:
    """Build one stage from its (resolved, plain) config node. A small instantiate of our own
    instead of Hydra's: the node is already resolved, and a search that never imports Hydra
    starts in half the time. ``_target_`` must be in arr (checked first, recursively)."""
    if not isinstance(node, dict) or "_target_" not in node:
        raise ConfigError(
            f"config group {label!r} has no _target_; pick an option, e.g. {label}=<name>"
        )
    check_targets(node)
    try:
        target = _import_target(str(node["_target_"]))
        check_values(target, node, label)
        arguments = {k: _build(v) for k, v in node.items() if k != "_target_"}
        return target(**arguments, **kwargs)
    except ArrError:
        raise
    except Exception as exc:  # a constructor refused a value: name the option
        # the first line that says something (numpy's import error starts with blank lines)
        detail = next((line.strip() for line in str(exc).splitlines() if line.strip()), "")
        detail = detail or type(exc).__name__
        raise ConfigError(f"cannot build {label} ({node['_target_']}): {detail}") from None


def config_container(cfg: Any) -> dict[str, Any]:
    """A resolved plain-dict copy of an OmegaConf config (hydra node removed)."""
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    try:
        container = OmegaConf.to_container(cfg, resolve=True, throw_on_missing=True)
    except OmegaConfBaseException as exc:
        raise ConfigError(f"config cannot be resolved: {str(exc).splitlines()[0]}") from None
    assert isinstance(container, dict)
    container.pop("hydra", None)
    return container


def build_workspace(container: dict[str, Any]) -> Workspace:
    workspace = instantiate_stage(container.get("workspace"), "workspace")
    if not isinstance(workspace, Workspace):
        raise ConfigError("workspace._target_ must build an arr.workspace.workspace.Workspace")
    workspace.check()
    return workspace


def build_tools(container: dict[str, Any], workspace: Workspace) -> dict[str, Any]:
    tools_cfg = container.get("tools") or {}
    if not isinstance(tools_cfg, dict):
        raise ConfigError("tools must be a mapping of tool name -> tool config")
    return {
        name: instantiate_stage(node, f"tools.{name}", name=name, workspace=workspace)
        for name, node in sorted(tools_cfg.items())
    }


def _accepts(node: Any, parameter: str) -> bool:
    """Whether the class a config node targets takes ``parameter`` (checked before building)."""
    if not isinstance(node, dict) or "_target_" not in node:
        return False
    check_targets(node)
    module_name, _, attribute = str(node["_target_"]).rpartition(".")
    try:
        target = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"cannot import {node['_target_']!r}: {exc}") from None
    return parameter in inspect.signature(target).parameters


def build_router(container: dict[str, Any]) -> RetrievalRouter:
    """Workspace, tools, planner, fusion, reranker -> a RetrievalRouter (not yet warm).

    An LLM client is built only when a stage asks for one (``client`` parameter), and then
    once: planner and reranker share it, and so share its call budget.
    """
    check_targets(container)
    workspace = build_workspace(container)
    tools = build_tools(container, workspace)
    index_demo_once(container, workspace, tools)  # the bundled demo answers on first use
    shared: dict[str, Any] = {}

    def stage(group: str) -> Any:
        node = container.get(group)
        if _accepts(node, "client"):
            if "client" not in shared:
                shared["client"] = instantiate_stage(container.get("llm"), "llm")
            return instantiate_stage(node, group, client=shared["client"])
        return instantiate_stage(node, group)

    router = instantiate_stage(
        container.get("router"),
        "router",
        tools=tools,
        planner=stage("planner"),
        fusion=stage("fusion"),
        reranker=stage("reranker"),
        scopes=workspace.named_scopes(),
        **({"ordering": stage("ordering")} if container.get("ordering") else {}),
    )
    if not isinstance(router, RetrievalRouter):
        raise ConfigError("router._target_ must build an arr.router.router.RetrievalRouter")
    return router
