"""Fuzzing the records a rerun and a job read (issue 38): mutated run.json given to
`rl --from-run DIR`, mutated job.json given to `compose job DIR`.

The rule, as for every fuzzer of the suite (tests/test_fuzz.py): a result or one `ComposeError`,
exit 2 for bad input, never a traceback, within the hang guard. And never a command nobody
wrote: a rerun composes one run and returns it, or refuses; it never becomes a sweep that is
written and submitted, and writes nothing (`cli` returns the config, the app writes). A job runs
what its job.json says (whoever writes job.json can run code: docs/15), or refuses it with exit 2.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from schemas import RLConfig
from test_fuzz import FUZZ, captured, hang_guard, inside

import compose
from compose._cli.command import main
from compose._runs.jobs import Job
from compose._runs.status import write_job

GOOD = 'seed = 7\ntag = "run-${seed}"\n[trainer.optim]\ntype = "muon"\nlr = 0.1\n'

NASTY: tuple[Any, ...] = (
    None,
    True,
    0,
    -1,
    1.5,
    10**400,
    "",
    "\0",
    "a\0b",
    "\udcff",
    "caf\udce9.toml",
    "x" * 5000,
    "=",
    "A=B",
    "--sweep",
    "--sweep.seed",
    "--sweep-executor",
    "local",
    "--sweep-name=x",
    "--sweep-resume",
    "--from-run",
    "--help",
    "-h",
    "--seed",
    "@",
    "@good.toml",
    "good.toml",
    "missing.toml",
    "/dev/zero",
    "..",
    "RL_SEED",
    "RL_TRAINER__OPTIM__LR",
    "PATH",
    "**********",
    "${oc.env:HOME}",
    "2026-12-04T21:00:00+00:00",
    "not an instant",
    [],
    {},
    ["--seed", "3"],
    ["--sweep.seed", "1", "2", "--sweep-executor", "local"],
    ["@", "good.toml", "--from-run", "."],
    [1, 2],
    {"RL_SEED": "1"},
    {"RL_SEED": 1},
    {"PATH": "/x"},
    {"A=B": "c"},
    {"RL_\0": "x"},
    {"good.toml": "0" * 64},
    [[[[[[[[[[]]]]]]]]]],
)

SNIPPETS = (
    b"\x00",
    b"\xff",
    b"\xed\xa0\x80",
    b'"',
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b"\\",
    b"\\ud800",
)


# A job runs what job.json says: `python /dev/zero` reads for ever, the command's own hang,
# not compose's (whoever writes job.json can run anything: docs/15)
FOR_JOBS = tuple(value for value in NASTY if value != "/dev/zero")


@st.composite
def mutated(draw: st.DrawFn, base: dict[str, Any], nasty: tuple[Any, ...] = NASTY) -> bytes:
    """`base` as JSON, with fields replaced, removed or added (by values from `nasty`), items
    changed in its lists and tables, and perhaps its bytes broken."""
    data = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        key = draw(st.sampled_from([*sorted(data), "extra"]))
        kind = draw(st.integers(0, 3))
        if kind == 0:
            data[key] = copy.deepcopy(draw(st.sampled_from(nasty)))  # changed in place later
        elif kind == 1:
            data.pop(key, None)
        elif isinstance(data.get(key), list):
            items = data[key]
            items.insert(draw(st.integers(0, len(items))), draw(st.sampled_from(nasty)))
        elif isinstance(data.get(key), dict):
            name = draw(st.sampled_from([n for n in nasty if isinstance(n, str)]))
            data[key][name] = draw(st.sampled_from(nasty))
    text = bytearray(
        json.dumps(data, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")
    )
    if draw(st.integers(0, 3)) == 0:
        position = draw(st.integers(0, len(text)))
        if draw(st.booleans()):
            text[position:position] = draw(st.sampled_from(SNIPPETS))
        else:
            del text[position:]
    return bytes(text)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A directory holding good.toml and `run/`, a run's record made from it (which the
    environment layer set a value of), and that record's data."""
    root = tmp_path_factory.mktemp("records")
    with inside(root):
        Path("good.toml").write_text(GOOD)
        argv = ["@", "good.toml", "--output-dir", "run", "--max-steps", "4"]
        environ = {"RL_TRAINER__OPTIM__LR": "0.5"}
        config = compose.parse(RLConfig, argv, env_prefix="RL_", environ=environ)
        path = compose.write_run_record(
            "run", config, argv, prog="rl", env_prefix="RL_", environ=environ
        )
    return root, json.loads((root / path).read_text())


@settings(FUZZ, max_examples=examples(150))
@given(data=st.data())
def test_a_rerun_of_a_mutated_run_record(
    recorded: tuple[Path, dict[str, Any]], data: st.DataObject
) -> None:
    """A fuzzer: `rl --from-run run [...]` over a mutated run.json composes one run or is one
    error, exit 2; it never turns into a sweep (exit 0, a table), and writes nothing."""
    root, base = recorded
    (root / "run" / "run.json").write_bytes(data.draw(mutated(base)))
    extra = data.draw(st.sampled_from([[], ["--seed", "3"], ["--output-dir", "elsewhere"]]))
    with inside(root):
        before = sorted(map(str, root.rglob("*")))
        with captured() as texts, hang_guard():
            try:
                compose.cli(RLConfig, ["--from-run", "run", *extra], prog="rl", env_prefix="RL_")
            except SystemExit as done:
                assert done.code == 2, done.code  # never 0: no sweep, no help
        assert sorted(map(str, root.rglob("*"))) == before
    assert "Traceback" not in texts["stderr"], texts["stderr"]


@settings(FUZZ, max_examples=examples(40))
@given(data=st.data())
def test_compose_job_on_a_mutated_job_record(tmp_path: Path, data: st.DataObject) -> None:
    """A fuzzer: `compose job p` over a mutated job.json runs the command it holds (exit 5, or
    127/126 for one that cannot start) or is one error, exit 2; never a traceback."""
    point = tmp_path / "p"
    command = (sys.executable, "-c", "import sys; sys.exit(5)")
    write_job(Job("p", command, str(point), str(tmp_path), {"COMPOSE_NO_ENV": "1"}))
    base = json.loads((point / "job.json").read_text())
    (point / "job.json").write_bytes(data.draw(mutated(base, FOR_JOBS)))
    with captured() as texts, hang_guard():
        code = main(["job", str(point)])
    said = texts["stderr"]
    assert "Traceback" not in said
    assert code in (0, 1, 2, 5, 126, 127), (code, said)  # 2: bad input, or python's own
    if said:  # compose's own word: one line, its error or why the command could not start
        assert said.startswith(("error: ", "compose job: ")) and said.count("\n") == 1, said
        assert code == 2 if said.startswith("error: ") else code in (126, 127), (code, said)
