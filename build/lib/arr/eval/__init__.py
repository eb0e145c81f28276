"""Evaluation: gold sets, metrics, reports, sweeps comparison and significance tests."""
