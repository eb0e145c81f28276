"""The bundled demo is indexed on first use: ``arr search ... workspace=demo``, ``arr serve
workspace=demo`` or the README's ``arr.load_router(overrides=["workspace=demo", ...])`` on a
fresh install answer without ``arr demo`` having run first.

Every ``arr index`` run (``arr demo`` included) notes in the index folder which channels it
built whole (``built-channels.json``; ``memory`` once the store is seeded). A router over the
bundled demo (the checkout's ``data/demo`` or its copy in the user's data folder, never a
workspace of the user's) builds, before its first search, the channels it uses that no run has
built yet: only those (a first search with ``tools=[memory,bm25]`` embeds nothing), under the
same run lock as ``arr index``, so two first uses at once build it once.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from arr.compose.built_channels import MEMORY, built_channels
from arr.tools.contract import HoldsMemory, Indexed, has
from arr.workspace.demo_home import is_bundled_demo
from arr.workspace.workspace import Workspace


def _missing(workspace: Workspace, tools: Mapping[str, object]) -> dict[str, object]:
    built = built_channels(workspace.index_dir)
    return {
        name: tool
        for name, tool in tools.items()
        if (has(tool, Indexed) or (name == MEMORY and has(tool, HoldsMemory))) and name not in built
    }


def index_demo_once(
    container: Mapping[str, Any], workspace: Workspace, tools: Mapping[str, object]
) -> None:
    """The bundled demo's channels that no run has built, built now (quietly in library mode,
    one line on stderr from the command line)."""
    if workspace.name != "demo" or not is_bundled_demo(workspace.root):
        return
    if not _missing(workspace, tools):
        return
    # the indexing stack only here: a search of any other workspace does not import it (~50 ms)
    from arr.compose.indexing import index_workspace  # which notes what it built
    from arr.tools.index_run import one_index_run

    progress = bool(container.get("progress", True))

    def say(line: str) -> None:
        if progress:
            print(line, file=sys.stderr, flush=True)

    with one_index_run(workspace.index_dir, say):
        missing = _missing(workspace, tools)  # another process may have built them meanwhile
        if not missing:
            return
        say(f"arr: the demo's first use: indexing {', '.join(sorted(missing))} once")
        # the bar on a terminal only: in a pipe or a log, the line above says it all
        shown = progress and sys.stderr.isatty()
        index_workspace(workspace, missing, workspace.named_scopes(), progress=shown)
