"""The safety rules every channel obeys, in one room.

- ``rules``: sensitive names, credential detection and redaction, roots no search may use.
- ``secret_rules``: the vendored detect-secrets patterns (and their licence).
- ``file_rule``: the one rule that decides whether a file may be read, opened below its root.
"""
