"""Instructions per call, counted by callgrind: figures that do not move with the machine's load.

Wall-clock ratios on a shared machine drift by a tenth between runs; an instruction count is the
same every time. It leaves out what instructions do not show (cache misses, the allocator's
pages), so the report gives it beside the wall-clock figures, never instead of them.

`count(spec)` runs `python counted.py SPEC_JSON` under `valgrind --tool=callgrind`, collecting
only inside `functools.reduce`: a C function callgrind can name, which this script calls once
around the counted calls. The interpreter's start, the imports, the set-up and two warm-up calls
are left out. Where valgrind is missing, or the interpreter's symbols are stripped (nothing is
collected), there is no figure.

A spec names what to call: `{"cell": CELL_SPEC}` (one system on one workload, as `worker.py`
runs it) or `{"rl_example": WORKDIR, "side": "compose" | "floor"}`.
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import peers
import worker

HERE = Path(__file__).resolve().parent
CALLS = 20  # fewer leave the count to a garbage collection more or less
TOGGLE = "functools_reduce"


def count(spec: dict[str, Any], timeout: float = 900.0) -> int | None:
    """Instructions per call of what `spec` names, or None where callgrind cannot count."""
    if shutil.which("valgrind") is None:
        return None
    command = [
        "valgrind",
        "--tool=callgrind",
        f"--toggle-collect={TOGGLE}",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        str(Path(__file__).resolve()),
        json.dumps(spec),
    ]
    try:
        done = subprocess.run(
            command, cwd=HERE, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return None
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None or int(found[1]) == 0:
        return None
    return int(found[1]) // CALLS


def _run_of(spec: dict[str, Any]) -> Callable[[], Any]:
    if "cell" in spec:
        cell = spec["cell"]
        return peers.system(cell["system"]).prepare(worker.make_job(cell))
    compose, floor, _ = peers.rl_example_runs(Path(spec["rl_example"]))
    return compose if spec["side"] == "compose" else floor


def main() -> None:
    warnings.simplefilter("ignore")
    call = _run_of(json.loads(sys.argv[1]))
    call()
    call()

    def counted(first: int, second: int) -> int:
        for _ in range(CALLS):
            call()
        return first

    functools.reduce(counted, [0, 1])  # calls `counted` once, with collection on


if __name__ == "__main__":
    main()
