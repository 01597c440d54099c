"""The shell-facing layer: `cli()` for entrypoints, the `compose` command, completion."""
