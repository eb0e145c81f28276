"""``python -m arr.cli``: the ``arr`` command."""

from arr.cli.main import main

raise SystemExit(main())
