"""`executor = "sbatch"`: jobs.txt and an `sbatch --array=0-(N-1)%K` script whose task N runs
the point on line N+1; the script's body really runs every point (as Slurm would, one
SLURM_ARRAY_TASK_ID each); with `sbatch` on PATH it is submitted (`--parsable`) and the ids are
`<array id>_<N>`, without it the ids are empty and the command to submit is printed (shell
quoted). No value becomes a line of the script: each is one quoted word of its `#SBATCH` line
or of the command (bash parses the script, and it holds exactly the lines expected), `%` of
the sweep's directory is doubled in `--output`, and a value that cannot be written so (a line
break, a control character) is one error naming the option and its FILE:LINE, before anything
is written or submitted."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import WriteFile, all_in_state, point_job, run_cli, run_command

from compose import BaseConfig
from compose._input.options import NO_OPTIONS
from compose._runs.command import run_sweep
from compose._runs.executors import open_executor
from compose._runs.jobs import Job
from compose._runs.status import read_status
from compose.errors import ComposeError

OPTIONS = {
    "partition": "gpu",
    "time": "04:00:00",
    "gpus": 8,
    "max_parallel": 2,
    "job_name": "lr-sweep",
    "setup": ["export SETUP_RAN=yes"],
    "sbatch_args": ["--account=abc"],
}


@pytest.fixture
def no_sbatch(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """A PATH without sbatch, whatever this machine has: only what the script's body needs."""
    bin_dir = tmp_path_factory.mktemp("bin")
    for tool in ("bash", "sed"):
        found = shutil.which(tool)
        assert found is not None, tool
        (bin_dir / tool).symlink_to(found)
    monkeypatch.setenv("PATH", str(bin_dir))


def _points(sweep: Path, count: int) -> list[Job]:
    code = "import os; print(os.environ.get('SETUP_RAN'), os.environ['SLURM_ARRAY_TASK_ID'])"
    return [point_job(sweep, f"p{n}", code) for n in range(count)]


@pytest.mark.usefixtures("no_sbatch")
def test_the_script_is_an_array_over_jobs_txt(tmp_path: Path) -> None:
    jobs = _points(tmp_path, 3)
    ids = open_executor("sbatch", OPTIONS, str(tmp_path)).submit(jobs)
    assert ids == ["", "", ""]
    assert (tmp_path / "jobs.txt").read_text().splitlines() == [job.directory for job in jobs]
    assert (tmp_path / "sweep.sbatch").read_text() == (
        "#!/bin/bash\n"
        f"# Written by compose: one array task per point of the sweep {tmp_path.name}.\n"
        "#SBATCH --job-name=lr-sweep\n"
        "#SBATCH --array=0-2%2\n"
        f"#SBATCH --output={tmp_path}/slurm-%A_%a.out\n"
        "#SBATCH --partition=gpu\n"
        "#SBATCH --time=04:00:00\n"
        "#SBATCH --gpus=8\n"
        "#SBATCH --account=abc\n"
        "set -e\n"
        "export SETUP_RAN=yes\n"
        f'dir=$(sed -n "$((SLURM_ARRAY_TASK_ID + 1))p" {tmp_path}/jobs.txt)\n'
        f'exec {sys.executable} -m compose job "$dir"\n'
    )


def test_without_sbatch_it_says_how_to_submit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_sbatch: None
) -> None:
    jobs = _points(tmp_path, 1)
    open_executor("sbatch", {}, str(tmp_path)).submit(jobs)
    script = tmp_path / "sweep.sbatch"
    assert capsys.readouterr().err == f"compose: wrote {script}; submit it with: sbatch {script}\n"
    assert "#SBATCH --array=0-0\n" in script.read_text()  # no %K unless asked for
    assert read_status(jobs[0].directory) is None  # nothing was submitted


@pytest.mark.usefixtures("no_sbatch")
def test_each_array_task_runs_its_point(tmp_path: Path) -> None:
    """The body as Slurm runs it: bash, with the task's index in SLURM_ARRAY_TASK_ID."""
    jobs = _points(tmp_path, 3)
    open_executor("sbatch", OPTIONS, str(tmp_path)).submit(jobs)
    for index in range(3):
        env = {**os.environ, "SLURM_ARRAY_TASK_ID": str(index)}
        assert run_command(["bash", str(tmp_path / "sweep.sbatch")], env=env) == (0, "", "")
    assert all_in_state(jobs, "finished")()
    for index, job in enumerate(jobs):
        assert (Path(job.directory) / "log.txt").read_text().splitlines()[1] == f"yes {index}"


def _fake_sbatch(bin_dir: Path, monkeypatch: pytest.MonkeyPatch, script: str) -> Path:
    bin_dir.mkdir()
    (bin_dir / "sbatch").write_text(f"#!/bin/sh\n{script}\n")
    (bin_dir / "sbatch").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    return bin_dir / "calls"


def test_with_sbatch_on_path_the_array_is_submitted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _fake_sbatch(
        tmp_path / "bin", monkeypatch, f'echo "$@" >> {tmp_path}/bin/calls\necho 4242'
    )
    sweep = tmp_path / "sweep"
    jobs = _points(sweep, 2)
    ids = open_executor("sbatch", {}, str(sweep)).submit(jobs)
    assert ids == ["4242_0", "4242_1"]
    assert calls.read_text() == f"--parsable {sweep}/sweep.sbatch\n"
    assert all_in_state(jobs, "submitted")()


def test_a_federated_clusters_id_drops_the_cluster_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_sbatch(tmp_path / "bin", monkeypatch, "echo '77;east'")
    ids = open_executor("sbatch", {}, str(tmp_path / "sweep")).submit(
        _points(tmp_path / "sweep", 1)
    )
    assert ids == ["77_0"]


def test_submit_false_only_writes_the_script(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = _fake_sbatch(tmp_path / "bin", monkeypatch, f"echo called > {tmp_path}/bin/calls")
    jobs = _points(tmp_path / "sweep", 1)
    assert open_executor("sbatch", {"submit": False}, str(tmp_path / "sweep")).submit(jobs) == [""]
    assert not calls.exists()
    assert "submit it with: sbatch " in capsys.readouterr().err


def test_a_refused_submission_is_one_error_and_no_point_is_marked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_sbatch(
        tmp_path / "bin", monkeypatch, "echo 'sbatch: error: invalid partition' >&2\nexit 1"
    )
    sweep = tmp_path / "sweep"
    jobs = _points(sweep, 2)
    with pytest.raises(ComposeError) as raised:
        open_executor("sbatch", {"partition": "nope"}, str(sweep)).submit(jobs)
    assert str(raised.value) == (
        f"sbatch refused {sweep}/sweep.sbatch: sbatch: error: invalid partition"
    )
    assert [read_status(job.directory) for job in jobs] == [None, None]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"partiton": "gpu"},
            "sweep.executor.partiton = 'gpu': is not an option of the executor 'sbatch'; "
            "did you mean partition?",
        ),
        (
            {"setup": "module load cuda"},
            "sweep.executor.setup = 'module load cuda': expects a list of strings",
        ),
        ({"max_parallel": 0}, "sweep.executor.max_parallel = 0: expects at least 1"),
    ],
)
def test_bad_options_are_one_error_before_anything_is_written(
    tmp_path: Path, options: dict[str, object], message: str
) -> None:
    with pytest.raises(ComposeError) as raised:
        open_executor("sbatch", options, str(tmp_path))
    assert str(raised.value) == message
    assert not (tmp_path / "sweep.sbatch").exists()


# --- no value becomes a line of the script ------------------------------------------------------


class Train(BaseConfig):
    lr: float = 1e-3


def _sweep_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`train ARGV` through `cli`, in sweep mode."""
    return run_cli(argv, capsys, Train, "train")


SWEEP_FILE = """\
[sweep]
dir = "runs"
command = ["{python}", "-c", "pass"]

[sweep.executor]
name = "sbatch"
{option}

[axes]
lr = [0.1, 0.2]
"""


def test_a_line_break_in_an_option_is_refused_naming_where_it_was_written(
    write: WriteFile,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """It would end the #SBATCH block (`--array` and `--output` lost) and be a line every
    array task runs."""
    calls = _fake_sbatch(tmp_path / "bin", monkeypatch, f"echo called >> {tmp_path}/bin/calls")
    option = 'job_name = "x\\ntouch PWNED\\n#"'
    write("sweep.toml", SWEEP_FILE.format(python=sys.executable, option=option))

    code, out, err = _sweep_cli(["--sweep", "@", "sweep.toml"], capsys)

    assert (code, out) == (2, "")
    assert err == (
        "error: sweep.executor.job_name = 'x\\ntouch PWNED\\n#' (from sweep.toml:7): cannot be "
        "written into sweep.sbatch: it holds a line break or a control character\n"
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bin", "sweep.toml"]
    assert not calls.exists()


CANNOT_BE_WRITTEN = (
    "cannot be written into sweep.sbatch: it holds a line break or a control character"
)


@pytest.mark.parametrize(
    ("option", "key", "value", "message"),
    [
        ('partition = "gpu\\r"', "partition", "gpu\r", CANNOT_BE_WRITTEN),
        ('mem = "32G\\u001b[2J"', "mem", "32G\x1b[2J", CANNOT_BE_WRITTEN),
        (
            'sbatch_args = ["--qos=high", "--account=a\\u0085b"]',
            "sbatch_args.1",
            "--account=a\x85b",
            CANNOT_BE_WRITTEN,
        ),
        (
            'python = "python3\\ntouch PWNED"',
            "python",
            "python3\ntouch PWNED",
            CANNOT_BE_WRITTEN,
        ),
        ('time = ""', "time", "", "expects a value, not an empty string"),
        (
            'setup = [\n  "module load cuda",\n  "source venv/bin/activate\\ntouch PWNED",\n]',
            "setup.1",
            "source venv/bin/activate\ntouch PWNED",
            "is one line of shell in sweep.sbatch: it holds a line break",
        ),
    ],
)
def test_every_option_the_script_holds_is_checked_before_anything_is_written(
    option: str,
    key: str,
    value: str,
    message: str,
    write: WriteFile,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = _fake_sbatch(tmp_path / "bin", monkeypatch, f"echo called >> {tmp_path}/bin/calls")
    write("sweep.toml", SWEEP_FILE.format(python=sys.executable, option=option))

    with pytest.raises(ComposeError) as raised:
        run_sweep(Train, ["--sweep", "@", "sweep.toml"], "train", NO_OPTIONS)

    error = raised.value
    assert (error.key, error.value, error.origin) == (
        f"sweep.executor.{key}",
        value,
        "sweep.toml:7",  # the option's line (an element of a list: the list's)
    )
    assert error.message == message
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bin", "sweep.toml"]
    assert not calls.exists()


@pytest.mark.parametrize(
    ("directory", "message"),
    [
        ("runs\ntouch PWNED", CANNOT_BE_WRITTEN),
        (
            "runs\\x",
            "cannot be Slurm's --output: Slurm reads a backslash as 'replace nothing'",
        ),
    ],
)
def test_a_sweep_directory_the_script_cannot_hold_is_refused_naming_its_flag(
    directory: str, message: str, write: WriteFile, tmp_path: Path
) -> None:
    """`--output` names it: a line break would end the #SBATCH line, and Slurm drops a
    backslash (and then replaces no %A_%a)."""
    write("sweep.toml", SWEEP_FILE.format(python=sys.executable, option=""))
    with pytest.raises(ComposeError) as raised:
        argv = ["--sweep", "@", "sweep.toml", "--sweep-dir", directory]
        run_sweep(Train, argv, "train", NO_OPTIONS)
    error = raised.value
    assert (error.key, error.value, error.origin) == (
        "sweep.dir",
        str(tmp_path / directory / "sweep"),
        "--sweep-dir",
    )
    assert error.message == f"the sweep's directory {message}"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["sweep.toml"]


def _awkward_sweep(tmp_path: Path) -> Path:
    """A sweep's directory with what a shell, sbatch's reader and Slurm's `%j` patterns each
    read their own way: a space, quotes, `#`, `%` and `$`."""
    sweep = tmp_path / 'it\'s 100%j "$HOME" #1'
    sweep.mkdir()
    return sweep


AWKWARD = {
    "job_name": "say \"hi\" #1 \\ 'ok'",
    "partition": "gpu",
    "sbatch_args": ["--comment=two words", "--qos=high"],
    "setup": ["export SETUP_RAN='yes, it ran' # a comment of its own"],
}


@pytest.mark.usefixtures("no_sbatch")
def test_awkward_values_are_each_one_word_and_bash_parses_the_script(tmp_path: Path) -> None:
    sweep = _awkward_sweep(tmp_path)
    jobs = _points(sweep, 2)

    open_executor("sbatch", AWKWARD, str(sweep)).submit(jobs)

    script = sweep / "sweep.sbatch"
    output = str(sweep).replace("%", "%%").replace('"', '\\"')  # as sbatch reads it back
    assert script.read_text().splitlines() == [
        "#!/bin/bash",
        f"# Written by compose: one array task per point of the sweep {sweep.name}.",
        '#SBATCH "--job-name=say \\"hi\\" #1 \\\\ \'ok\'"',
        "#SBATCH --array=0-1",
        f'#SBATCH "--output={output}/slurm-%A_%a.out"',
        "#SBATCH --partition=gpu",
        '#SBATCH "--comment=two words"',
        "#SBATCH --qos=high",
        "set -e",
        "export SETUP_RAN='yes, it ran' # a comment of its own",
        f'dir=$(sed -n "$((SLURM_ARRAY_TASK_ID + 1))p" {shlex.quote(str(sweep / "jobs.txt"))})',
        f'exec {shlex.quote(sys.executable)} -m compose job "$dir"',
    ]
    assert run_command(["bash", "-n", str(script)]) == (0, "", "")
    for index, job in enumerate(jobs):  # and the body runs each point, as Slurm would
        env = {**os.environ, "SLURM_ARRAY_TASK_ID": str(index)}
        assert run_command(["bash", str(script)], env=env) == (0, "", "")
        log = (Path(job.directory) / "log.txt").read_text().splitlines()
        assert log[1] == f"yes, it ran {index}"


def test_the_command_to_submit_is_shell_quoted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_sbatch: None
) -> None:
    sweep = _awkward_sweep(tmp_path)
    open_executor("sbatch", {}, str(sweep)).submit(_points(sweep, 1))
    said = capsys.readouterr().err
    assert said.startswith(f"compose: wrote {sweep}/sweep.sbatch; submit it with: ")
    command = said.removesuffix("\n").split("; submit it with: ", 1)[1]
    assert shlex.split(command) == ["sbatch", str(sweep / "sweep.sbatch")]


@pytest.mark.usefixtures("no_sbatch")
def test_a_point_directory_holding_a_line_break_is_refused_before_jobs_txt(
    tmp_path: Path,
) -> None:
    """Its line would shift every task after it onto the next point."""
    first, second = _points(tmp_path, 2)
    shifted = replace(second, directory=str(tmp_path / "p1\np2"))
    with pytest.raises(ComposeError) as raised:
        open_executor("sbatch", {}, str(tmp_path)).submit([first, shifted])
    assert str(raised.value) == (
        f"{shifted.directory!r} (from point p1): cannot be a line of jobs.txt: it holds a line "
        "break"
    )
    assert not (tmp_path / "jobs.txt").exists()
    assert not (tmp_path / "sweep.sbatch").exists()
