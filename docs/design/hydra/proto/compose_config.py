"""`compose_hydra`: the defaults list's leaves merged at their packages, the value overrides
applied in struct mode, Hydra's own node dropped, interpolations resolved (eagerly).

`multirun=True` gives `[(job_overrides, config), ...]` in the basic sweeper's order: the
product of every override's values, in command-line order, the last varying fastest (a key
given twice keeps its first place and its last values); every job is composed before any is
returned, so one bad job fails the whole call.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Mapping, Sequence
from typing import Any

from compose._interp.resolve import resolve_tree
from compose.errors import ComposeError

from . import hydra_node
from .grammar import (
    GlobSweep,
    IntervalSweep,
    Override,
    as_text,
    sweep_values,
)
from .hydra_compose import Prepared, prepare
from .merge import KeyMissing, MergeError, Tree, delete, select, split_key, update
from .repository import Loaded, StoreValue, make_repository


def compose_hydra(
    config_dir: Any,
    config_name: str | None,
    overrides: Sequence[str] = (),
    *,
    schema: Any = None,
    store: Mapping[str, StoreValue] | None = None,
    multirun: bool = False,
) -> Any:
    cwd = os.getcwd()
    directory = os.fspath(config_dir) if config_dir is not None else None
    if multirun:
        return _multirun(directory, config_name, list(overrides), store, cwd)
    prepared = prepare(
        directory, config_name, list(overrides), store=store, multirun=False, skip_missing=False, cwd=cwd
    )
    return compose_prepared(prepared)


# --- one composition ------------------------------------------------------------------------


def _chain(leaf: Any) -> str:
    return " -> ".join(str(w) for w in leaf.chain if w.source)


def _leaf_data(prepared: Prepared, path: str, primary: bool) -> tuple[Any, Any, Loaded]:
    """A leaf's data and model; a file config with a same-named store node is merged over it
    (Hydra's deprecated automatic schema match)."""
    loaded = prepared.repo.load(path)
    assert loaded is not None
    data = loaded.data if loaded.data is not None else {}
    if loaded.schema is not None:
        return data, loaded.schema, loaded
    match = prepared.repo.schema_for(path)
    if match is None or (match.schema is None and not isinstance(match.data, dict)):
        return data, None, loaded
    if match.entries:
        raise ComposeError(
            "a store node with the same name as this file carries a defaults list",
            origin=loaded.shown,
            hint="rename one of them, and name the schema in the file's defaults list",
        )
    typed = Tree()
    hydra = data.pop("hydra", None) if primary and isinstance(data, dict) else None
    typed.merge_table(typed.data, (), match.data, match.schema, match.shown)
    typed.merge_table(typed.data, (), data, None, loaded.shown)
    if hydra is not None:
        typed.data["hydra"] = hydra
    if match.schema is not None and "defaults" in match.schema.model_fields:
        typed.data["defaults"] = "???"  # the schema's own unset defaults list stays, as in Hydra
    return typed.data, match.schema, loaded


def compose_prepared(prepared: Prepared) -> dict[str, Any]:
    tree = Tree()
    tree.data["hydra"] = {k: v for k, v in hydra_node.HYDRA_CONFIG.items() if k != "defaults"}
    for leaf in prepared.defaults.leaves:
        data, model, loaded = _leaf_data(prepared, leaf.config_path, leaf.primary)
        path = tuple(leaf.package.split(".")) if leaf.package else ()
        if not leaf.primary and _sets_searchpath(path, data):
            raise ComposeError(
                "only the primary config may set hydra.searchpath", origin=_chain(leaf) or loaded.shown
            )
        try:
            tree.merge_at(path, data, model, loaded.shown)
        except ComposeError as error:
            raise error.evolve(origin=_chain(leaf) or loaded.shown) from None
    tree.struct = True
    for ov in prepared.defaults.value_overrides:
        _apply(tree, ov)
    _check_hydra_node(tree)
    tree.data.pop("hydra", None)
    return _resolve(tree.data)


def _sets_searchpath(path: tuple[str, ...], data: Any) -> bool:
    nested: Any = data
    for key in reversed(path):
        nested = {key: nested}
    hydra = nested.get("hydra") if isinstance(nested, dict) else None
    return isinstance(hydra, dict) and hydra.get("searchpath") is not None


def _apply(tree: Tree, ov: Override) -> None:
    if ov.package is not None:
        raise ComposeError(
            f"{ov.key} is no config group, so `@{ov.package}` means nothing here",
            value=ov.text,
            origin=ov.text,
        )
    segments = split_key(ov.key)
    value = ov.plain()
    try:
        if ov.action == "delete":
            delete(tree, segments, value, ov.has_value, ov.text)
        elif ov.action == "add":
            if select(tree, segments) is not None and not isinstance(value, (dict, list)):
                raise ComposeError(
                    "the key is set already: `+` adds a new key",
                    key=ov.key,
                    origin=ov.text,
                    hint=f"{ov.text[1:]} sets it; +{ov.text} sets or adds it",
                )
            update(tree, segments, value, True, ov.text)
        else:
            update(tree, segments, value, ov.action == "force", ov.text)
    except KeyMissing:
        if ov.action == "delete":
            raise
        raise ComposeError(
            "no such key in the composed config", key=ov.key, origin=ov.text, hint=f"+{ov.text} adds it"
        ) from None
    except MergeError as error:
        raise error.evolve(origin=ov.text) from None


def _check_hydra_node(tree: Tree) -> None:
    hydra = tree.data.get("hydra")
    if not isinstance(hydra, dict):
        raise ComposeError("Hydra's node is a table", key="hydra")
    for key in hydra_node.NOT_NULL:
        if hydra.get(key, "") is None:
            raise ComposeError("Hydra's node does not take null here", key=f"hydra.{key}")


def _interpolated(value: Any, path: tuple[Any, ...], out: list[tuple[Any, ...]]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _interpolated(v, (*path, k), out)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _interpolated(v, (*path, i), out)
    elif isinstance(value, str) and "${" in value:
        out.append(path)


def _resolve(data: dict[str, Any]) -> dict[str, Any]:
    """Interpolations resolved now (Hydra reads them lazily); a `???` nobody reads stays."""
    below: list[tuple[Any, ...]] = []
    _interpolated(data, (), below)
    if not below:
        return data
    return resolve_tree(data, below=below)


# --- multirun -------------------------------------------------------------------------------


def _multirun(
    directory: str | None, config_name: str | None, overrides: list[str], store: Any, cwd: str
) -> list[tuple[list[str], dict[str, Any]]]:
    master = prepare(
        directory, config_name, overrides, store=store, multirun=True, skip_missing=True, cwd=cwd
    )
    compose_prepared(master)
    axes: dict[str, list[str]] = {}
    hydra_overrides = [ov.text for ov in master.overrides if ov.is_hydra]
    for ov in master.overrides:
        if ov.is_hydra:
            continue
        if ov.is_sweep:
            if isinstance(ov.value, IntervalSweep):
                raise ComposeError(
                    "an interval cannot be listed: the basic sweeper needs values",
                    value=ov.text,
                    origin=ov.text,
                )
            options = (
                _options_lister(directory, store, cwd, ov) if isinstance(ov.value, GlobSweep) else _no_options
            )
            axes[ov.key_element] = [f"{ov.key_element}={as_text(v)}" for v in sweep_values(ov.value, options)]
        else:
            axes[ov.key_element] = [f"{ov.key_element}={as_text(ov.value)}"]
    jobs = [list(job) for job in itertools.product(*axes.values())]
    results: list[tuple[list[str], dict[str, Any]]] = []
    problems: list[ComposeError] = []
    for job in jobs:
        try:
            prepared = prepare(
                directory,
                config_name,
                hydra_overrides + job,
                store=store,
                multirun=False,
                skip_missing=False,
                cwd=cwd,
            )
            results.append((job, compose_prepared(prepared)))
        except ComposeError as problem:
            problems.append(problem.evolve(message=f"job {' '.join(job)}: {problem.message}"))
    if problems:
        from compose.errors import gather  # noqa: PLC0415 - an error path

        raise gather(problems)
    return results


def _no_options() -> list[str]:
    return []


def _options_lister(directory: str | None, store: Any, cwd: str, ov: Override) -> Any:
    def options() -> list[str]:
        return make_repository(directory, [], store, cwd).options(ov.key)

    return options
