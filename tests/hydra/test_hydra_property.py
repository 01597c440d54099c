"""`compose_hydra` against hydra-core itself, on small trees Hypothesis writes: groups and
options, `# @package` headers, a primary's defaults list (`_self_` anywhere or left out,
`group@pkg`, `_here_`), its own keys and an interpolation, and a command line of group
choices, `+group=option`, value overrides, `+key=` and `~key`. Where Hydra composes, compose
gives the same config (key order aside, types strict); where Hydra refuses, compose raises a
ComposeError.

hydra-core pins omegaconf below the dev environment's, so it runs in a side venv, as a child
process spoken to in JSON (`hydra_peer.py`): the python named by COMPOSE_HYDRA_PYTHON (then
it must work), else `.venv-hydra/bin/python` in the checkout (made by `.ci/run` before the
suite, and by `benchmarks/hydra_trees.py --side-venv`). Without either, the test skips,
saying so; under CI=true it fails instead: CI makes the side venv, so the test must run.
"""

from __future__ import annotations

import itertools
import json
import os
import select
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, SHARING_TMP_PATH, cannot_run, examples
from hypothesis import event, given, settings
from hypothesis import strategies as st

from compose import ComposeError, compose_hydra

HYDRA_PYTHON = "COMPOSE_HYDRA_PYTHON"
PEER = Path(__file__).resolve().parent / "hydra_peer.py"
ANSWER_TIMEOUT_S = 120.0  # one small tree: Hydra answers in well under a second


def _peer_python() -> Path | None:
    given = os.environ.get(HYDRA_PYTHON)
    if given:
        return Path(given)
    default = ROOT / ".venv-hydra" / "bin" / "python"
    return default if default.exists() else None


pytestmark = [pytest.mark.filterwarnings("ignore:.*has no _self_:compose.ComposeWarning")]


class Peer:
    """hydra-core in its own process: one request a line, one answer a line."""

    def __init__(self, python: Path) -> None:
        self.process = subprocess.Popen(
            [str(python), str(PEER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def compose(self, directory: Path, name: str, overrides: list[str]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        request = {"dir": str(directory), "name": name, "overrides": overrides}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], ANSWER_TIMEOUT_S)
        line = self.process.stdout.readline() if ready else ""
        if not line:
            raise AssertionError(
                f"hydra-core did not answer {request} (exit {self.process.poll()})"
            )
        answer: dict[str, Any] = json.loads(line)
        return answer

    def close(self) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)
        self.process.stdout.close()  # left open, its collection warns in whichever test runs


@pytest.fixture(scope="module")
def hydra() -> Iterator[Peer]:
    python = _peer_python()
    if python is None:
        cannot_run(
            f"hydra-core's side venv is missing: set {HYDRA_PYTHON} to its python, or make "
            ".venv-hydra (`python benchmarks/hydra_trees.py --side-venv`; .ci/run does)"
        )
    assert python.exists(), f"{HYDRA_PYTHON}={python}: no such python"
    peer = Peer(python)
    yield peer
    peer.close()


# ---------------------------------------------------------------- the trees

GROUPS = ("db", "model", "optim")
OPTIONS = ("a", "b", "c")
KEYS = ("x", "y", "z")
values = st.one_of(st.integers(-3, 40), st.sampled_from(("alpha", "beta", "on the left")))
tables = st.dictionaries(st.sampled_from(KEYS), values, min_size=1, max_size=3)


def yaml_text(table: dict[str, Any]) -> str:
    return "".join(f"{key}: {json.dumps(value)}\n" for key, value in table.items())


@st.composite
def trees(draw: st.DrawFn) -> tuple[dict[str, str], list[str]]:
    """The files of a tree (path -> text; the primary is `config.yaml`) and a command line."""
    files: dict[str, str] = {}
    options: dict[str, list[str]] = {}
    for group in draw(st.lists(st.sampled_from(GROUPS), min_size=1, max_size=3, unique=True)):
        names = draw(st.lists(st.sampled_from(OPTIONS), min_size=1, max_size=3, unique=True))
        options[group] = names
        for name in names:
            header = draw(st.sampled_from(("", "", "# @package _global_\n", "# @package at.x\n")))
            files[f"{group}/{name}.yaml"] = header + yaml_text(draw(tables))
    listed = draw(st.lists(st.sampled_from(sorted(options)), unique=True))
    entries, plain = [], []
    for group in listed:
        at = draw(st.sampled_from(("", "", "@moved", "@_here_")))
        entries.append(f"{group}{at}: {draw(st.sampled_from(options[group]))}")
        if not at:
            plain.append(group)
    if draw(st.booleans()):  # left out, Hydra puts it last (and warns)
        entries.insert(draw(st.integers(0, len(entries))), "_self_")
    own = draw(st.dictionaries(st.sampled_from(KEYS), values, max_size=2))
    primary = "defaults:\n" + "".join(f"  - {entry}\n" for entry in entries)
    primary += yaml_text(own)
    refer = draw(st.booleans())
    if own and refer:
        primary += f"ref: ${{{next(iter(own))}}}\n"
    files["config.yaml"] = primary
    overrides = []
    for group in plain:
        if draw(st.booleans()):
            overrides.append(f"{group}={draw(st.sampled_from(options[group]))}")
    for group in sorted(set(options) - set(listed)):
        if draw(st.booleans()):
            overrides.append(f"+{group}={draw(st.sampled_from(options[group]))}")
    for key in own:
        kind = draw(st.sampled_from(("", "set", "delete")))
        if kind == "set":
            overrides.append(f"{key}={draw(st.integers(0, 9))}")
        elif kind == "delete":
            overrides.append(f"~{key}")
    if draw(st.booleans()):
        overrides.append(f"+added={draw(st.integers(0, 9))}")
    return files, draw(st.permutations(overrides))


def canonical(config: Any) -> str:
    """Key order aside, types strict (1, 1.0, True and "1" all differ)."""
    return json.dumps(config, sort_keys=True)


_trees_written = itertools.count()


@settings(max_examples=examples(60), suppress_health_check=SHARING_TMP_PATH)
@given(tree=trees())
def test_compose_hydra_gives_what_hydra_gives(
    hydra: Peer, tmp_path: Path, tree: tuple[dict[str, str], list[str]]
) -> None:
    files, overrides = tree
    root = tmp_path / f"tree{next(_trees_written)}"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    expected = hydra.compose(root, "config", overrides)
    event("Hydra refuses" if "error" in expected else "Hydra composes")
    if "error" in expected:
        with pytest.raises(ComposeError):
            compose_hydra(root, "config", overrides)
        return
    assert canonical(compose_hydra(root, "config", overrides)) == canonical(expected["config"])
