"""How well ARR finds: fusion, hybrid and passages on SciFact, code search (CoSQA), your own
tree's fix places (wsgold), the MCP round trip."""
