"""Secrets: the rules' precision on real packages, and inputs written to make a rule slow."""
