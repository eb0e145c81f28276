"""Library mode and config composition (Hydra's compose API; no run folder is written).

``load_router(overrides=[...])`` composes ``conf/<config_name>.yaml`` with the same overrides
the CLI accepts and returns a RetrievalRouter ready to ``search(query, scope)``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arr.errors import ConfigError
from arr.router.router import RetrievalRouter
from arr.runner import build_router, config_container

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CONF_DIR = PROJECT_ROOT / "conf"
PIPELINES_DIR = PROJECT_ROOT / "pipelines"


def register_resolvers() -> None:
    from omegaconf import OmegaConf

    if not OmegaConf.has_resolver("arr.root"):
        OmegaConf.register_new_resolver("arr.root", lambda: str(PROJECT_ROOT))


def searchpath_override() -> str:
    return f"hydra.searchpath=[file://{PIPELINES_DIR}]"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def compose(config_name: str = "search", overrides: list[str] | None = None) -> Any:
    """Compose a config exactly as the CLI would; Hydra errors become one-line ConfigErrors."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    if not CONF_DIR.is_dir():
        raise ConfigError(f"config folder {str(CONF_DIR)!r} is missing; is arr installed with -e?")
    register_resolvers()
    try:
        with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
            return hydra_compose(
                config_name=config_name, overrides=[*(overrides or []), searchpath_override()]
            )
    except (HydraException, OmegaConfBaseException, ValueError) as exc:
        raise ConfigError(_first_line(exc)) from None


def load_router(
    overrides: list[str] | None = None, config_name: str = "search", warm: bool = True
) -> RetrievalRouter:
    router = build_router(config_container(compose(config_name, overrides)))
    if warm:
        router.warm_up()
    return router
