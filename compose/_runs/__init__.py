"""Many runs: sweeps expanded and validated up front, a run record per point, and the hand-off
of one plain command per point to an existing engine (a local pool, Slurm, Ray).

Materialize, then hand off: every point is composed and validated here, its resolved config
written into its own directory, and only then is anything submitted. Nothing is composed again
on the node.
"""
