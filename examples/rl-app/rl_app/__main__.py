"""`python -m rl_app ENTRYPOINT ARGS...` (ENTRYPOINT: rl, trainer, orchestrator, inference)."""

from rl_app.cli import main

main()
