"""Retrieval channels. Each YAML option under ``conf/tools/`` maps to one class here."""
