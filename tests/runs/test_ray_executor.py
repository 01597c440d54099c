"""`executor = "ray"`: each point is a Ray Job (`python -m compose job DIR`), submitted for
real to a local head that the tests start and stop; the jobs succeed and the points' status
files say finished; a point submitted again gets the next attempt's id; an unreachable
cluster, an unknown option and a missing extra are one error each, with nothing submitted."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import point_job, wait_until

from compose._runs.executors import open_executor
from compose._runs.status import read_status
from compose.errors import ComposeError

RAY = str(Path(sys.executable).parent / "ray")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _answers(url: str) -> bool:
    with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=5) as response:
        return bool(response.status == 200)
    return False


@pytest.fixture(scope="module")
def ray_head() -> Iterator[str]:
    """A one-node Ray cluster of this machine with its dashboard (the job server), on free
    ports and a temporary directory of its own; its address. It is stopped whatever happens:
    its whole process group, by id (`ray stop` would stop every Ray of the machine)."""
    temp_dir = tempfile.mkdtemp(prefix="ray-")  # short: Ray's socket paths must fit 107 bytes
    dashboard = _free_port()
    command = [RAY, "start", "--head", "--block", "--disable-usage-stats", "--num-cpus", "2"]
    command += ["--port", str(_free_port()), "--temp-dir", temp_dir]
    command += ["--include-dashboard=true", "--dashboard-port", str(dashboard)]
    command += ["--ray-client-server-port", str(_free_port())]
    command += ["--dashboard-agent-listen-port", str(_free_port())]
    log = open(Path(temp_dir) / "ray-start.log", "wb")  # noqa: SIM115  # closed at teardown
    head = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    address = f"http://127.0.0.1:{dashboard}"
    try:
        wait_until(lambda: _answers(f"{address}/api/version"), f"Ray's dashboard at {address}")
        yield address
    finally:
        _stop_group(head)
        log.close()
        shutil.rmtree(temp_dir, ignore_errors=True)


def _stop_group(head: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the head's process group, then SIGKILL to what outlived a grace period (the
    GCS and the raylet do); the workers, in groups of their own, end with the raylet."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(head.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        head.wait(timeout=10)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(head.pid, signal.SIGKILL)
    head.wait(timeout=30)


@pytest.fixture
def no_ray_address(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ray lets $RAY_ADDRESS win over the address given: the shell's must not."""
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.delenv("RAY_API_SERVER_ADDRESS", raising=False)


@pytest.mark.ray
@pytest.mark.needs("ray")
@pytest.mark.usefixtures("no_ray_address")
def test_the_points_run_as_ray_jobs_and_finish(ray_head: str, tmp_path: Path) -> None:
    from ray.job_submission import JobStatus, JobSubmissionClient

    code = "import os; print('lr', os.environ['LR'])"
    jobs = [point_job(tmp_path, f"p{n}", code, env={"LR": f"0.{n}"}) for n in range(2)]
    executor = open_executor("ray", {"address": ray_head}, str(tmp_path))
    ids = executor.submit(jobs)
    assert ids == [f"{tmp_path.name}-p0-1", f"{tmp_path.name}-p1-1"]
    client = JobSubmissionClient(ray_head)
    done = {JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.STOPPED}
    wait_until(lambda: all(client.get_job_status(i) in done for i in ids), "the Ray jobs ended")
    assert [client.get_job_status(i) for i in ids] == [JobStatus.SUCCEEDED] * 2
    for n, job in enumerate(jobs):
        assert (read_status(job.directory) or {}).get("state") == "finished"
        assert (Path(job.directory) / "log.txt").read_text().splitlines()[1:] == [f"lr 0.{n}"]
    # the same point again: Ray refuses an id it has seen, so this is its second attempt
    assert executor.submit(jobs[:1]) == [f"{tmp_path.name}-p0-2"]


@pytest.mark.needs("ray")
@pytest.mark.usefixtures("no_ray_address")
def test_an_unreachable_cluster_is_one_error_and_nothing_is_submitted(tmp_path: Path) -> None:
    address = f"http://127.0.0.1:{_free_port()}"
    job = point_job(tmp_path, "p1", "print('ran')")
    with pytest.raises(ComposeError) as raised:
        open_executor("ray", {"address": address}, str(tmp_path)).submit([job])
    error = raised.value
    assert (error.key, error.value) == ("sweep.executor.address", address)
    assert error.message.startswith("cannot reach the Ray job server")
    assert error.hint is not None and "ray start --head" in error.hint
    assert read_status(job.directory) is None


@pytest.mark.needs("ray")
def test_an_unknown_option_gets_a_did_you_mean(tmp_path: Path) -> None:
    with pytest.raises(ComposeError) as raised:
        open_executor("ray", {"adress": "http://head:8265"}, str(tmp_path))
    assert str(raised.value) == (
        "sweep.executor.adress = 'http://head:8265': is not an option of the executor 'ray'; "
        "did you mean address?"
    )


def test_without_the_extra_the_error_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As if Ray were not installed: its import fails (a None in sys.modules does that)."""
    monkeypatch.setitem(sys.modules, "ray.job_submission", None)
    monkeypatch.delitem(sys.modules, "compose._runs.executors.ray", raising=False)
    with pytest.raises(ComposeError) as raised:
        open_executor("ray", {}, str(tmp_path))
    assert str(raised.value) == (
        "executor 'ray' needs the extra: pip install 'compose-config[ray]'; "
        "cannot import ray.job_submission"
    )
