"""Where the bundled demo runs: never in the researcher's own workspace.

From a source checkout the demo is ``data/demo`` with the checkout's ``outputs/`` and
``state/``. From an installed wheel the demo's files ship inside the package (``demo_data/``,
read-only in site-packages); they are copied once per ARR version to the user's data folder
(``$XDG_DATA_HOME/arr/demo-<version>``, else ``~/.local/share/arr/...``), where its indexes,
memory store and run folders live. ``arr demo`` and ``arr eval`` with the demo gold set run
there from any folder, a workspace included, and write nothing anywhere else.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from arr.version import __version__
from arr.workspace.locations import PACKAGE_DIR, checkout_root, hydra_quote

PACKAGED_DEMO = PACKAGE_DIR / "demo_data"


def demo_home() -> Path:
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "arr" / f"demo-{__version__}"


def demo_paths() -> dict[str, Path]:
    """The folders the demo config runs in (made on first use), by the key that sets each."""
    checkout = checkout_root()
    if checkout is not None:
        data, outputs, state = checkout / "data", checkout / "outputs", checkout / "state"
    else:
        home = demo_home()
        data, outputs, state = home / "data", home / "outputs", home / "state"
        if not (data / "demo" / "gold.jsonl").is_file():
            _copy_demo(data / "demo")
    return {"paths.data_dir": data, "paths.output_dir": outputs, "paths.state_dir": state}


# Not the demo's: pip compiles every .py of a wheel at install, the demo's sources included
# (``demo_data/**/__pycache__/*.pyc``); copied, the demo's index would list them as skipped.
NOT_DEMO_FILES = ("__pycache__", "*.pyc")


def _copy_demo(target: Path) -> None:
    """The packaged demo's files (no hidden folder: a build's stray index stays behind; no
    byte code the installer added), copied beside the target and renamed into place, so a
    copy cut short is never used."""
    from arr.errors import ConfigError

    if not PACKAGED_DEMO.is_dir():
        raise ConfigError(f"the bundled demo is missing ({PACKAGED_DEMO}); reinstall arr")
    partial = target.with_name(target.name + f".partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(PACKAGED_DEMO, partial, ignore=shutil.ignore_patterns(".*", *NOT_DEMO_FILES))
    try:
        partial.rename(target)
    except OSError:  # another process copied it first
        shutil.rmtree(partial, ignore_errors=True)


def with_demo_paths(overrides: list[str]) -> list[str]:
    """``overrides`` with the demo workspace and its folders added where the user did not set
    them."""
    given = {o.split("=", 1)[0].lstrip("+~") for o in overrides if "=" in o}
    added = [] if "workspace" in given else ["workspace=demo"]
    added += [f"{k}={hydra_quote(str(v))}" for k, v in demo_paths().items() if k not in given]
    return [*overrides, *added]
