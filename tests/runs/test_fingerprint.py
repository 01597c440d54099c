"""The fingerprint's canonical form, pinned: a fixed schema and config hash to a literal, so any
change to what is hashed (the scheme line, key order, separators, JSON's escapes, which values
are left out) fails here before it renames every sweep's points and orphans their records."""

from __future__ import annotations

import hashlib
from pathlib import Path

from pydantic import SecretStr

from compose import BaseConfig, fingerprint, parse


class Optim(BaseConfig):
    lr: float = 0.001
    betas: list[float] = [0.9, 0.95]


class Pinned(BaseConfig):
    name: str = "café run"
    steps: int = 10
    optim: Optim = Optim()
    tags: dict[str, str] = {"b": "2", "a": "1"}
    token: SecretStr = SecretStr("")
    output_dir: Path = Path("out")


GOLDEN = "11b6e53f8cd1fe8ac6e465850d146a04032a406c38a0b03459f24e5729f99b87"
CANONICAL = (
    "compose-fingerprint-1\n"
    '{"name":"café run","optim":{"betas":[0.9,0.95],"lr":0.001},"output_dir":"out",'
    '"steps":10,"tags":{"a":"1","b":"2"}}'
)


def test_a_fixed_config_has_the_pinned_fingerprint() -> None:
    config = parse(Pinned, ["--token", "not-hashed"])
    assert fingerprint(config) == GOLDEN
    assert hashlib.sha256(CANONICAL.encode()).hexdigest() == GOLDEN  # what it is the hash of


def test_an_excluded_key_and_a_secret_are_left_out_of_it() -> None:
    config = parse(Pinned, ["--output-dir", "elsewhere", "--token", "other"])
    canonical = CANONICAL.replace('"output_dir":"out",', "")
    expected = hashlib.sha256(canonical.encode()).hexdigest()
    assert fingerprint(config, exclude=[("output_dir",)]) == expected
