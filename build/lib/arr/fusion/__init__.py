"""Fusion of per-channel rankings. Each YAML option under ``conf/fusion/`` maps to one class."""
