"""Benchmarks: scripts that print figures and ratios against a baseline run in the same
process (never timed unit tests). ``python -m arr.bench`` runs the core set; each module also
runs alone (``python -m arr.bench.grep`` ...). ``make help`` lists the targets."""
