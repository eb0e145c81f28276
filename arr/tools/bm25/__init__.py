"""BM25 channel on bm25s: one persistent index per scope partition. The rooms:

- ``tool``: ``BM25Tool``, the channel the Router calls (config ``conf/tools/bm25.yaml``).
- ``tokenize``: the tokenizer shared by indexing and querying; the light bm25s import.
- ``build``: writing a generation, incremental over the previous one and streamed.
- ``rows``, ``documents``, ``vocab``: a generation's token cache, chunks and vocabulary files.
- ``loaded``: one loaded generation and its scoring.
- ``overlay``: the changed files since the build, scored like bm25s until the next build.
- ``cache``: manifests, file lists, pointer, overlay and walk remembered between calls.
"""

from arr.tools.bm25.cache import MAX_CACHED_GENERATIONS
from arr.tools.bm25.tokenize import import_bm25s, make_tokenizer
from arr.tools.bm25.tool import BM25Tool

__all__ = ["MAX_CACHED_GENERATIONS", "BM25Tool", "import_bm25s", "make_tokenizer"]
