"""The Router: admission, execution, fusion and reranking. Config group ``router``."""
