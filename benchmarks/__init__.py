"""Speed of alice_lab against the frameworks' own kernels, as ratios from one run.

See :mod:`benchmarks.harness`; add a case by writing ``benchmarks/bench_<topic>.py``
with a function decorated by :func:`benchmarks.harness.benchmark`.
"""
