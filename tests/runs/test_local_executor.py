"""`executor = "local"`: submit returns at once with `local-<pid>-<i>` ids, every point runs
through `compose job` and finishes on its own (after the submitting process is gone), at most
`max_parallel` at a time; bad options are one error, before anything runs."""

from __future__ import annotations

import os
import re
import textwrap
from pathlib import Path

import pytest
from conftest import all_in_state, point_job, run_python, wait_until

from compose._runs.executors import open_executor
from compose._runs.status import read_status
from compose.errors import ComposeError


def test_every_point_runs_and_finishes_with_its_own_log(tmp_path: Path) -> None:
    jobs = [point_job(tmp_path, f"p{n}", f"print('point {n}')") for n in range(3)]
    ids = open_executor("local", {"max_parallel": 2}, str(tmp_path)).submit(jobs)
    assert len({re.fullmatch(r"local-(\d+)-\d", job_id)[1] for job_id in ids}) == 1  # type: ignore[index]
    assert [job_id.rsplit("-", 1)[1] for job_id in ids] == ["0", "1", "2"]
    wait_until(all_in_state(jobs, "finished"), "every point finished")
    for n, job in enumerate(jobs):
        assert (Path(job.directory) / "log.txt").read_text().splitlines()[1:] == [f"point {n}"]


def test_the_points_run_on_after_the_submitting_process_exits(tmp_path: Path) -> None:
    """The supervisor is detached: the points wait for a file made only once the process
    that submitted them has exited, and still finish."""
    go = tmp_path / "go"
    wait_for_go = (
        f"import pathlib, time\nwhile not pathlib.Path({str(go)!r}).exists(): time.sleep(0.05)"
    )
    jobs = [point_job(tmp_path, f"p{n}", wait_for_go) for n in range(2)]
    submitter = textwrap.dedent(f"""
        from compose._runs.executors import open_executor
        from compose._runs.status import read_job
        jobs = [read_job(d) for d in {[job.directory for job in jobs]!r}]
        print(open_executor("local", {{}}, {str(tmp_path)!r}).submit(jobs))
    """)
    code, out, err = run_python(submitter)
    assert (code, err) == (0, "")
    assert out.startswith("['local-")
    states = {(read_status(job.directory) or {}).get("state") for job in jobs}
    assert states <= {"submitted", "running"}  # marked at submission, before any could finish
    go.touch()
    wait_until(all_in_state(jobs, "finished"), "the points finished after the submitter exited")


def test_at_most_max_parallel_points_run_at_once(tmp_path: Path) -> None:
    """Each point counts the points running beside it (a file each in `running/`)."""
    running = tmp_path / "running"
    running.mkdir()
    count_others = textwrap.dedent(f"""
        import os, pathlib, sys, time
        mine = pathlib.Path({str(running)!r}) / os.environ["POINT"]
        mine.touch()
        time.sleep(0.3)
        print(len(os.listdir(mine.parent)))
        mine.unlink()
    """)
    jobs = [point_job(tmp_path, f"p{n}", count_others, env={"POINT": f"p{n}"}) for n in range(4)]
    open_executor("local", {"max_parallel": 1}, str(tmp_path)).submit(jobs)
    wait_until(all_in_state(jobs, "finished"), "every point finished")
    seen = [(Path(job.directory) / "log.txt").read_text().splitlines()[1] for job in jobs]
    assert seen == ["1", "1", "1", "1"]


def test_max_parallel_defaults_to_the_cpu_count(tmp_path: Path) -> None:
    executor = open_executor("local", {}, str(tmp_path))
    assert executor.max_parallel == (os.cpu_count() or 1)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"max_paralel": 2},
            "sweep.executor.max_paralel = 2: is not an option of the executor 'local'; "
            "did you mean max_parallel?",
        ),
        ({"max_parallel": "4"}, "sweep.executor.max_parallel = '4': expects an integer"),
        ({"max_parallel": True}, "sweep.executor.max_parallel = True: expects an integer"),
        ({"max_parallel": 0}, "sweep.executor.max_parallel = 0: expects at least 1"),
    ],
)
def test_bad_options_are_one_error_and_nothing_runs(
    tmp_path: Path, options: dict[str, object], message: str
) -> None:
    job = point_job(tmp_path, "p1", "print('ran')")
    with pytest.raises(ComposeError) as raised:
        open_executor("local", options, str(tmp_path)).submit([job])
    assert str(raised.value) == message
    assert read_status(job.directory) is None
