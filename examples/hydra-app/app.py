"""A small Hydra-style app: its config is a Hydra tree (`conf/`), composed by compose.

It is written as a Hydra user writes an app, one call where `@hydra.main(config_path="conf",
config_name="config")` would be: `cli(AppConfig, hydra="conf:config")` takes Hydra's command
line and gives the config, validated against `AppConfig`, which the app prints as JSON.

    python examples/hydra-app/app.py [OVERRIDE ...]
    python examples/hydra-app/app.py -m db=sqlite,postgresql optimizer=glob(*) [--dry-run]
    python examples/hydra-app/app.py --from-run runs/DATE_TIME/POINT [OVERRIDE ...]
    python examples/hydra-app/app.py --help

Overrides are Hydra's: `db=postgresql` (a group's option), `optimizer.lr=0.01` (a value),
`+experiment=long_run` (a group the defaults list does not name), `~trainer.seed` (a key
removed); `-cp`/`-cn`/`-cd` name another tree, as in Hydra. `-m`/`--multirun` makes each job a
point of a compose sweep, with its run record (runs/DATE_TIME/POINT/run.json: each `-m` a new
directory named by its start, unless `--sweep-name` names it), run by the executor
`--sweep-executor` names (none by default: records only); `--from-run` composes a point again.
Bad input (an unknown option, a key no config has, a value of the wrong type) is one error
naming the file and line or the override, exit status 2.
"""

from __future__ import annotations

import os
import sys
from typing import Literal

from pydantic import BaseModel, ConfigDict

from compose import cli


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
    """A training run configured by a Hydra tree (conf/)."""

    db: Database
    model: Model
    optimizer: Optimizer
    trainer: Trainer


def main() -> None:
    config = cli(AppConfig, hydra="conf:config")  # where Hydra's app has @hydra.main
    try:
        print(config.model_dump_json(), flush=True)
    except BrokenPipeError:  # `app.py ... | head -c 10`: the reader has gone; nothing to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no flush error at exit
        sys.exit(141)  # as `cli` ends its own output so (--help): 128 + SIGPIPE


if __name__ == "__main__":
    main()
