"""Multirun (`compose_hydra(..., multirun=True)`): the jobs are the product of the overrides'
values in command-line order, the last varying fastest, each composed on its own; `a,b`,
`choice()`, `range()` (floats too) and `glob()` over a group's options; a sweep outside
multirun, an interval and a sweep of Hydra's own settings are refused; a job that fails names
itself, and every failing job is reported."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from compose import ArgvError, ComposeError, compose_hydra

# Trees written short: most primaries have no _self_, which Hydra (and compose) warn of
pytestmark = pytest.mark.filterwarnings("ignore:.*has no _self_:compose.ComposeWarning")

if TYPE_CHECKING:
    from conftest import WriteFile


@pytest.fixture
def conf(write: WriteFile) -> str:
    write("conf/config.yaml", "defaults:\n  - db: ???\nlr: 0.1\n")
    for name in ("mysql", "sqlite", "postgresql"):
        write(f"conf/db/{name}.yaml", f"driver: {name}\n")
    return "conf"


def jobs(conf: str, overrides: list[str]) -> list[list[str]]:
    return [job for job, _ in compose_hydra(conf, "config", overrides, multirun=True)]


def test_the_product_in_hydra_order(conf: str) -> None:
    runs = compose_hydra(conf, "config", ["db=mysql,sqlite", "lr=1,2"], multirun=True)
    assert [job for job, _ in runs] == [
        ["db=mysql", "lr=1"],
        ["db=mysql", "lr=2"],
        ["db=sqlite", "lr=1"],
        ["db=sqlite", "lr=2"],
    ]
    assert runs[3][1] == {"db": {"driver": "sqlite"}, "lr": 2}


def test_range_glob_choice_and_a_key_given_twice(conf: str) -> None:
    assert jobs(conf, ["db=glob(*sql*,exclude=mysql)", "lr=range(0,1,0.5)"]) == [
        ["db=postgresql", "lr=0.0"],
        ["db=postgresql", "lr=0.5"],
        ["db=sqlite", "lr=0.0"],
        ["db=sqlite", "lr=0.5"],
    ]
    assert jobs(conf, ["lr=1,2", "db=mysql", "lr=choice(3)"]) == [["lr=3", "db=mysql"]]


def test_a_quoted_or_special_value_is_written_back_so_it_reads_the_same(conf: str) -> None:
    runs = compose_hydra(conf, "config", ["db=mysql", "+tag='a b',x\\,y"], multirun=True)
    assert [job[1] for job, _ in runs] == ["+tag='a b'", "+tag=x\\,y"]
    assert [config["tag"] for _, config in runs] == ["a b", "x,y"]


@pytest.mark.parametrize(
    ("overrides", "multirun", "message"),
    [
        (["db=mysql,sqlite"], False, "a comma list is a sweep: it needs multirun"),
        (["db=mysql", "lr=range(3)"], False, "a sweep needs multirun"),
        (["db=mysql", "lr=interval(0,1)"], True, "interval() is a range of real numbers"),
        (["db=mysql", "hydra.verbose=true,false"], True, "Hydra's own settings cannot be swept"),
        (["db=mysql", "lr=shuffle(1,2)"], True, "shuffle() is random"),
    ],
)
def test_refused_sweeps(conf: str, overrides: list[str], multirun: bool, message: str) -> None:
    with pytest.raises(ArgvError) as caught:
        compose_hydra(conf, "config", overrides, multirun=multirun)
    assert message in caught.value.message


def test_every_failing_job_is_named(conf: str) -> None:
    with pytest.raises(ComposeError) as caught:
        compose_hydra(conf, "config", ["db=mysql,oracle,db2"], multirun=True)
    shown = str(caught.value)
    assert "job 1 (db=oracle)" in shown and "job 2 (db=db2)" in shown
    assert len(caught.value.errors) == 2


def test_a_multirun_too_large_is_refused_before_any_job_composes(conf: str) -> None:
    with pytest.raises(ArgvError, match="a multirun of 1,000,000 jobs") as caught:
        compose_hydra(
            conf, "config", ["db=mysql", "lr=range(1000)", "+b=range(1000)"], multirun=True
        )
    assert caught.value.key == "--multirun"  # and the sweeps that make it so, with their sizes
    assert caught.value.hint == (
        "its sweeps: lr=range(1000) (1,000) x +b=range(1000) (1,000); sweep fewer values"
    )


def test_a_multirun_reads_each_config_once_and_each_job_is_its_single_run(
    write: WriteFile, config_reads: list[str]
) -> None:
    """The jobs share the tree as read once (the repository and every config), and sharing it
    changes no job: each is what composing it alone gives, a job's value override included
    (the data read is never merged into in place)."""
    write(
        "tree/config.yaml",
        "defaults:\n  - _self_\n  - db: mysql\n  - model: small\nlr: 0.1\nout: ${db.host}/${lr}\n",
    )
    write("tree/db/mysql.yaml", "host: mysql.local\nport: 3306\nopts: {pool: 4}\n")
    write("tree/db/sqlite.yaml", "host: file\nport: 0\nopts: {pool: 1}\n")
    write("tree/model/small.yaml", "defaults:\n  - layers: two\n  - _self_\nwidth: 8\n")
    write("tree/model/large.yaml", "defaults:\n  - layers: two\n  - _self_\nwidth: 64\n")
    write("tree/model/layers/two.yaml", "count: 2\n")
    overrides = ["db=glob(*)", "model=small,large", "db.opts.pool=2,8"]
    runs = compose_hydra("tree", "config", overrides, multirun=True)
    assert len(runs) == 8
    assert sorted(config_reads) == sorted(set(config_reads))  # each config read once
    assert "model/layers/two" in config_reads and len(config_reads) == 6
    for job, config in runs:
        assert config == compose_hydra("tree", "config", job)
    assert runs[0][1]["db"]["opts"]["pool"] == 2 and runs[1][1]["db"]["opts"]["pool"] == 8


def test_a_job_changing_its_config_leaves_the_next_jobs_as_read(write: WriteFile) -> None:
    """The jobs share the files as the master read them: the merge copies what it keeps, so an
    override setting a list's element or a nested key in one job is not seen by the next."""
    write("conf/config.yaml", "defaults:\n  - _self_\n  - db: mysql\nxs: [1, 2]\n")
    write("conf/db/mysql.yaml", "opts:\n  pool: [4]\n  port: 1\n")
    runs = compose_hydra("conf", "config", ["xs.0=5,6", "db.opts.pool.0=7,8"], multirun=True)
    assert [(c["xs"], c["db"]["opts"]["pool"]) for _, c in runs] == [
        ([5, 2], [7]),
        ([5, 2], [8]),
        ([6, 2], [7]),
        ([6, 2], [8]),
    ]
    assert compose_hydra("conf", "config", [])["db"] == {"opts": {"pool": [4], "port": 1}}
