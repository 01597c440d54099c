"""The one switch of every fast path: `COMPOSE_REFERENCE=1` in the environment turns them off.

A shortcut gives what the reference code beside it gives, for less, on the inputs it can
tell it may: a pre-check that skips a walk which would change nothing, a direct walk of the
tree for a plain `${a.b}`, a regex for a plain number before tomli. Each decides with
`if SHORTCUTS and ...`, so that with the switch off the reference code runs alone, and CI runs
the whole suite both ways: no behaviour may depend on which path ran. docs/08 lists every
shortcut, where it is, what it skips and what it saves in `benchmarks/` (a shortcut that does
not pay its way there goes).

Read once, at import: a process runs one way throughout (a module keeps the value it
imported; `benchmarks/shortcuts.py` turns one shortcut off by setting its module's name).
"""

from __future__ import annotations

import os

SHORTCUTS: bool = os.environ.get("COMPOSE_REFERENCE", "") != "1"
