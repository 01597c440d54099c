"""A frozen result holds `${now:}` as resolved once (issues 23, hydra #2070): the launcher
composes and writes it, and every process that loads the written config sees the same
instant, frozen so that no process can set its own."""

from __future__ import annotations

import datetime
import textwrap
from pathlib import Path

import pytest
from conftest import environ_with_tests, run_python

from compose import BaseConfig, FrozenError, compose, parse, write_configs


class Run(BaseConfig):
    run_dir: str = "runs/${now:%Y-%m-%d_%H-%M-%S.%f}"
    tag: str = "${run_dir}-a"
    name: str = "x"


RANK = textwrap.dedent(
    """
    import sys
    from compose import BaseConfig, compose

    class Run(BaseConfig):
        run_dir: str = "runs/${now:%Y-%m-%d_%H-%M-%S.%f}"
        tag: str = "${run_dir}-a"
        name: str = "x"

    print(compose([sys.argv[1]], schema=Run, frozen=True).run_dir)
    """
)


def test_every_process_reading_the_written_config_sees_one_instant(tmp_path: Path) -> None:
    launched = parse(Run, ["--name", "y"], frozen=True)
    stamp = launched.run_dir.removeprefix("runs/")
    assert abs(
        datetime.datetime.strptime(stamp, "%Y-%m-%d_%H-%M-%S.%f") - datetime.datetime.now()
    ) < datetime.timedelta(minutes=5)
    assert launched.tag == f"{launched.run_dir}-a"
    [written] = write_configs(tmp_path, {"rl": launched})
    seen = set()
    for _ in range(2):  # two ranks, each its own interpreter
        code, out, err = run_python(RANK, str(written), env=environ_with_tests())
        assert code == 0, err
        seen.add(out.strip())
    assert seen == {launched.run_dir}
    assert compose([written], schema=Run, frozen=True) == launched


def test_no_process_can_set_its_own_instant() -> None:
    launched = parse(Run, [], frozen=True)
    with pytest.raises(FrozenError, match=r"^run_dir = 'runs/mine': cannot assign"):
        launched.run_dir = "runs/mine"
