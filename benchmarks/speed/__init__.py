"""How fast and how large: cold start, indexing, freshness, concurrency, scale and scale-out,
ONNX, the vector and grep channels."""
