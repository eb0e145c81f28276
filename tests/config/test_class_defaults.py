"""A class's defaults are its YAML's: building a stage in code (library mode, tests) gives what
the config gives, so a value measured with the config is the value a caller gets."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path
from typing import Any

import yaml

CONF = Path(__file__).resolve().parents[2] / "conf"
# Options that are a second setting of a class whose defaults another option holds (a local
# llama.cpp endpoint beside the packaged one), and values that name one endpoint's host.
VARIANTS = {"llm/local.yaml"}
PER_ENDPOINT = {"allowed_hosts"}


def _callable(target: str) -> Any:
    module, _, name = target.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name)
    except ModuleNotFoundError:  # Class.method
        outer, _, cls = module.rpartition(".")
        return getattr(getattr(importlib.import_module(outer), cls), name)


def _targets(node: Any) -> list[dict[str, Any]]:
    if isinstance(node, dict):
        found = [node] if "_target_" in node else []
        return found + [t for value in node.values() for t in _targets(value)]
    if isinstance(node, list):
        return [t for value in node for t in _targets(value)]
    return []


def mismatches() -> list[str]:
    out = []
    for path in sorted(CONF.rglob("*.yaml")):
        option = str(path.relative_to(CONF))
        if option in VARIANTS:
            continue
        for node in _targets(yaml.safe_load(path.read_text())):
            parameters = inspect.signature(_callable(node["_target_"])).parameters
            for key, value in node.items():
                found = parameters.get(key)
                if key.startswith("_") or key in PER_ENDPOINT or found is None:
                    continue
                if isinstance(value, str) and "${" in value:  # interpolated: not a default
                    continue
                if isinstance(value, dict):  # a nested stage's settings, pinned where it is built
                    continue
                if isinstance(value, list) and any(_targets(value)):  # nested stages, each pinned
                    continue
                default = found.default
                if default is inspect.Parameter.empty:
                    continue
                if (list(default) if isinstance(default, tuple) else default) != value:
                    out.append(f"{option}: {key} = {value!r}, class default {default!r}")
    return out


def test_every_yaml_value_is_its_class_default() -> None:
    assert mismatches() == []


def test_a_changed_default_is_found(monkeypatch) -> None:
    from arr.fusion import wsum

    original = wsum.WSumFusion.__init__
    signature = inspect.signature(original)
    changed = signature.replace(
        parameters=[
            p.replace(default=0.0) if p.name == "file_support" else p
            for p in signature.parameters.values()
        ]
    )
    monkeypatch.setattr(wsum.WSumFusion, "__signature__", changed, raising=False)
    assert "fusion/wsum.yaml: file_support = 0.5, class default 0.0" in mismatches()
