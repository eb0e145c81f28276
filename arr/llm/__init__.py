"""The LLM side, used only when a planner or reranker names an endpoint.

- ``client``: the one locked-down HTTPS client (endpoint checks, caps, retries).
- ``replies``: strict parsing of what the model replied.
- ``fake_server``: a scripted HTTPS endpoint on loopback, for tests and replays.
- ``scenarios``: ``arr replay``, controlled scenarios through the real client.
- ``operator``: the operator-run check against the real endpoint (never run by CI).
"""
