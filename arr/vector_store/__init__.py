"""Vector stores. Each YAML option under ``conf/vector_store/`` maps to one class here.

- ``chroma``: ``ChromaStore``, one collection per scope, rebuilds staged beside the live one.
- ``chroma_http``: the same store behind a Chroma server on loopback.
- ``chroma_client``, ``chroma_errors``: opening a client; every failure named with its repair.
- ``exact``: exact nearest neighbours for small collections (the same answer in every process).
- ``segments``: removing segment folders no collection owns.
"""
