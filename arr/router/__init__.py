"""The Router: the only executor (config group ``router``). The rooms:

- ``router``: ``RetrievalRouter``: plan, admit, run rounds, fuse, rerank, check scope.
- ``admission``: the admission rules in order, pure functions with fixed reason codes.
- ``refresh``: the one admission step with I/O, a small stale index refreshed before a call.
- ``dispatch``: admitted calls run in worker threads, timed, abandoned at the deadline.
- ``recording``: one search's bookkeeping and how each outcome lands in traces and evidence.
- ``steps``: planning, reranking and the fusion-weight note, each guarded by a fallback.
"""
