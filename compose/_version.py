"""compose's version: one place, read by the build (pyproject's dynamic version) and by run
records, which must not pay for `importlib.metadata` on every run."""

VERSION = "0.1.0"
