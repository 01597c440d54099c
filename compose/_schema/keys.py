"""Key paths as users write them: in command-line form (`--trainer.optim.lr`), every flag a
schema has, the did-you-mean of a key it lacks, and the error that says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from compose._schema.memo import memoize
from compose._schema.plan import NO_DEFAULT, field_default, plan_of, section_model
from compose._schema.shape import ANY, Kind, Shape
from compose._syntax import FROM_RUN_FLAG, SWEEP_CONTROLS, dotted, kebab_case, snake_case
from compose._tree import KeyPath, child
from compose.errors import UnknownKeyError, closest

_SUGGEST_DEPTH = 12


def unknown_key(
    root: Shape, path: KeyPath, shown: str | None, section: Shape | None = None, depth: int = 0
) -> UnknownKeyError:
    """`path[depth]` is not a key of the `section` at `path[:depth]`: say so, with a hint."""
    known = cli_key(root, path[:depth]) if depth else ""
    rest = [flag_segment(str(s)) if root.model is not None else str(s) for s in path[depth:]]
    key = f"{known}.{dotted(rest)}" if known else "--" + dotted(rest)
    written = str(path[depth])
    hint = _variant_hint(root, path[:depth], section, snake_case(written))
    if hint is None and _is_kebab_field(section, written):
        hint = f"keys in files are snake_case: write {snake_case(written)}"
    if hint is None:
        suggestion = suggest(root, key) or _reserved_flag(key, depth)
        hint = f"did you mean {suggestion}?" if suggestion else None
    return UnknownKeyError("unknown key", key=key, origin=shown, hint=hint)


def _reserved_flag(key: str, depth: int) -> str | None:
    """The entrypoint flag a top-level key misspells (`--sweep-nmae` for `--sweep-name`): in
    a single run it is read as a key, so the key's error is where the near miss shows."""
    if depth:
        return None
    return closest(key, (*SWEEP_CONTROLS, FROM_RUN_FLAG), cutoff=0.8)


def _is_kebab_field(section: Shape | None, written: str) -> bool:
    if section is None or "-" not in written:
        return False
    snake = snake_case(written)
    models = [section.model] if section.model is not None else [m for _, m in section.variants]
    return any(snake in model.model_fields for model in models if model is not None)


def _variant_hint(root: Shape, path: KeyPath, section: Shape | None, name: str) -> str | None:
    """A key of another variant of a union section: name the variants that have it."""
    if section is None or section.kind is not Kind.UNION or not section.tag:
        return None
    owners = [tag for tag, model in section.variants if name in model.model_fields]
    if not owners:
        return None
    tag_flag = cli_key(root, (*path, section.tag))
    if len(owners) == 1:
        return f"only {owners[0]} has it: choose it with {tag_flag} {owners[0]}"
    names = f"{', '.join(owners[:-1])} and {owners[-1]}"
    return f"only {names} have it: choose one with {tag_flag} {owners[0]}"


def flag_segment(name: str) -> str:
    """A key as a flag segment: kebab-case, but a reserved name (`_include_`, `_target_`) as
    written: it is no field's name, and `---target-` names nothing."""
    return name if name.startswith("_") else kebab_case(name)


def cli_key(root: Shape, path: KeyPath, tree: Any = None) -> str:
    """A key path as a flag: field names kebab-case, dict keys and indices verbatim.

    `tree`, the composed config, tells which variant a union section has.
    """
    if not path:
        return "(root)"
    parts: list[str] = []
    shape, node, default = root, tree, NO_DEFAULT
    for segment in path:
        is_field = shape.is_section and isinstance(segment, str)
        parts.append(flag_segment(str(segment)) if is_field else str(segment))
        shape, default = _shape_below(shape, node, segment, default)
        node = child(node, segment)
    return "--" + dotted(parts)


def _shape_below(shape: Shape, node: Any, segment: str | int, default: Any) -> tuple[Shape, Any]:
    if shape.is_section and isinstance(segment, str):
        model = section_model(shape, node, default, segment)
        if model is None or segment not in model.model_fields:  # another variant's key
            model = next((m for _, m in shape.variants if segment in m.model_fields), None)
        if model is not None and segment in model.model_fields:
            return plan_of(model).fields[segment].shape, field_default(model, segment)
        return ANY, NO_DEFAULT
    if shape.kind in (Kind.LIST, Kind.DICT):
        return shape.item or ANY, NO_DEFAULT
    return ANY, NO_DEFAULT


_INDEX = r"\.(\d+)(?=\.|$)"  # compiled by `re` on first use: only a mistake needs it


def suggest(root: Shape, key: str) -> str | None:
    """The closest valid flag to `key`, or None when nothing is really close.

    The same key in another section wins (a key put in the wrong section); then a sibling whose
    last segment is close (a typo in the key); then a flag whose whole path is very close (a
    typo in a section name). Shared prefixes are not similarity, and an ancestor of the key is
    never suggested. List indices the user wrote are kept.
    """
    if root.model is None:
        return None
    indices = re.findall(_INDEX, key)
    wanted = re.sub(_INDEX, ".0", kebab_case(key))
    found = closest_flag(wanted, all_flags(root.model))
    if found is None:
        return None
    given = iter(indices)
    return re.sub(_INDEX, lambda m: "." + next(given, m.group(1)), found)


def closest_flag(wanted: str, candidates: list[str]) -> str | None:
    """The candidate flag `wanted` most likely meant (see `suggest`), or None."""
    parent, _, leaf = wanted.rpartition(".")
    leaf = leaf.removeprefix("--")
    candidates = [c for c in candidates if not wanted.startswith(c + ".")]
    same_leaf = [c for c in candidates if _leaf(c) == leaf]
    if same_leaf:
        return closest(wanted, same_leaf, cutoff=0.0)
    siblings = {_leaf(c): c for c in candidates if c.rpartition(".")[0] == parent}
    close = closest(leaf, siblings, cutoff=0.75)
    if close is not None:
        return siblings[close]
    depth = wanted.count(".")
    return closest(wanted, [c for c in candidates if c.count(".") == depth], cutoff=0.85)


def _leaf(flag: str) -> str:
    return flag.rpartition(".")[2].removeprefix("--")


@memoize
def all_flags(model: type[BaseModel]) -> list[str]:
    """Every flag of a schema (all union variants, list elements as index 0), for did-you-mean."""
    return sorted(set(_flags(model, "--", 0, ())))


def _flags(
    model: type[BaseModel], prefix: str, depth: int, seen: tuple[type, ...]
) -> Iterator[str]:
    if depth > _SUGGEST_DEPTH or model in seen:
        return
    for name, plan in plan_of(model).fields.items():
        flag = prefix + kebab_case(name)
        yield flag
        yield from _shape_flags(plan.shape, flag, depth, (*seen, model))


def _shape_flags(shape: Shape, flag: str, depth: int, seen: tuple[type, ...]) -> Iterator[str]:
    if shape.model is not None:
        yield from _flags(shape.model, flag + ".", depth + 1, seen)
    for _, variant in shape.variants:
        yield from _flags(variant, flag + ".", depth + 1, seen)
    if shape.kind is Kind.LIST and shape.item is not None and shape.item.is_section:
        yield from _shape_flags(shape.item, flag + ".0", depth + 1, seen)
