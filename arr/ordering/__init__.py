"""Known-item ordering: rules that move places a query names to the front after reranking.

Each rule is a class of its own module with its constants as parameters, composed by
``conf/ordering/`` (``ordering=known_items``, the default; ``ordering=none``: the reranked
order as it is). A rule moves only items a channel returned and the Router admitted; it reads
nothing and adds nothing, and the trace of each channel that found a moved item says which
rule moved it and why.
"""
