"""Benchmarks: scripts that print figures and ratios against a baseline run in the same
process (never timed unit tests). ``python -m benchmarks`` runs the core set; each module also
runs alone (``python -m benchmarks.speed.grep`` ...). ``make help`` lists the targets."""
