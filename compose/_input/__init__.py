"""Stage 1: what the user gave (argv, environment, files, includes) as ordered nodes of
plain tables, and where each came from."""
