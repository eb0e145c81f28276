"""LLM tools for the checkout, not shipped in the wheel.

- ``fake_server``: a scripted HTTPS endpoint on loopback, for tests and replays.
- ``replay``: ``python -m benchmarks.llm.replay`` (``make replay``), controlled scenarios
  through the real client.
- ``operator``: the operator-run check against the real endpoint (never run by CI).
- ``measure``: plan validity and latency per prompt version.
- ``local_server``: a real llama.cpp server (xllamacpp) with a packaged GGUF model.
- ``bench``: ``make bench-llm``.
"""
