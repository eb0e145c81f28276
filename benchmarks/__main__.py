"""``python -m benchmarks`` (``make bench``): the core benchmarks in one process, then one table.

BM25 through the Router vs raw bm25s on SciFact, demo search latency, cold ``arr search``
(lexical, hybrid) vs ``python -c pass``, and the MCP round trip vs in-process search. The
longer ones run alone: ``python -m benchmarks.grep|vector|onnx|freshness|concurrency``.
"""

from benchmarks import agents, core
from benchmarks.table import render

core.main()
agents.main()
print()
print(render())
