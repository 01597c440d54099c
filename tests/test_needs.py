"""`@pytest.mark.needs(...)` (tests/conftest.py): a test needing a distribution of the dev extra
is skipped where it is missing, saying which and why, and fails instead under `CI=true` where
pyproject's dev pins hold it for this Python; where they leave it out (no wheel for this
Python), CI skips it too. The pins are read from the requirements given here, written for the
test: one holds on every Python, one on none."""

from __future__ import annotations

import pytest
from conftest import cannot_run, missing

ABSENT = "compose-absent-distribution"  # installed nowhere
PINNED_HERE = [f'{ABSENT}==1.0; python_version >= "3" and extra == "dev"']
PINNED_ELSEWHERE = [f'{ABSENT}==1.0; python_version < "3" and extra == "dev"']


def test_missing_where_the_pins_hold_it_skips_for_a_developer_and_fails_in_ci(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reason, in_ci = missing(ABSENT, PINNED_HERE)
    assert in_ci
    assert reason.startswith(f"{ABSENT} is not installed: pyproject's dev pins hold {ABSENT}==1.0")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=ABSENT):
        cannot_run(reason, in_ci=in_ci)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true: CI must run this test"):
        cannot_run(reason, in_ci=in_ci)


def test_missing_where_the_pins_leave_it_out_skips_in_ci_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reason, in_ci = missing(ABSENT, PINNED_ELSEWHERE)
    assert not in_ci
    assert reason.startswith(f"{ABSENT}: not for Python 3.")
    assert 'python_version < "3"' in reason  # the pin that says why
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.skip.Exception, match=ABSENT):
        cannot_run(reason, in_ci=in_ci)


def test_an_installed_distribution_is_not_missing() -> None:
    assert missing("pytest", ['pytest==1; extra == "dev"']) == ("", False)


def test_a_need_no_dev_pin_names_fails() -> None:
    """A misspelt need (`mlflow` for `mlflow-skinny`) would skip for ever: it fails."""
    with pytest.raises(pytest.fail.Exception, match="no dev pin of pyproject names it"):
        missing("mlflow", ['mlflow-skinny==3; extra == "dev"', 'mlflow==3; extra == "bench"'])


def test_the_pins_of_this_checkout_are_what_conftest_reads() -> None:
    """Every distribution a test needs is pinned by the installed project's dev extra."""
    for distribution in ("ray", "submitit", "wandb", "optuna", "mlflow-skinny", "toml-rs"):
        reason, _ = missing(distribution)
        assert reason == "" or distribution in reason
