"""Rerankers. Each YAML option under ``conf/reranker/`` maps to one class here."""
