"""`executor = "submitit"`: the sweep is one `map_array` of `run_job` over the points, run for
real here by submitit's local executor (`cluster = "local"`): submit returns the job ids without
waiting, and every point finishes with its output in its log; submitit's files stay under the
sweep's directory; bad options and a missing extra are one error each, with nothing submitted."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import all_in_state, point_job, wait_until

from compose._runs.executors import open_executor
from compose._runs.status import read_status
from compose.errors import ComposeError


@pytest.mark.needs("submitit")
def test_the_points_run_as_one_array_and_finish(tmp_path: Path) -> None:
    jobs = [point_job(tmp_path, f"p{n}", f"print('point {n}')") for n in range(2)]
    options = {"cluster": "local", "timeout_min": 5}
    ids = open_executor("submitit", options, str(tmp_path)).submit(jobs)
    assert len(ids) == 2 and all(isinstance(job_id, str) and job_id for job_id in ids)
    wait_until(all_in_state(jobs, "finished"), "every point finished under submitit")
    for n, job in enumerate(jobs):
        assert (Path(job.directory) / "log.txt").read_text().splitlines()[1:] == [f"point {n}"]
    assert (tmp_path / "submitit").is_dir()  # submitit's pickles and logs: beside the points


@pytest.mark.needs("submitit")
def test_an_unknown_option_gets_a_did_you_mean_and_nothing_is_submitted(tmp_path: Path) -> None:
    job = point_job(tmp_path, "p1", "print('ran')")
    with pytest.raises(ComposeError) as raised:
        open_executor("submitit", {"slurm_partiton": "gpu"}, str(tmp_path)).submit([job])
    assert str(raised.value) == (
        "sweep.executor.slurm_partiton = 'gpu': is not an option of the executor 'submitit'; "
        "did you mean slurm_partition?"
    )
    assert read_status(job.directory) is None
    assert not (tmp_path / "submitit").exists()


@pytest.mark.needs("submitit")
def test_a_value_submitit_rejects_is_one_error_in_its_words(tmp_path: Path) -> None:
    with pytest.raises(ComposeError) as raised:
        open_executor("submitit", {"cluster": "local", "timeout_min": "ten"}, str(tmp_path))
    assert str(raised.value).startswith(
        "sweep.executor = {'cluster': 'local', 'timeout_min': 'ten'}: submitit rejects the "
        "options: "
    )
    assert "timeout_min" in raised.value.message


def test_without_the_extra_the_error_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As if submitit were not installed: its import fails (a None in sys.modules does that)."""
    monkeypatch.setitem(sys.modules, "submitit", None)
    monkeypatch.delitem(sys.modules, "compose._runs.executors.submitit", raising=False)
    with pytest.raises(ComposeError) as raised:
        open_executor("submitit", {"cluster": "local"}, str(tmp_path))
    assert str(raised.value) == (
        "executor 'submitit' needs the extra: pip install 'compose-config[submitit]'; "
        "cannot import submitit"
    )
