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

from arr.workspace.locations import PACKAGE_DIR, checkout_here, demo_home, hydra_quote

# The wheel's copy (``arr/demo_data``); an editable install's is the checkout's ``data/demo``.
PACKAGED_DEMO = (
    PACKAGE_DIR / "demo_data"
    if (PACKAGE_DIR / "demo_data").is_dir()
    else PACKAGE_DIR.parent / "data" / "demo"
)

__all__ = ["PACKAGED_DEMO", "demo_home", "demo_paths", "is_bundled_demo", "with_demo_paths"]


def demo_paths() -> dict[str, Path]:
    """The folders the demo config runs in (made on first use), by the key that sets each:
    the checkout's own when the current folder is inside it, else the user's data folder."""
    checkout = checkout_here()
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


def is_bundled_demo(root: Path) -> bool:
    """Whether ``root`` is the bundled demo (the checkout's ``data/demo`` or the copy in the
    user's data folder), which is indexed on first use."""
    demos = [demo_home() / "data" / "demo", PACKAGE_DIR.parent / "data" / "demo"]
    resolved = root.resolve()
    return any(resolved == d.resolve() for d in demos)


def with_demo_paths(overrides: list[str]) -> list[str]:
    """``overrides`` with the demo workspace and its folders added where the user did not set
    them."""
    given = {o.split("=", 1)[0].lstrip("+~") for o in overrides if "=" in o}
    added = [] if "workspace" in given else ["workspace=demo"]
    added += [f"{k}={hydra_quote(str(v))}" for k, v in demo_paths().items() if k not in given]
    return [*overrides, *added]
