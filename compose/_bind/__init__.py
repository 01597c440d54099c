"""Stage 4: the tree validated onto the schema; Pydantic's errors mapped back to origins."""
