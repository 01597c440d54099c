"""`python -m compose`: the `compose` command."""

from compose._command import run

run()
