"""The ``arr`` command (entry point ``arr.cli:main``; ``python -m arr.cli``). The rooms:

- ``main``: the entry point, the commands routed, ``arr serve``'s options.
- ``arguments``: the usage, free-text values, Hydra's flags, ``--workspace``, per-command help.
- ``failures``: one-line and JSON errors, storage failures, a bug's traceback kept in the log.
- ``hydra_runs``: a command as a Hydra app, sweeps and their outcome, shell completion.
- ``fast_run``: a single search without Hydra's app machinery (cold start).

What each command does once its config is composed lives in :mod:`arr.cli.commands` (Hydra
apps) and :mod:`arr.cli.plain_commands` (init, scope, report, audit, llm, skipped).
"""

from arr.cli.main import main

__all__ = ["main"]
