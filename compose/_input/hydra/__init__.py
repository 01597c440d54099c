"""Hydra 1.3 config trees read as they are (`compose_hydra`): the override grammar, defaults
lists, the repository of sources, and the defaults tree that turns a primary config and the
command line into the ordered configs that compose's fold merges (docs/design/hydra)."""
