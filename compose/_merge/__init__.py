"""Stage 2: the nodes folded, in order, into one tree, with who set what."""
