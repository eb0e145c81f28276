"""Papers and notebooks: extraction, identity (title, authors, year, citation), known-item
questions, real folders."""
