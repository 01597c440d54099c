"""Hydra's own subtree (`hydra/config`: the option of each of Hydra's groups) as a composition
expands it after the user's: its shortcut (`compose._input.hydra.tree._OWN`, the subtree as
expanded on Hydra's configs alone) gives what expanding it gives, the choices recorded and the
errors too, whatever of the user's reaches it: a choice of one of its groups on the command
line or in a config, a deletion, a tree's own file in place of one of Hydra's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from conftest import write_tree

from compose import ComposeError
from compose._api import HydraCall
from compose._input.hydra import tree

if TYPE_CHECKING:
    from conftest import WriteFile

pytestmark = pytest.mark.filterwarnings("ignore::compose.ComposeWarning")

TREE = {
    "config.yaml": "defaults:\n  - db: mysql\n  - _self_\nx: 1\n",
    "db/mysql.yaml": "port: 3306\n",
    "db/sqlite.yaml": "file: a.db\n",
}
CASES: dict[str, tuple[dict[str, str], list[str]]] = {
    "nothing of Hydra's": ({}, []),
    "a group choice": ({}, ["db=sqlite"]),
    "a choice of Hydra's on the command line": ({}, ["hydra/job_logging=disabled"]),
    "an unknown option of Hydra's": ({}, ["hydra/launcher=nowhere"]),
    "a deletion of Hydra's": ({}, ["~hydra/launcher"]),
    "a deletion of the wrong option": ({}, ["~hydra/launcher=other"]),
    "an appended group of Hydra's": ({}, ["+hydra/callbacks=none"]),
    "a value of Hydra's": ({}, ["hydra.run.dir=out"]),
    "an override in the primary": (
        {"config.yaml": "defaults:\n  - db: mysql\n  - override hydra/job_logging: none\n"},
        [],
    ),
    "Hydra's group chosen in a config": (
        {"db/mysql.yaml": "defaults:\n  - /hydra/launcher: basic\nport: 1\n"},
        [],
    ),
    "a file in place of Hydra's": ({"hydra/launcher/basic.yaml": "mine: 1\n"}, []),
    "a file in place of hydra/config": ({"hydra/config.yaml": "defaults: []\n"}, []),
    "another option in Hydra's group": (
        {"hydra/job_logging/mine.yaml": "level: 1\n"},
        ["hydra/job_logging=mine"],
    ),
}


def _expansion(conf: str, overrides: list[str]) -> Any:
    try:
        return HydraCall(conf, "config", overrides).prepared().defaults
    except ComposeError as error:
        return error.format()


@pytest.mark.shortcuts
@pytest.mark.parametrize("case", CASES)
def test_the_shortcut_expands_as_the_subtree_does(
    case: str, write: WriteFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    files, overrides = CASES[case]
    conf = write_tree(write, {**TREE, **files})
    assert tree._OWN is not None  # shortcuts on: the subtree was expanded at import
    found = _expansion(conf, overrides)
    monkeypatch.setattr(tree, "_OWN", None)
    assert found == _expansion(conf, overrides)


def test_hydras_choices_are_recorded_and_a_tree_of_hydras_own_is_read(write: WriteFile) -> None:
    conf = write_tree(write, {**TREE, "hydra/launcher/basic.yaml": "mine: 1\n"})
    expanded = HydraCall(conf, "config", ["hydra/job_logging=disabled"]).prepared().defaults
    assert expanded.choices["hydra/job_logging"] == "disabled"
    assert expanded.choices["hydra/launcher"] == "basic"
    shown = {leaf.config_path for leaf in expanded.hydra_leaves}
    assert {"hydra/config", "hydra/launcher/basic", "hydra/job_logging/disabled"} <= shown
