"""Document tokenisation with sliding windows."""


def sliding_windows(token_ids: list[int], max_length: int = 1024, stride: int = 256):
    """Yield overlapping windows so no part of a long article is dropped."""
    if max_length <= stride:
        raise ValueError("max_length must exceed stride")
    start = 0
    while True:
        yield token_ids[start:start + max_length]
        if start + max_length >= len(token_ids):
            break
        start += max_length - stride
