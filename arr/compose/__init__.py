"""Config -> objects: the one place Hydra's composed config becomes a router.

- ``library``: library mode (``arr.load_router``), composing with overrides and clear errors.
- ``runner``: builds the workspace, the tools and the router from a composed config.
- ``indexing``: ``arr index``'s job: build every index of a composed workspace, and report;
  ``run_clock`` and ``run_bar``: its whole-run time left and its one bar.
- ``counted``: a loop's progress on stderr (``arr eval``): a bar on a terminal, plain lines
  on a pipe.
"""
