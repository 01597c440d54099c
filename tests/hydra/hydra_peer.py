"""hydra-core's compose as a child process, for tests that compare `compose_hydra` with it.

Run with the side venv's python (hydra-core 1.3.8 on its own omegaconf, which the dev
environment's cannot be): one JSON request a line on stdin, `{"dir": ABSOLUTE_DIR, "name":
CONFIG_NAME, "overrides": [...]}`, one JSON answer a line on stdout: `{"config": {...}}` (the
composed config, resolved, Hydra's own node dropped) or `{"error": "ExceptionType: text"}`.
Imports nothing from compose or the tests.
"""

from __future__ import annotations

import importlib
import json
import sys
import warnings
from typing import Any


def answer(request: dict[str, Any]) -> dict[str, Any]:
    # the side venv's hydra-core, by name at run time: to mypy, `hydra` is this test folder
    hydra = importlib.import_module("hydra")
    from omegaconf import OmegaConf  # the side venv's omegaconf 2.3

    try:
        with hydra.initialize_config_dir(config_dir=request["dir"], version_base="1.3"):
            config = hydra.compose(config_name=request["name"], overrides=request["overrides"])
        found = OmegaConf.to_container(config, resolve=True)
    except Exception as error:  # any refusal is an answer: the test compares only its kind
        return {"error": f"{type(error).__name__}: {error}"}
    assert isinstance(found, dict)
    found.pop("hydra", None)
    return {"config": found}


def main() -> None:
    warnings.simplefilter("ignore")  # a primary without _self_ is warned of: not compared
    for line in sys.stdin:
        print(json.dumps(answer(json.loads(line))), flush=True)


if __name__ == "__main__":
    main()
