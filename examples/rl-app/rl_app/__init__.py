"""rl_app: an example RL application configured with `compose`, shaped like prime-rl.

Four entrypoints (`rl_app.cli`): `rl` resolves one `RLConfig` and writes a standalone config file
per component; `trainer`, `orchestrator` and `inference` each take one of those files back.
Nothing here trains: the app shows what a composed configuration gives you.
"""
