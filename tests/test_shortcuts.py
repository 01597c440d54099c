"""The one switch of the shortcuts (`compose._shortcuts`): `COMPOSE_REFERENCE=1` turns every one
off in a process, each module that holds one reads that switch and no other, and docs/08 lists
each of them (what it skips, what it saves). CI runs the whole suite both ways."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from conftest import run_python

import compose

PACKAGE = Path(compose.__file__).parent
PERFORMANCE = PACKAGE.parent / "docs" / "08-performance.md"
READS_THE_SWITCH = re.compile(r"^from compose\._shortcuts import SHORTCUTS$", re.M)


def _modules_reading_the_switch() -> set[str]:
    return {
        path.relative_to(PACKAGE.parent).as_posix()
        for path in PACKAGE.rglob("*.py")
        if READS_THE_SWITCH.search(path.read_text(encoding="utf-8"))
    }


def _documented() -> set[str]:
    """The `where` column of docs/08's table of shortcuts."""
    text = PERFORMANCE.read_text(encoding="utf-8")
    table = text[text.index("| shortcut | where |") :].split("\n\n")[0]
    return set(re.findall(r"^\| [^|]+ \| `([^`]+\.py)`", table, re.M))


@pytest.mark.parametrize(("value", "on"), [(None, True), ("1", False), ("0", True), ("", True)])
def test_compose_reference_1_turns_the_shortcuts_off(value: str | None, on: bool) -> None:
    env = {key: text for key, text in os.environ.items() if key != "COMPOSE_REFERENCE"}
    if value is not None:
        env["COMPOSE_REFERENCE"] = value
    code = "from compose._merge import tables; print(tables.SHORTCUTS)"
    assert run_python(code, env=env) == (0, f"{on}\n", "")


def test_every_module_with_a_shortcut_is_in_the_docs_table() -> None:
    assert _documented() == _modules_reading_the_switch()


def test_no_module_reads_the_variable_itself() -> None:
    """The switch is read once, in one place: a module asking the environment itself could
    take its shortcut in reference mode."""
    asking = [
        path.name
        for path in PACKAGE.rglob("*.py")
        if "COMPOSE_REFERENCE" in path.read_text(encoding="utf-8") and path.name != "_shortcuts.py"
    ]
    assert asking == []


def test_the_checks_see_the_shortcuts() -> None:
    """They would pass on a package without any: the quick references are one."""
    assert "compose/_interp/evaluate.py" in _modules_reading_the_switch()
    assert "compose/_interp/evaluate.py" in _documented()
