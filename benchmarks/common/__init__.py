"""What the benchmarks share: a workspace over a folder of papers and its indexing run
(``workspace``), the baselines a researcher could script and ARR as configured (``baselines``),
and known-item scoring (``scoring``). The benchmarks import from here, never from each other's
modules, so ``benchmarks/`` has no import circle (tests/unit/test_layout.py)."""
