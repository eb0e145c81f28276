def parse_header(value):
    """Split a header value."""
    return value.strip()
