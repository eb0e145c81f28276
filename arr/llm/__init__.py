"""The LLM client, used only when a planner or reranker names an endpoint.

- ``endpoint``: what an endpoint may be (HTTPS, one host, loopback for a local server).
- ``client``: the one locked-down HTTPS client (endpoint checks, caps, retries).
- ``replies``: strict parsing of what the model replied.
- ``schemas``: the JSON shapes a plan and a reranking must have.

Tools built on the client live elsewhere: ``arr llm check`` in ``arr.cli.llm_check``; the
scripted fake endpoint, the scenario replay (``make replay``), the operator-run check and the
plan measurements in the checkout's ``benchmarks/llm/`` (not shipped in the wheel).
"""
