"""Shared fixtures and helpers.

Fixtures: TOML fixtures written into `tmp_path`, which is also the working directory, so that
file paths in messages are short and stable (`a.toml:3`).

Helpers, imported by test modules (`from conftest import run_command`): `run_cli`
(`run_cli_config` with `cli`'s other options, and the config) and
`run_compose` run an entrypoint or the `compose` command in this process; `run_command` and
`run_python` run a child process; `point_job`, `wait_until` and `all_in_state` build a
sweep's points by hand and wait for executors to run them; `cannot_run` skips a test whose
needs this machine lacks, or fails it in CI.

`@pytest.mark.needs("ray", ...)` marks a test that needs distributions of the dev extra (an
executor's engine, a tracker): where one is not installed the test is skipped, saying which
and why; under `CI=true` it fails instead, unless pyproject's dev pins leave that distribution
out on this Python (toml-rs on 3.10: no wheel). The pins are the one truth of what a Python
should have: they are read from the installed distribution's requirements.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from pydantic import BaseModel
from schemas import RLConfig

from compose import cli
from compose._cli.command import main as compose_main
from compose._runs.jobs import Job
from compose._runs.status import read_status, write_job
from compose._shortcuts import SHORTCUTS

M = TypeVar("M", bound=BaseModel)
WriteFile = Callable[[str, "str | bytes"], str]
APP_PREFIX = "RL_"  # the example app's `env_prefix`
TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent  # the checkout
VENV_BIN = Path(sys.executable).parent  # .venv/bin when run as `.venv/bin/python -m pytest`
COMPOSE = str(VENV_BIN / "compose")  # the installed console script

# Hypothesis, one profile for the suite and one for a deeper run (HYPOTHESIS_PROFILE=long):
# - default: derandomized, so CI, a rerun and a colleague see the same examples (and a
#   failure found once fails every time); so no example database. No deadline and no
#   too_slow check: how fast a loaded machine runs an example is not what a test checks.
# - long: fresh random examples, ten times as many, failures kept in .hypothesis/ and
#   replayed first, as a blob that `@reproduce_failure` takes.
# A test whose cost needs its own count says `max_examples=examples(N)`: N in the default
# profile, scaled with the profile.
_DEFAULT_EXAMPLES = 100
settings.register_profile(
    "default",
    max_examples=_DEFAULT_EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],  # and SHARING_TMP_PATH's, where it is used
)
settings.register_profile(
    "long",
    settings.get_profile("default"),
    max_examples=10 * _DEFAULT_EXAMPLES,
    derandomize=False,
    database=DirectoryBasedExampleDatabase(TESTS.parent / ".hypothesis" / "examples"),
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def examples(count: int) -> int:
    """`count` examples under the default profile, as many times more as the profile runs."""
    profile: int = settings().max_examples  # typed here: Hypothesis 6.168 (Python 3.10) says Any
    return max(1, count * profile // _DEFAULT_EXAMPLES)


# The health checks to suppress for a property whose examples write their files under the
# test's tmp_path, each under names of its own: the examples share the fixture on purpose.
SHARING_TMP_PATH = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under `COMPOSE_REFERENCE=1` (CI's second run) no shortcut is taken: a test that checks
    that one was (`@pytest.mark.shortcuts`) has nothing to check. Every other test holds
    both ways."""
    if SHORTCUTS:
        return
    skip = pytest.mark.skip(reason="COMPOSE_REFERENCE=1: no shortcut is taken")
    for item in items:
        if item.get_closest_marker("shortcuts") is not None:
            item.add_marker(skip)


# --- what a test needs installed -------------------------------------------------------------

PROJECT = "compose-config"  # the distribution whose dev extra pins what the suite runs against
DEV_EXTRA = "dev"


def cannot_run(reason: str, *, in_ci: bool = True) -> NoReturn:
    """Skip a test that cannot run here, saying why; under `CI=true` fail it instead, where
    CI can give it what it needs (`in_ci`): a skip there would pass off a test that never ran."""
    if in_ci and os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: CI must run this test)", pytrace=False)
    pytest.skip(reason)


def dev_pins(distribution: str, requirements: Sequence[str] | None = None) -> list[Requirement]:
    """The dev extra's pins of `distribution`, one for each range of Pythons.

    `requirements` are a distribution's requirement texts (default: this project's, as
    installed)."""
    if requirements is None:
        requirements = metadata.requires(PROJECT) or []
    pins = [Requirement(text) for text in requirements]
    return [
        pin
        for pin in pins
        if canonicalize_name(pin.name) == canonicalize_name(distribution)
        and f'extra == "{DEV_EXTRA}"' in str(pin.marker)  # packaging's spelling of a marker
    ]


def missing(distribution: str, requirements: Sequence[str] | None = None) -> tuple[str, bool]:
    """Why `distribution` is not here ('' where it is installed), and whether CI must have it:
    where a dev pin holds on this Python. A name no dev pin names fails (a misspelt need would
    skip for ever)."""
    pins = dev_pins(distribution, requirements)
    if not pins:
        pytest.fail(f"needs({distribution!r}): no dev pin of pyproject names it", pytrace=False)
    try:
        metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        pass
    else:
        return "", False
    python = f"Python {sys.version_info.major}.{sys.version_info.minor}"
    here = [pin for pin in pins if pin.marker and pin.marker.evaluate({"extra": DEV_EXTRA})]
    if not here:
        shown = "; ".join(str(pin) for pin in pins)
        return f"{distribution}: not for {python} (pyproject's dev pins: {shown})", False
    return (
        f"{distribution} is not installed: pyproject's dev pins hold "
        f"{here[0].name}{here[0].specifier} for {python}",
        True,
    )


def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker in item.iter_markers("needs"):
        for distribution in marker.args:
            reason, in_ci = missing(distribution)
            if reason:
                cannot_run(reason, in_ci=in_ci)


@pytest.fixture(autouse=True)
def _no_app_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """The example app reads `RL_*` variables: those of the shell running the tests must not
    change what a test composes, in-process or in a subprocess it starts."""
    for name in list(os.environ):
        if name.startswith(APP_PREFIX):
            monkeypatch.delenv(name)


@pytest.fixture(autouse=True)
def _no_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plain help fills $COLUMNS: the width of the shell running the tests must not change
    what a test reads (a test that means a width sets it)."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture(scope="session")
def _cache_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("compose-cache")


@pytest.fixture(autouse=True)
def _own_cache_dir(_cache_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Compose's caches (the docstring index) go to a directory of the suite's, never the real
    home's, in-process and in the subprocesses a test starts; and they are on, whatever the
    shell running the tests says."""
    monkeypatch.setenv("COMPOSE_CACHE_DIR", str(_cache_root))
    monkeypatch.delenv("COMPOSE_NO_CACHE", raising=False)
    return _cache_root


@pytest.fixture
def write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> WriteFile:
    """`write("a.toml", text)`: write a file under the working directory, return its name.

    Text is dedented (so fixtures can be indented in the test) and stripped of the leading
    newline; bytes are written as they are.
    """
    monkeypatch.chdir(tmp_path)

    def _write(name: str, content: str | bytes) -> str:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
        return name

    return _write


def run_cli(
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
    schema: type[BaseModel] = RLConfig,
    prog: str = "rl",
) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of `cli(schema, argv, prog=prog)` (0 when it returns)."""
    return run_cli_config(argv, capsys, schema, prog)[:3]


def run_cli_config(
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
    schema: type[M],
    prog: str,
    **options: Any,
) -> tuple[int, str, str, M | None]:
    """`run_cli` with `cli`'s other options (`hydra=`), and the config it gave (None when it
    exited)."""
    config = None
    try:
        config = cli(schema, argv, prog=prog, **options)
    except SystemExit as exit_:
        code = exit_.code
    else:
        code = 0
    out, err = capsys.readouterr()
    assert isinstance(code, int)
    return code, out, err, config


# A Hydra app's -m without --sweep-name is a new sweep named by the time it starts: pinned here
MULTIRUN_NOW = "2026-12-07T23:50:12"
MULTIRUN_NAME = "2026-12-07_23-50-12"  # its directory, below runs/


@pytest.fixture
def multirun_started(monkeypatch: pytest.MonkeyPatch) -> None:
    """$COMPOSE_NOW is `MULTIRUN_NOW`, here and in the processes a test starts: a Hydra app's
    `-m` makes its sweep in `runs/MULTIRUN_NAME`."""
    monkeypatch.setenv("COMPOSE_NOW", MULTIRUN_NOW)


@pytest.fixture
def config_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every config a Hydra tree's repository reads while the test runs, by its path in the
    tree (`db/mysql`), in order: a multirun reads each once."""
    from compose._input.hydra import repository  # Hydra tests only

    reads: list[str] = []
    real = repository.read_config

    def counted(path: str, shown: str, text: str) -> repository.Loaded:
        reads.append(path)
        return real(path, shown, text)

    monkeypatch.setattr(repository, "read_config", counted)
    return reads


def write_tree(write: WriteFile, files: Mapping[str, str], root: str = "conf") -> str:
    """A Hydra config tree of `files` (`{"config.yaml": TEXT, "db/a.yaml": TEXT}`) under `root`
    in the working directory; its directory, as `compose_hydra` takes it."""
    for name, text in files.items():
        write(f"{root}/{name}", text)
    return root


def run_compose(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of the `compose` command `compose ARGV`, in this process."""
    code = compose_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_command(
    argv: Sequence[str | bytes | os.PathLike[str]],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    input: str | None = None,
    timeout: float = 120,
) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of a child process.

    Text is UTF-8, and bytes that are not (a file name, say) come back as surrogate escapes
    instead of failing the decoding. `env` is the child's whole environment (default: this
    one's, without the shell's `RL_*`, see `_no_app_variables`). `timeout` is a hang guard:
    past it the child is killed and the test fails with `subprocess.TimeoutExpired`.
    """
    done = subprocess.run(
        argv,
        cwd=cwd,
        env=env,
        input=input,
        stdin=subprocess.DEVNULL if input is None else None,  # never the terminal's
        capture_output=True,
        encoding="utf-8",
        errors="surrogateescape",
        timeout=timeout,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def run_python(
    code: str,
    *args: str,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
) -> tuple[int, str, str]:
    """`python -c CODE ARGS` in a fresh interpreter (this one's): see `run_command`."""
    return run_command([sys.executable, "-c", code, *args], cwd=cwd, env=env, timeout=timeout)


def environ_with_tests(**extra: str) -> dict[str, str]:
    """This environment, with `tests/` and this interpreter's `sys.path` on PYTHONPATH (so that
    a child imports `schemas` as the tests do), and `extra` variables."""
    path = os.pathsep.join([str(TESTS), *sys.path])
    return {**os.environ, "PYTHONPATH": path, **extra}


# --- sweeps' points, as executors receive them --------------------------------------------


def point_job(
    sweep_dir: Path, name: str, code: str, *, env: Mapping[str, str] | None = None
) -> Job:
    """A point `name` of a sweep in `sweep_dir` whose command is `python -c CODE`, its
    job.json written (`write_job`), run from `sweep_dir`, as a sweep would hand it over."""
    job = Job(
        name=name,
        argv=(sys.executable, "-c", code),
        directory=str(sweep_dir / name),
        cwd=str(sweep_dir),
        env=dict(env or {}),
    )
    write_job(job)
    return job


def wait_until(condition: Callable[[], bool], what: str, *, seconds: float = 120) -> None:
    """Poll `condition` until it holds; past `seconds` (a hang guard, not a speed goal) the
    test fails saying what never happened."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"after {seconds:.0f} s, still not: {what}")
        time.sleep(0.05)


def all_in_state(jobs: Sequence[Job], state: str) -> Callable[[], bool]:
    """Whether every job's status.json says `state` (for `wait_until`)."""
    return lambda: all((read_status(job.directory) or {}).get("state") == state for job in jobs)
