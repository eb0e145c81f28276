"""``python -m arr.bench``: the core benchmarks (BM25 through the Router vs raw bm25s on
SciFact, demo latency)."""

from arr.bench.core import main

main()
