"""Differential test: every corpus case resolved by OmegaConf and by `resolve_tree` must agree.

OmegaConf runs `OmegaConf.create(data)` then `to_container(resolve=True, throw_on_missing=True)`
(`throw_on_missing` because a `???` left at the end is an error for us too). Agreeing means the
same output, or both raising. The corpus resolvers are registered with OmegaConf only: our side
reaches them through omegaconf's registry, which also tests that path.

The cases in `DELIBERATE_DIFFERENCES` are where we choose otherwise (see
docs/interpolation-differences.md): there the test asserts our expected value and that
OmegaConf's result differs from it. We follow OmegaConf 2.4; run against 2.3, the cases in
`SINCE_OMEGACONF_24` are differences too.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import tomli
from interp_cases import CASES, ENV, RESOLVERS, UNSET, Case, Raises

from compose._interp.resolve import resolve_tree
from compose.errors import ComposeError

omegaconf = pytest.importorskip("omegaconf")
OmegaConf = omegaconf.OmegaConf

DELIBERATE_DIFFERENCES = {
    "emb_table_with_interpolation": (
        "an embedded table is shown resolved; OmegaConf shows its raw ${...} strings"
    ),
    "res_arg_types_of_references": (
        "resolvers get a plain dict/list for a referenced table/list, not a DictConfig/ListConfig"
    ),
    "chain_200_deep": "long reference chains resolve; OmegaConf hits RecursionError past ~100",
}

# Where OmegaConf 2.4 changed 2.3's behaviour and we follow 2.4.
SINCE_OMEGACONF_24 = {
    "abs_negative_index": "negative list indices count from the end (2.3: not found)",
    "esc_missing": r"\??? is a literal ??? (2.3 keeps the backslash)",
    "esc_missing_double": r"\\??? is a literal \??? (2.3 keeps both backslashes)",
    "esc_missing_referenced": r"\??? is a literal ??? (2.3 keeps the backslash)",
    "nested_key_int": "an int from a nested interpolation is a key (2.3 wants a string)",
    "res_returns_missing": "a resolver returning ??? is an error (2.3 keeps ???)",
    "env_value_is_marker": "oc.env giving ??? is an error (2.3 keeps ???)",
    "select_above_top": "oc.select climbing above the top gives the default (2.3 fails)",
    "mandatory_made_by_text": "text resolving to ??? is an error (2.3 keeps ???)",
}
_VERSION = tuple(int(part) for part in omegaconf.__version__.split(".")[:2])
if _VERSION < (2, 4):
    DELIBERATE_DIFFERENCES = {**DELIBERATE_DIFFERENCES, **SINCE_OMEGACONF_24}


class _Failed:
    def __init__(self, error: BaseException) -> None:
        self.error = error

    def __repr__(self) -> str:
        return f"<failed: {type(self.error).__name__}: {self.error}>"


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    for name in UNSET:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module", autouse=True)
def _omegaconf_resolvers() -> None:
    # 2.4 renamed register_new_resolver to register_resolver (2.3's has no such method).
    for name, fn in RESOLVERS.items():
        if _VERSION >= (2, 4):
            OmegaConf.register_resolver(name, fn, replace=True)
        else:
            OmegaConf.register_new_resolver(name, fn, replace=True)


def _with_omegaconf(data: dict[str, Any]) -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # deprecation notes for `a,,b` arguments
            config = OmegaConf.create(data)
            return OmegaConf.to_container(config, resolve=True, throw_on_missing=True)
    except Exception as exc:  # any failure counts as "raises"
        return _Failed(exc)


def _with_compose(data: dict[str, Any]) -> Any:
    try:
        return resolve_tree(data)
    except ComposeError as exc:
        return _Failed(exc)


def test_corpus_size_and_unique_names() -> None:
    names = [case.name for case in CASES]
    assert len(names) >= 90
    assert len(set(names)) == len(names)
    assert set(DELIBERATE_DIFFERENCES) | set(SINCE_OMEGACONF_24) <= set(names)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_agrees_with_omegaconf(case: Case) -> None:
    ours = _with_compose(tomli.loads(case.toml))
    theirs = _with_omegaconf(tomli.loads(case.toml))
    if isinstance(case.expected, Raises):
        assert isinstance(ours, _Failed), ours
        assert case.expected.match in str(ours.error)
        if case.name in DELIBERATE_DIFFERENCES:
            assert not isinstance(theirs, _Failed), theirs
        else:
            assert isinstance(theirs, _Failed), theirs
        return
    assert ours == case.expected
    if case.name in DELIBERATE_DIFFERENCES:
        assert theirs != case.expected
    else:
        assert theirs == case.expected
