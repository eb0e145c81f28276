"""Retrieval channels. Each YAML option under ``conf/tools/`` maps to one class here.

- ``grep/`` (package): ``GrepTool``, safe line search via ripgrep, every hit re-read.
- ``bm25/`` (package): ``BM25Tool``, persistent bm25s indexes per scope partition.
- ``vector``: ``VectorTool``, own embeddings in a vector store; ``vector_items`` its records,
  ``passages`` token-aware passages, ``build_progress`` a running build's progress.
- ``memory``: ``MemoryTool``, published research memory.
- ``base``: what every channel shares (answers, errors, deadlines, freshness);
  ``partition``: index generations per scope, swapped in whole, and their locks.
"""
