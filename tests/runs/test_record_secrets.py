"""A record never holds a secret's value: run.json, manifest.jsonl and sweep.json keep a secret
field's value (from a flag, an axis, a sweep file or the environment) as its mask, or as its
`${oc.env:NAME}` reference, wherever in the argv, overrides, axes or definition it appears; only
the config a job reads holds it. A rerun of a record whose argv holds a mask builds on that
config, or says which value it cannot reproduce."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import SecretStr

from compose import BaseConfig, ComposeError, ComposeWarning, parse, sweep, write_sweep
from compose._runs.masked import masked_axes, masked_tokens
from compose._runs.rerun import from_run_argv

SECRETS = ("tok-alpha-1", "tok-beta-2", "flag-secret-3")


class Endpoint(BaseConfig):
    url: str = "http://localhost"
    token: SecretStr | None = None


class Job(BaseConfig):
    model: str = "small"
    seed: int = 0
    endpoint: Endpoint = Endpoint()
    mirrors: list[Endpoint] = []
    keys: dict[str, SecretStr] = {}
    output_dir: Path = Path("out")


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def _records(directory: Path) -> str:
    """Every record file of a sweep (not the configs), as one text."""
    names = ("run.json", "manifest.jsonl", "sweep.json", "job.json")
    return "".join(p.read_text() for p in sorted(directory.rglob("*")) if p.name in names)


def test_a_swept_secret_is_masked_in_every_record_and_held_by_the_configs_alone() -> None:
    Path("grid.toml").write_text(
        '[sweep]\noutput = "output_dir"\n\n[[zip]]\n'
        f'"endpoint.token" = ["{SECRETS[0]}", "{SECRETS[1]}"]\nmodel = ["small", "large"]\n'
    )
    made = sweep(
        Job,
        ["--endpoint.url", "http://api", f"--keys.main={SECRETS[2]}"],
        sweep_files=["grid.toml"],
        axes={"seed": ["1", "2"]},
        name="tokens",
        prog="job",
    )
    write_sweep(made)
    records = _records(made.directory)
    assert not any(secret in records for secret in SECRETS)
    assert "**********" in records
    configs = "".join(p.read_text() for p in made.directory.rglob("job.toml"))
    assert all(secret in configs for secret in SECRETS)
    point = json.loads((made.points[0].directory / "run.json").read_text())
    assert point["axes"] == {"endpoint.token": "**********", "model": "small", "seed": 1}
    assert point["argv"][:3] == ["--endpoint.url", "http://api", "--keys.main=**********"]
    definition = json.loads((made.directory / "sweep.json").read_text())
    assert definition["sweep"][0]["zip"][0]["endpoint.token"] == ["**********"] * 2


def test_an_environment_reference_is_kept_it_is_no_secret() -> None:
    tokens = ["--endpoint.token=${oc.env:API_TOKEN}", "--keys.a", "${oc.env:A,x}", "--seed", "3"]
    assert masked_tokens(Job, tokens) == tokens
    assert masked_axes(Job, {"endpoint.token": "${oc.env:API_TOKEN}"}) == {
        "endpoint.token": "${oc.env:API_TOKEN}"
    }


def test_a_section_or_list_that_holds_secrets_is_masked_key_by_key() -> None:
    value = {"url": "http://m", "token": SECRETS[0]}
    assert masked_axes(Job, {"endpoint": value, "mirrors": [value]}) == {
        "endpoint": {"url": "http://m", "token": "**********"},
        "mirrors": [{"url": "http://m", "token": "**********"}],
    }
    assert masked_tokens(Job, ["--mirrors", json.dumps([value])]) == ["--mirrors", "**********"]
    assert masked_axes(Job, {"endpoint": "@endpoints/prod"}) == {"endpoint": "@endpoints/prod"}


def test_a_rerun_of_a_masked_argv_builds_on_the_resolved_config_or_names_what_it_cannot() -> None:
    made = sweep(Job, [f"--endpoint.token={SECRETS[0]}"], axes={"seed": ["1"]}, prog="job")
    write_sweep(made)
    point = made.points[0].directory
    with pytest.warns(ComposeWarning, match="holds the secret of --endpoint.token, which run.json"):
        argv = from_run_argv(["--from-run", str(point)], "job")
    assert argv == ["@", str(point / "configs" / "job.toml")]
    config = parse(Job, argv)
    assert config.endpoint.token is not None
    assert config.endpoint.token.get_secret_value() == SECRETS[0]
    (point / "configs" / "job.toml").unlink()
    with pytest.raises(
        ComposeError, match=r"secret of --endpoint.token, .* gone too: it cannot be"
    ):
        from_run_argv(["--from-run", str(point)], "job")
