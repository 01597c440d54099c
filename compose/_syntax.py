"""The spellings the engine reserves, each defined once.

Imported by every stage (readers, merge, interpolation, binding, output), it imports nothing.
"""

from __future__ import annotations

NONE_TEXT = "None"  # TOML has no null: the text "None" means None where a type admits it
MANDATORY = "???"  # OmegaConf's mandatory value: still unset at the end, an error
INTERPOLATION = "${"  # where resolution has work to do
SECRET_MASK = "**********"  # a secret, as people are shown it (Pydantic's own mask)
# The variable the completion scripts set when they ask an entrypoint for candidates
COMPLETE_VARIABLE = "_COMPOSE_COMPLETE"
# Where compose keeps its caches (the docstring index), and the switch that turns them off
CACHE_DIR_VARIABLE = "COMPOSE_CACHE_DIR"
NO_CACHE_VARIABLE = "COMPOSE_NO_CACHE"
