"""A small Hydra-style app: its config is a Hydra tree (`conf/`), composed by compose.

    python examples/hydra-app/app.py [-m] [OVERRIDE ...]
    python examples/hydra-app/app.py --help       (or -h): this text

Overrides are Hydra's: `db=postgresql` (a group's option), `optimizer.lr=0.01` (a value),
`+experiment=long_run` (a group the defaults list does not name), `~trainer.seed` (a key
removed). `-m`/`--multirun` sweeps: `db=sqlite,postgresql optimizer=glob(*)` is four jobs.
Each job's config is validated against `AppConfig` and printed as JSON, one line a job.
Bad input (an unknown option, a key no config has, a value of the wrong type) is one error
naming the file and line or the override, exit status 2.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from compose import ComposeError, compose_hydra

CONF = Path(__file__).resolve().parent / "conf"


class Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Database(Closed):
    driver: Literal["sqlite", "postgresql"]
    host: str
    port: int
    name: str


class Model(Closed):
    name: str
    layers: int
    hidden: int
    dropout: float


class Optimizer(Closed):
    name: Literal["adam", "sgd"]
    lr: float
    weight_decay: float = 0.0
    momentum: float | None = None


class Trainer(Closed):
    epochs: int
    batch_size: int
    seed: int = 0
    out_dir: str


class AppConfig(Closed):
    db: Database
    model: Model
    optimizer: Optimizer
    trainer: Trainer


def configs(overrides: list[str], multirun: bool = False) -> list[tuple[list[str], AppConfig]]:
    """The jobs of a command line: one (its overrides, its config) outside multirun."""
    if multirun:
        jobs: list[tuple[list[str], AppConfig]] = compose_hydra(
            CONF, "config", overrides, schema=AppConfig, multirun=True
        )
        return jobs
    return [(overrides, compose_hydra(CONF, "config", overrides, schema=AppConfig))]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    try:
        return _run(args)
    except BrokenPipeError:  # `app.py ... | head`: the reader has gone; nothing left to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no flush error at exit
        return 0


def _run(args: list[str]) -> int:
    if any(arg in ("-h", "--help") for arg in args):  # a new user's first try: the usage
        print(__doc__.strip(), flush=True)
        return 0
    multirun = any(arg in ("-m", "--multirun") for arg in args)
    overrides = [arg for arg in args if arg not in ("-m", "--multirun")]
    try:
        jobs = configs(overrides, multirun)
    except ComposeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for _, config in jobs:
        print(config.model_dump_json(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
