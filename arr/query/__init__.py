"""What a query says, read the same way by every stage.

- ``shape``: the query's shape (identifier, prose, quoted, error text) for planner, fusion and
  reranker.
- ``named_paths``: paths and line numbers a query names, and the items that hold them.
- ``snippets``: the query's terms in an item's text (highlights, centred snippets).
"""
