"""Vector stores. Each YAML option under ``conf/vector_store/`` maps to one class here."""
