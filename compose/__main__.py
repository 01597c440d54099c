"""`python -m compose`: the `compose` command."""

from compose._cli.command import run

run()
