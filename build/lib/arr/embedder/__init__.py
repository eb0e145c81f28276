"""Text embedders. Each YAML option under ``conf/embedder/`` maps to one class here.

An embedder has ``id`` (model name and dimension, recorded in vector index manifests),
``warm_up()``, ``embed(texts, show_progress)`` and ``embed_query(text)``; vectors are unit length.
"""
