"""Cold start: whole processes, timed from outside like hyperfine (warm-up runs, then the median).

Every round runs each command once, in turn (the order reversed every other round), so that
load from other work, and the cost of running first or later, fall on all of them alike; a
program is judged against its baseline by the median of its per-round differences. The CPU
time of each run (user + system, from the child's resource usage) is kept too, and where
valgrind is installed the instructions of the judged programs and their baselines are counted
once with callgrind: a figure that does not move with the machine's load.

The entrypoints are generated beside the schema: `entry_compose.py` calls `compose.cli` on the
~500-field schema (`--dry-run --output-dir DIR` emulates prime-rl's dry run: parse, then write
the resolved config with `write_configs`); `baseline.py` imports Pydantic and builds the same
classes on a plain `BaseModel`; `entry_prime.py` is the same program on prime-pydantic-config.
An `rl` console script in the venv, and the example entrypoints, are timed when present, with
the dry run's floor (`floor_dry_run.py`: what any dry run with a run record must do, in plain
Python) in the dry run's own rounds.
"""

from __future__ import annotations

import importlib.util
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from workloads import BASELINE_MODULE, SCHEMA_MODULE, to_toml, typed_tree

REPO = Path(__file__).resolve().parent.parent
T = TypeVar("T")

ENTRY_COMPOSE = f'''"""Generated: a compose entrypoint on the benchmark schema."""

import sys

from {SCHEMA_MODULE} import BenchConfig

from compose import cli, write_configs


def main() -> None:
    argv = sys.argv[1:]
    output_dir = None
    if "--dry-run" in argv:
        argv.remove("--dry-run")
    if "--output-dir" in argv:
        at = argv.index("--output-dir")
        output_dir = argv[at + 1]
        del argv[at : at + 2]
    config = cli(BenchConfig, argv)
    if output_dir is not None:
        write_configs(output_dir, {{"config": config}})


main()
'''

ENTRY_PRIME = f'''"""Generated: the same entrypoint on prime-pydantic-config."""

from {BASELINE_MODULE} import BenchConfig
from pydantic_config import cli

cli(BenchConfig)
'''

BASELINE = f'''"""Generated: import Pydantic and build the schema classes, nothing else."""

import {BASELINE_MODULE}  # noqa: F401
'''


SHIM = '''"""Generated: `compose` as plain Pydantic, so the rl example's classes build alone.

Registered as `compose` in `sys.modules` by the baseline command: an editable install of compose
finds the real package before anything on PYTHONPATH."""

from pydantic import BaseModel, ConfigDict


class BaseConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")


def renamed(mapping):
    return lambda cls: cls


# The schema's migrations (docs/18) are compose's: here they declare nothing
def versioned(*migrations):
    return lambda cls: cls


def Migration(*steps):
    return steps


def move_key(*names):
    return names


def remove_key(*names):
    return names
'''


# The least any dry run with a run record does, in plain Python on the same schema: read the
# file with the native parser, validate, write the four TOML files (tmp + rename, a minimal
# emitter) and run.json (the source's digest, `git status` started first and read last). No
# flags, search path, environment, interpolation, origins, fingerprint or error handling: what
# compose does beyond this is what its dry run costs past the floor's.
DRY_RUN_FLOOR_SCRIPT = """\"\"\"Generated: the floor of `rl @ FILE --dry-run`.\"\"\"

import sys

from rl_app.config.rl import RLConfig  # the schema, as the baseline imports it

import hashlib
import json
import os
import re
import subprocess
from pathlib import Path

try:  # the floor's parser, as in the grid (peers.native_toml)
    from toml_rs import loads
except ImportError:
    from tomli import loads

GIT = ["git", "--no-optional-locks", "status", "--porcelain=v2", "--branch", "-uno"]
BARE = re.compile(r"[A-Za-z0-9_-]+")


def value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(value(x) for x in v) + "]"
    if isinstance(v, dict):
        pairs = (f"{key(k)} = {value(x)}" for k, x in v.items() if x is not None)
        return "{" + ", ".join(pairs) + "}"
    return json.dumps(str(v))


def key(k):
    return k if BARE.fullmatch(k) else json.dumps(k)


def dump(data, prefix=""):
    leaves = {k: v for k, v in data.items() if v is not None and not isinstance(v, dict)}
    lines = [f"{key(k)} = {value(v)}" for k, v in leaves.items()]
    text = "\\n".join(lines) + "\\n"
    for k, v in data.items():
        if isinstance(v, dict):
            name = f"{prefix}.{key(k)}" if prefix else key(k)
            text += f"\\n[{name}]\\n" + dump(v, name)
    return text


def write(path, text):
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


def main():
    source, out = sys.argv[1], Path(sys.argv[2])
    git = subprocess.Popen(GIT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    raw = Path(source).read_bytes()
    data = loads(raw.decode())
    data.update(dry_run=True, output_dir=str(out))
    config = RLConfig.model_validate(data)
    (out / "configs").mkdir(parents=True, exist_ok=True)
    for name, model in {"rl": config, **config.components()}.items():
        write(out / "configs" / f"{name}.toml", dump(model.model_dump(mode="json")))
    status, _ = git.communicate()
    record = {"argv": sys.argv[1:], "sources": {source: hashlib.sha256(raw).hexdigest()}}
    record["git"] = status.decode(errors="replace")
    write(out / "run.json", json.dumps(record, indent=2))
    print("dry run: nothing started")


main()
"""

# The names of the programs the cold goal pairs (the report judges the first pair)
RL_HELP = "rl --help"
RL_DRY_RUN = "rl @ examples/reverse_text/rl.toml --dry-run"
RL_BASELINE = "rl baseline: import pydantic + build rl_app schema"
# The baseline the issue names for the dry run: the schema module as its author wrote it, on
# compose's BaseConfig (so compose's package, its errors and BaseConfig's validator are in both)
RL_SCHEMA = "rl schema as written: python -c 'import rl_app.config'"
DRY_RUN_FLOOR = "the dry run's floor: toml-rs, validate, 4 TOML files, run.json with git"
GEN_HELP = "compose entry --help"
GEN_BASELINE = "baseline: import pydantic + build schema"


@dataclass(frozen=True)
class Command:
    name: str
    argv: list[str]
    what: str
    pythonpath: tuple[str, ...] = ()
    cwd: Path | None = None  # where it runs, if not in the work directory


@dataclass
class Timing:
    name: str
    what: str
    command: str
    median_s: float | None = None
    min_s: float | None = None
    runs: int = 0
    error: str | None = None
    samples: list[float] = field(default_factory=list)  # wall seconds, one per timed round
    cpu_samples: list[float] = field(default_factory=list)  # user + system seconds
    instructions: int | None = None  # callgrind's count, where valgrind is installed
    # The judged pair's own rounds (the two programs alone, in alternating order), kept apart
    # from the rounds of every program: the goal is judged on these.
    pair_samples: list[float] = field(default_factory=list)
    pair_cpu_samples: list[float] = field(default_factory=list)
    paired_with: str | None = None  # the other programs of those rounds (`partners`)


# The rl baseline: the example's schema classes on plain Pydantic, with none of compose loaded.
SHIM_THEN_SCHEMA = (
    "import sys, _compose_shim; sys.modules['compose'] = _compose_shim; "
    "import rl_app.config.rl; assert not any(m.startswith('compose.') for m in sys.modules)"
)


def write_entrypoints(directory: Path) -> None:
    """Scripts beside `bench_schema.py`; a config file with every schema leaf set."""
    (directory / "entry_compose.py").write_text(ENTRY_COMPOSE)
    (directory / "entry_prime.py").write_text(ENTRY_PRIME)
    (directory / "baseline.py").write_text(BASELINE)
    (directory / "config.toml").write_text(to_toml(typed_tree(0, 500)))
    shim = directory / "shim"
    shim.mkdir(parents=True, exist_ok=True)
    (shim / "_compose_shim.py").write_text(SHIM)
    (directory / "floor_dry_run.py").write_text(DRY_RUN_FLOOR_SCRIPT)


def commands(directory: Path, output_dir: Path, quick: bool) -> list[Command]:
    python = sys.executable
    found = [
        Command("python -c 'import pydantic'", [python, "-c", "import pydantic"], "reference"),
        Command(GEN_BASELINE, [python, "baseline.py"], "floor"),
        Command("python -c 'import compose'", [python, "-c", "import compose"], "reference"),
        Command(GEN_HELP, [python, "entry_compose.py", "--help"], "compose"),
        # what prime's entry does (parse and validate, write nothing), beside its row below
        Command(
            "compose entry @ config.toml",
            [python, "entry_compose.py", "@", "config.toml"],
            "compose",
        ),
        Command(
            "compose entry @ config.toml --dry-run",
            [
                python,
                "entry_compose.py",
                "@",
                "config.toml",
                "--dry-run",
                "--output-dir",
                str(output_dir),
            ],
            "compose",
        ),
    ]
    if not quick and importlib.util.find_spec("pydantic_config") is not None:
        found += [
            Command("prime entry --help", [python, "entry_prime.py", "--help"], "peer"),
            Command(
                "prime entry @ config.toml", [python, "entry_prime.py", "@", "config.toml"], "peer"
            ),
        ]
    if quick:  # enough to see that every entrypoint runs
        return [found[0], found[1], found[3], *rl_commands(directory, output_dir)]
    return found + rl_commands(directory, output_dir)


def rl_commands(directory: Path, output_dir: Path) -> list[Command]:
    """`rl` (the console script, else `python -m rl_app rl`) and its plain-Pydantic baseline,
    when the example app (`examples/rl-app`) is installed."""
    if importlib.util.find_spec("rl_app") is None:
        return []
    examples = REPO / "examples"
    python = sys.executable
    script = Path(python).parent / "rl"
    rl = [str(script)] if script.exists() else [python, "-m", "rl_app", "rl"]
    found = [
        Command(
            RL_BASELINE,
            [python, "-c", SHIM_THEN_SCHEMA],
            "floor",
            (str(directory / "shim"),),
        ),
        Command(RL_SCHEMA, [python, "-c", "import rl_app.config"], "floor", cwd=REPO),
        Command(RL_HELP, [*rl, "--help"], "compose"),
    ]
    example = examples / "reverse_text" / "rl.toml"
    if not example.exists():
        example = next(iter(sorted(examples.glob("*/rl.toml"))), example)
    if example.exists():  # from the checkout, as the issue runs it (its record asks its git)
        shown = example.relative_to(REPO).as_posix()
        argv = [*rl, "@", shown, "--dry-run", "--output-dir", str(output_dir / "rl")]
        found.append(Command(f"rl @ {shown} --dry-run", argv, "compose", cwd=REPO))
        floor = [python, str(directory / "floor_dry_run.py"), shown, str(output_dir / "floor")]
        found.append(Command(DRY_RUN_FLOOR, floor, "floor", cwd=REPO))
    return found


def process_env(command: Command, cwd: Path) -> dict[str, str]:
    """Bytecode caches and compose's own (the docstring index) on, as users have them, kept
    under the work directory (not the repo, not the home directory)."""
    unset = ("PYTHONDONTWRITEBYTECODE", "COMPOSE_NO_CACHE")
    env = {key: value for key, value in os.environ.items() if key not in unset}
    env.update(
        NO_COLOR="1",
        PYTHONPYCACHEPREFIX=str(cwd / "pycache"),
        COMPOSE_CACHE_DIR=str(cwd / "compose-cache"),
    )
    if command.pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(command.pythonpath)
    return env


def in_turn(programs: list[T], round_: int) -> list[T]:
    """The order of a round: as listed, reversed every other round, so that running first or
    later costs every program alike (here the second of two like processes ran ~10 ms slower)."""
    return programs if round_ % 2 == 0 else programs[::-1]


def time_commands(commands: list[Command], cwd: Path, runs: int, warmup: int) -> list[Timing]:
    """Rounds of every command in turn (so load from other work hits them all alike): warm-up
    rounds, which also write the bytecode caches, then `runs` timed rounds, `in_turn` (a fixed
    order, each baseline just before its program, added ~10 ms to every difference)."""
    timings = [Timing(c.name, c.what, " ".join(c.argv[1:])) for c in commands]
    pairs = list(zip(commands, timings, strict=True))
    for round_ in range(warmup + runs):
        for command, timing in in_turn(pairs, round_):
            if timing.error is None:
                measured = run_once(command, cwd, timing)
                if round_ >= warmup and measured is not None:
                    timing.samples.append(measured[0])
                    timing.cpu_samples.append(measured[1])
    for timing in timings:
        if timing.samples and timing.error is None:
            timing.median_s, timing.min_s = statistics.median(timing.samples), min(timing.samples)
            timing.runs = len(timing.samples)
    return timings


def run_once(command: Command, cwd: Path, timing: Timing) -> tuple[float, float] | None:
    """Wall and CPU seconds of one run (CPU: the child's user + system time)."""
    env = process_env(command, cwd)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    where = command.cwd or cwd
    done = subprocess.run(command.argv, cwd=where, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        timing.error = f"exit {done.returncode}: {done.stderr.decode()[-400:]}"
        return None
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return elapsed, cpu


# The programs judged against a baseline, and the baselines: what callgrind counts.
COUNTED = {RL_HELP, RL_DRY_RUN, RL_BASELINE, RL_SCHEMA, DRY_RUN_FLOOR, GEN_HELP, GEN_BASELINE}


def count_instructions(commands: list[Command], timings: list[Timing], cwd: Path) -> None:
    """Callgrind's instruction count for each program in COUNTED that ran (about 20 s each)."""
    if shutil.which("valgrind") is None:
        return
    for command, timing in zip(commands, timings, strict=True):
        if command.name not in COUNTED or timing.error is not None:
            continue
        argv = (
            command.argv if command.argv[0] == sys.executable else [sys.executable, *command.argv]
        )
        valgrind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv]
        done = subprocess.run(
            valgrind,
            cwd=command.cwd or cwd,
            env=process_env(command, cwd),
            capture_output=True,
            text=True,
            check=False,
        )
        found = re.search(r"Collected : (\d+)", done.stderr)
        if done.returncode == 0 and found is not None:
            timing.instructions = int(found[1])


def run_all(
    directory: Path, runs: int, warmup: int, quick: bool, goal_rounds: int = 0
) -> list[Timing]:
    write_entrypoints(directory)
    output_dir = directory / "dry-run-out"
    found = commands(directory, output_dir, quick)
    timings = time_commands(found, directory, runs, warmup)
    time_goal_pair(found, timings, directory, goal_rounds)
    if not quick:
        count_instructions(found, timings, directory)
    return timings


# The judged pairs: the goal is a difference of ~10 ms between two ~150 ms programs on a machine
# whose runs of one program spread by ±40 ms, so each gets rounds of its own, free of the other
# programs (prime's --help alone takes 5 s a run). The dry run's floor runs in its pair's rounds:
# the dry run is read against it on the same rounds.
GOAL_PAIRS = ((RL_BASELINE, RL_HELP), (RL_SCHEMA, RL_DRY_RUN, DRY_RUN_FLOOR))
# `Timing.paired_with` names the others of its group, one a line (names hold no newline)
PARTNERS = "\n"


def time_goal_pair(commands: list[Command], timings: list[Timing], cwd: Path, rounds: int) -> None:
    """`rounds` rounds of each judged group alone, `in_turn`, into their `pair_samples`."""
    by_name = {c.name: (c, t) for c, t in zip(commands, timings, strict=True)}
    for names in GOAL_PAIRS:
        group = [by_name[name] for name in names if name in by_name]
        if rounds > 0 and len(group) >= 2 and all(t.error is None for _, t in group):
            _time_group(group, cwd, rounds)


def _time_group(group: list[tuple[Command, Timing]], cwd: Path, rounds: int) -> None:
    for _, timing in group:
        timing.paired_with = PARTNERS.join(t.name for _, t in group if t is not timing)
    for round_ in range(rounds):
        for command, timing in in_turn(group, round_):
            measured = run_once(command, cwd, timing)
            if measured is None:  # the error is kept on the timing, and reported
                return
            timing.pair_samples.append(measured[0])
            timing.pair_cpu_samples.append(measured[1])


def partners(timing: Timing) -> list[str]:
    """The programs that ran `timing`'s own rounds with it."""
    return timing.paired_with.split(PARTNERS) if timing.paired_with else []


# `rl`'s dry run as `rl_app.cli.rl` makes it, each phase ended by `os.getppid()`: callgrind
# dumps its counts there (`--dump-before=getppid`), so each phase's instructions come apart.
PHASED_DRY_RUN = """import os
os.getppid()
import rl_app.cli as app
os.getppid()
tokens = ["@", "examples/reverse_text/rl.toml", "--dry-run", "--output-dir", {out!r}]
config = app.cli(
    app.RLConfig, tokens, prog="rl", search_path=[app.CONF], env_prefix=app.ENV_PREFIX
)
os.getppid()
app.write_configs(config.output_dir, {{"rl": config, **config.components()}})
os.getppid()
from compose import write_run_record
write_run_record(
    config.output_dir, config, tokens, prog="rl", search_path=[app.CONF],
    env_prefix=app.ENV_PREFIX,
)
os.getppid()
"""
PHASED_SCHEMA = "import os\nos.getppid()\nimport rl_app.config\nos.getppid()\n"
PHASES = (
    "interpreter start",
    "import the entrypoint (the baseline: the schema)",
    "compose: cli()",
    "write_configs: four TOML files",
    "write_run_record: run.json (origins, fingerprint, git)",
)
TEARDOWN = "interpreter teardown"


def phase_split(directory: Path) -> str:
    """The rl dry run's instructions by phase, beside `import rl_app.config`'s (markdown), or
    why there are none."""
    if shutil.which("valgrind") is None or importlib.util.find_spec("rl_app") is None:
        return "No phase split: it needs valgrind and the rl example installed.\n"
    out = directory / "phases-out"
    dry = _phase_counts(directory, "dry", PHASED_DRY_RUN.format(out=str(out)))
    schema = _phase_counts(directory, "schema", PHASED_SCHEMA)
    if dry is None or schema is None or len(dry) != len(PHASES) + 1 or len(schema) != 3:
        return "No phase split: callgrind gave no counts for every phase.\n"
    baseline = {PHASES[0]: schema[0], PHASES[1]: schema[1], TEARDOWN: schema[2]}
    rows = ["| phase | rl dry run | import rl_app.config | difference |", "|---|---:|---:|---:|"]
    for name, count in zip((*PHASES, TEARDOWN), dry, strict=True):
        base = baseline.get(name)
        extra = count - (base or 0)  # a phase the baseline has not: all of it is extra
        shown = "" if base is None else f"{base / 1e6:.1f}M"
        rows.append(f"| {name} | {count / 1e6:.1f}M | {shown} | {extra / 1e6:+.1f}M |")
    total, base_total = sum(dry), sum(schema)
    rows.append(
        f"| **whole process** | {total / 1e6:.1f}M | {base_total / 1e6:.1f}M | "
        f"{(total - base_total) / 1e6:+.1f}M |"
    )
    return "\n".join(rows) + "\n"


def _phase_counts(directory: Path, name: str, script: str) -> list[int] | None:
    """Callgrind's count of each part of `script` between `os.getppid()` calls, the part after
    the last one (the teardown) last; run from the checkout, as the rl commands are."""
    parts = directory / f"phases-{name}"
    shutil.rmtree(parts, ignore_errors=True)
    parts.mkdir(parents=True)
    (parts / "phased.py").write_text(script)
    command = Command(name, [sys.executable, str(parts / "phased.py")], "", cwd=REPO)
    valgrind = [
        "valgrind",
        "--tool=callgrind",
        "--dump-before=getppid",
        f"--callgrind-out-file={parts / 'cg.out'}",
        *command.argv,
    ]
    env = process_env(command, directory)
    for argv in (command.argv, valgrind):  # the first run writes the bytecode caches
        done = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, check=False)
        if done.returncode != 0:
            return None
    dumps = sorted(parts.glob("cg.out.*"), key=lambda path: int(path.suffix[1:]))
    counts = [_summary(path) for path in [*dumps, parts / "cg.out"]]
    return None if None in counts else [count for count in counts if count is not None]


def _summary(path: Path) -> int | None:
    found = re.search(r"^summary: (\d+)", path.read_text(errors="replace"), re.MULTILINE)
    return int(found[1]) if found else None


def import_profile(directory: Path, top: int = 25) -> str:
    """`python -X importtime -c 'import compose'`: the modules with the largest own time."""
    command = Command(
        "importtime", [sys.executable, "-X", "importtime", "-c", "import compose"], ""
    )
    done = subprocess.run(
        command.argv,
        env=process_env(command, directory),
        cwd=directory,
        capture_output=True,
        text=True,
        check=False,
    )
    rows = []
    for line in done.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[0].strip().isdigit():
            rows.append((int(parts[0]), int(parts[1]), parts[2].rstrip()))
    rows.sort(reverse=True)
    lines = [
        f"python -X importtime -c 'import compose': top {top} by own time",
        "",
        f"{'self us':>9} {'cumul us':>9}  module",
    ]
    lines += [f"{own:>9} {cumulative:>9}  {name}" for own, cumulative, name in rows[:top]]
    total = max((cumulative for _, cumulative, _ in rows), default=0)
    return "\n".join([*lines, "", f"largest cumulative: {total} us"]) + "\n"


def help_profile(directory: Path, top: int = 40) -> str:
    """cProfile of the whole `entry_compose.py --help` process (imports included)."""
    argv = [sys.executable, "-m", "cProfile", "-s", "cumulative", "entry_compose.py", "--help"]
    done = subprocess.run(
        argv,
        env=process_env(Command("profile", argv, ""), directory),
        cwd=directory,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = done.stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if "function calls" in line), 0)
    return "\n".join(lines[start : start + top + 8]) + "\n"
