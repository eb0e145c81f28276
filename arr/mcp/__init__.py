"""``arr serve``: the MCP server agents use (``server``)."""
