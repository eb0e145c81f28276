"""``python -m benchmarks`` (``make bench``): the core benchmarks in one process, then one table.

BM25 through the Router vs raw bm25s on SciFact, demo search latency, cold ``arr search``
(lexical, hybrid) vs ``python -c pass``, and the MCP round trip vs in-process search. The
longer ones run alone: ``python -m benchmarks.speed.grep|vector|onnx|freshness|concurrency``.
"""

from benchmarks.common import core
from benchmarks.common.table import render
from benchmarks.retrieval import agents

core.main()
agents.main()
print()
print(render())
