"""Stage 3: `${...}` interpolation; imports nothing of the engine."""
