"""What the composition needs to know about a schema, computed once per model class.

A `ModelPlan` holds each field's `Shape`, its default (called once, read only), and the
renames declared on the model. `walk` follows a key path through a schema beside the tree
composed so far (so a union section resolves against the variant chosen so far). Key paths are
shown to users in command-line form (`--trainer.optim.lr`) by `cli_key`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from compose._schema.docstrings import field_docstring, one_line
from compose._schema.shape import ANY, Kind, Shape, innermost, section_models, shape_of_field
from compose._syntax import NONE_TEXT, SECRET_MASK
from compose._tree import MAX_DEPTH, KeyPath, at_path, child, is_index, replaced
from compose.errors import ArgvError, ComposeError, UnknownKeyError, closest

NO_DEFAULT: Any = PydanticUndefined
_SUGGEST_DEPTH = 12


# Plain classes, not dataclasses or named tuples: this module is imported by every schema
# (through `renamed`) and every `--help`. Defining a four-field class costs, in instructions
# (callgrind): a frozen dataclass 4.2 M, a named tuple 1.3 M, with __slots__ 0.5 M, plain 0.14 M.


class FieldPlan:
    """A field of a model, as composition and help read it."""

    def __init__(self, owner: type[BaseModel], name: str, info: FieldInfo, shape: Shape) -> None:
        self.owner = owner
        self.name = name
        self.info = info
        self.shape = shape
        self._default: Any = NO_DEFAULT  # computed on first use

    @property
    def default(self) -> Any:
        """The field's default value (a factory is called once); NO_DEFAULT when required."""
        if self._default is NO_DEFAULT and not self.info.is_required():
            self._default = self.info.get_default(call_default_factory=True, validated_data={})
        return self._default

    @property
    def shown_default(self) -> Any:
        """The default to show, not to compose with: as declared, not deep-copied as `default`
        is (most of the cost of drawing help's defaults), unless a factory makes it."""
        if self.info.default_factory is not None:
            return self.default
        return NO_DEFAULT if self.info.is_required() else self.info.default

    @property
    def description(self) -> str:
        """`Field(description=)`, else the docstring under the field, else (a section) the
        first paragraph of its class's docstring; on one line."""
        if self.info.description:
            return one_line(self.info.description)
        found = field_docstring(self.owner, self.name)  # kept on one line
        return found or _class_summary(innermost(self.shape))

    @property
    def also(self) -> list[str]:
        """The field's other names (validation aliases), as flags name them."""
        return [key for key, name in aliases_of(self.owner).items() if name == self.name]


def _class_summary(shape: Shape) -> str:
    """The first paragraph of a section class's own docstring (not one it inherits), for a
    section, or a list or dict of sections."""
    if not shape.is_section:
        return ""
    models = [shape.model] if shape.model is not None else [m for _, m in shape.variants]
    if len(models) != 1 or models[0] is None:
        return ""
    doc = models[0].__dict__.get("__doc__") or ""
    return one_line(doc.strip().split("\n\n")[0])


class ModelPlan:
    """A model's fields, planned once per class (`plan_of`)."""

    def __init__(
        self,
        model: type[BaseModel],
        fields: dict[str, FieldPlan],
    ) -> None:
        self.model = model
        self.fields = fields
        self._holds_secrets: bool | None = None

    @property
    def holds_secrets(self) -> bool:
        """Whether a field of the model, or of a section class below it, is a secret."""
        if self._holds_secrets is None:
            self._holds_secrets = any_field_below(
                self.model, lambda plan: is_secret(plan.info.annotation)
            )
        return self._holds_secrets


@functools.cache
def plan_of(model: type[BaseModel]) -> ModelPlan:
    fields = {
        name: FieldPlan(model, name, info, shape_of_field(info))
        for name, info in model.model_fields.items()
    }
    return ModelPlan(model, fields)


def any_field_below(
    model: type[BaseModel],
    hit: Callable[[FieldPlan], bool],
    below: Callable[[Shape], Iterable[type[BaseModel]]] = section_models,
) -> bool:
    """Whether a field of `model`, or of a section class below it, satisfies `hit`."""
    return any(
        hit(plan)
        for current in models_below(model, below)
        for plan in plan_of(current).fields.values()
    )


def models_below(
    model: type[BaseModel], below: Callable[[Shape], Iterable[type[BaseModel]]] = section_models
) -> Iterator[type[BaseModel]]:
    """`model` and every section class below it, each once (so recursive schemas end); `below`
    names the classes a field leads into."""
    seen: set[type[BaseModel]] = set()
    stack = [model]
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        yield current
        for plan in plan_of(current).fields.values():
            stack.extend(below(plan.shape))


@functools.cache
def tag_names(model: type[BaseModel]) -> frozenset[str]:
    """What the last segment of a flag that sets a union's tag can be: every discriminator field
    name below `model`, and every old key of a rename that leads to a field of such a name. The
    CLI node applies tags first, and a flag whose last segment is none of these need not be
    resolved to find out that it is not one."""
    tags: set[str] = set()
    renames: set[tuple[str, str]] = set()  # (old key, the last segment of its new path)
    for current in models_below(model):
        renames.update((old, new[-1]) for old, new in renames_of(current).items())
        for plan in plan_of(current).fields.values():
            tag = innermost(plan.shape).tag
            if tag:
                tags.add(tag)
    return frozenset(tags | {old for old, last in renames if last in tags})


RENAMES_ATTR = "__compose_renames__"


def renames_of(model: type[BaseModel]) -> dict[str, tuple[str, ...]]:
    """Old key -> new path (relative to `model`), as declared with `renamed`."""
    found: dict[str, tuple[str, ...]] = getattr(model, RENAMES_ATTR, {})
    return found


def field_name(model: type[BaseModel], segment: str) -> str | None:
    """The field a CLI or override segment names: kebab-case or snake_case, by its name or by
    one of its validation aliases (`AliasChoices("seed", "random_seed")`)."""
    fields = model.model_fields
    if segment in fields:
        return segment
    snake = segment.replace("-", "_")
    if snake in fields:
        return snake
    aliases = aliases_of(model)
    return aliases.get(segment) or aliases.get(snake)


@functools.cache
def aliases_of(model: type[BaseModel]) -> dict[str, str]:
    """Every other key a field of `model` is validated under -> the field's name: its
    `validation_alias` names (plain strings; alias paths are no keys) and its `alias`.

    Composition keys a field by its name, whichever name a node used, so that nodes that spell
    it differently merge into one value (`compose._schema.prepare` gives Pydantic the key it
    takes)."""
    found: dict[str, str] = {}
    for name, info in model.model_fields.items():
        for key in input_keys(info):
            if key != name:
                found.setdefault(key, name)
    return found


def input_keys(info: FieldInfo) -> list[str]:
    """The keys Pydantic validates a field under, the one it prefers first."""
    alias = info.validation_alias
    choices = getattr(alias, "choices", None)
    keys = [c for c in (choices if choices is not None else [alias]) if isinstance(c, str)]
    if not keys and isinstance(info.alias, str):
        keys = [info.alias]
    return keys


def current_variant(shape: Shape, node: Any, default: Any) -> type[BaseModel] | None:
    """The variant a union section has so far: the tag composed so far, else the default's."""
    if shape.model is not None:
        return shape.model
    if shape.tag is None:
        return None
    if isinstance(node, dict) and shape.tag in node:
        return shape.variant(node[shape.tag])
    if isinstance(default, BaseModel):
        return type(default)
    return None


def default_tag(shape: Shape, default: Any) -> Any:
    if shape.tag and isinstance(default, BaseModel):
        return getattr(default, shape.tag, None)
    return None


def field_default(model: type[BaseModel], name: str) -> Any:
    """The class default of field `name` of `model` (NO_DEFAULT when it is required).

    Below a section that a node sets, defaults are always the class's, never those of the
    section's default instance (CONTRACT §7 "Layers"): the section is validated from what the
    nodes set on top of its class's field defaults, as Pydantic validates a dict. The default
    instance stands whole only where no node sets anything in it.
    """
    return plan_of(model).fields[name].default


def section_model(shape: Shape, node: Any, default: Any, name: str) -> type[BaseModel] | None:
    """The model whose field `name` a section path continues into."""
    model = current_variant(shape, node, default)
    if model is not None or shape.kind is not Kind.UNION:
        return model
    for _, variant in shape.variants:  # no variant chosen yet: the first one with that field
        if name in variant.model_fields:
            return variant
    return None


class Target:
    """Where a flag or section path lands: the key path, its shape and the defaults on the way."""

    def __init__(
        self,
        path: KeyPath,
        shape: Shape,
        defaults: tuple[Any, ...],
        parent: Shape | None,
        renamed: tuple[tuple[str, tuple[str, ...]], ...] = (),
        unchecked: int | None = None,
    ) -> None:
        self.path = path
        self.shape = shape
        self.defaults = defaults  # defaults[i]: the class default at path[: i + 1]
        self.parent = parent  # the shape holding the last segment (a union: is it the tag?)
        self.renamed = renamed  # (old key, new path) of each rename followed on the way
        # The depth of the first key no field of the schema's classes names (`walk(...,
        # passthrough=True)`): the class that validates the section judges it, and may take it
        # (`extra="allow"`, a subclass a validator chooses). None: every key is a field.
        self.unchecked = unchecked

    @property
    def default(self) -> Any:
        return self.defaults[-1] if self.defaults else NO_DEFAULT

    @property
    def parent_default(self) -> Any:
        return self.defaults[-2] if len(self.defaults) > 1 else NO_DEFAULT

    @property
    def is_tag(self) -> bool:
        parent = self.parent
        return parent is not None and parent.kind is Kind.UNION and self.path[-1] == parent.tag


def walk(
    root: Shape, segments: list[str], tree: Any, shown: str, *, passthrough: bool = False
) -> Target:
    """Follow `segments` (as the user wrote them) through the schema beside the tree.

    An old key declared with `renamed` continues along its new path; the target says so. A key
    no field names is an `UnknownKeyError`; with `passthrough`, the walk goes on below it as
    through untyped data (snake_case keys), and the target says where (`Target.unchecked`).
    Walks are kept per schema: flags repeat across calls, and a walk is most of what a flag
    costs. A path through models, lists and dicts only is the same whatever the tree. One
    through union sections is the same wherever each union has the variant it had: a kept
    walk holds the choices it made, and serves a tree in which each comes out the same.
    """
    key = (id(root), tuple(segments))  # an entry holds its root: the id stays that root's
    kept = _WALKS.get(key)
    if kept is not None:
        for entry in kept:
            if entry.holds_for(tree):
                return entry.target
    try:
        target, choices = _walk(root, segments, tree, shown)
    except UnknownKeyError:
        if not passthrough:
            raise
        target, _ = _walk(root, segments, tree, shown, passthrough=True)
        return target  # kept for no other tree: it read what no class declares
    if choices is not None:
        if len(_WALKS) >= _MAX_WALKS:
            _WALKS.clear()  # a bound for long-lived processes that see many flags
        kept = _WALKS.setdefault(key, [])
        kept[: len(kept) - _MAX_VARIANT_WALKS + 1] = []  # a bound on variants kept per path
        kept.append(_KeptWalk(root, target, choices))
    return target


class _Choice:
    """A step into a union section: which model `section_model` gave, and what it was given."""

    def __init__(
        self, depth: int, shape: Shape, default: Any, name: str, model: type[BaseModel] | None
    ) -> None:
        self.depth = depth  # the union section is at `target.path[:depth]`
        self.shape = shape
        self.default = default
        self.name = name
        self.model = model


class _KeptWalk:
    """A walk's target, with the union choices that led to it (none: it holds for any tree)."""

    def __init__(self, root: Shape, target: Target, choices: tuple[_Choice, ...]) -> None:
        self.root = root  # keeps the root alive, so that its id in the key stays its own
        self.target = target
        self.choices = choices

    def holds_for(self, tree: Any) -> bool:
        """Whether a walk beside `tree` makes the same choices (so it reaches the same target):
        each union comes out the same, given the same choices before it."""
        path = self.target.path
        node, depth = tree, 0
        for choice in self.choices:
            while depth < choice.depth:
                node = child(node, path[depth])
                depth += 1
            if section_model(choice.shape, node, choice.default, choice.name) is not choice.model:
                return False
        return True


_WALKS: dict[tuple[int, tuple[str, ...]], list[_KeptWalk]] = {}
_MAX_WALKS = 4096
_MAX_VARIANT_WALKS = 4


def _walk(
    root: Shape, segments: list[str], tree: Any, shown: str, passthrough: bool = False
) -> tuple[Target, tuple[_Choice, ...] | None]:
    """The target, and the union choices it made (None: a step read untyped data, whose
    shape only the tree tells, so the walk holds for this tree alone)."""
    shape, node, default = root, tree, NO_DEFAULT
    path: list[str | int] = []
    defaults: list[Any] = []
    parent: Shape | None = None
    renamed: list[tuple[str, tuple[str, ...]]] = []
    choices: list[_Choice] | None = []
    unchecked: int | None = None
    if len(segments) > MAX_DEPTH:
        raise ArgvError(f"a key path of more than {MAX_DEPTH} segments", origin=shown)
    pending = list(segments)
    while pending:
        segment = pending.pop(0)
        if shape.kind is Kind.ANY:
            choices = None
        elif shape.kind is Kind.UNION and choices is not None:
            snake = segment.replace("-", "_")
            model = section_model(shape, node, default, snake)
            choices.append(_Choice(len(path), shape, default, snake, model))
        if unchecked is not None:  # below a key no class declares: names of a class unseen
            segment = segment.replace("-", "_")
        step = _step(shape, node, default, segment, path, shown, root)
        if step is None:
            new = _renamed_path(shape, node, default, segment)
            if new is not None:
                renamed.append((segment.replace("-", "_"), new))
                pending[:0] = new
                continue
            if not passthrough:
                raise unknown_key(root, (*path, segment, *pending), shown, shape, len(path))
            unchecked = len(path) if unchecked is None else unchecked
            step = segment.replace("-", "_"), ANY, NO_DEFAULT
        parent = shape
        name, shape, default = step
        path.append(name)
        defaults.append(default)
        node = child(node, name)
    target = Target(tuple(path), shape, tuple(defaults), parent, tuple(renamed), unchecked)
    return target, None if choices is None else tuple(choices)


def _renamed_path(shape: Shape, node: Any, default: Any, segment: str) -> tuple[str, ...] | None:
    if not shape.is_section:
        return None
    old = segment.replace("-", "_")
    model = section_model(shape, node, default, old)
    models = [model] if model is not None else [m for _, m in shape.variants]
    for candidate in models:
        new = renames_of(candidate).get(old)
        if new is not None:
            return new
    return None


def _step(
    shape: Shape,
    node: Any,
    default: Any,
    segment: str,
    path: list[str | int],
    shown: str,
    root: Shape,
) -> tuple[str | int, Shape, Any] | None:
    kind = shape.kind
    if kind in (Kind.MODEL, Kind.UNION):
        model = section_model(shape, node, default, segment.replace("-", "_"))
        name = field_name(model, segment) if model is not None else None
        if model is None or name is None:
            return None
        return name, plan_of(model).fields[name].shape, field_default(model, name)
    if kind is Kind.LIST:
        if not is_index(segment):
            raise ArgvError(
                f"is a list: expected an index, got {segment!r}",
                key=cli_key(root, tuple(path)),
                origin=shown,
            )
        index = int(segment)
        item_default = default[index] if _has_index(default, index) else NO_DEFAULT
        return index, shape.item or ANY, item_default
    if kind is Kind.DICT:
        item_default = default.get(segment, NO_DEFAULT) if isinstance(default, dict) else NO_DEFAULT
        return segment, shape.item or ANY, item_default
    if kind is Kind.ANY:
        if isinstance(node, list) and not is_index(segment):
            raise ArgvError(
                f"is a list: expected an index, got {segment!r}",
                key=cli_key(root, tuple(path)),
                origin=shown,
            )
        return _any_step(node, segment), ANY, NO_DEFAULT
    raise ArgvError(
        f"is a value, not a section: it has no key {segment!r}",
        key=cli_key(root, tuple(path)),
        origin=shown,
    )


def _any_step(node: Any, segment: str) -> str | int:
    """Untyped data: an index into a list already there, else a verbatim key."""
    if isinstance(node, list) and is_index(segment):
        return int(segment)
    return segment


def _has_index(value: Any, index: int) -> bool:
    return isinstance(value, (list, tuple)) and index < len(value)


def unknown_key(
    root: Shape, path: KeyPath, shown: str | None, section: Shape | None = None, depth: int = 0
) -> UnknownKeyError:
    """`path[depth]` is not a key of the `section` at `path[:depth]`: say so, with a hint."""
    known = cli_key(root, path[:depth]) if depth else ""
    rest = [flag_segment(str(s)) if root.model is not None else str(s) for s in path[depth:]]
    key = f"{known}.{'.'.join(rest)}" if known else "--" + ".".join(rest)
    written = str(path[depth])
    hint = _variant_hint(root, path[:depth], section, written.replace("-", "_"))
    if hint is None and _is_kebab_field(section, written):
        hint = f"keys in files are snake_case: write {written.replace('-', '_')}"
    if hint is None:
        suggestion = suggest(root, key)
        hint = f"did you mean {suggestion}?" if suggestion else None
    return UnknownKeyError("unknown key", key=key, origin=shown, hint=hint)


def _is_kebab_field(section: Shape | None, written: str) -> bool:
    if section is None or "-" not in written:
        return False
    snake = written.replace("-", "_")
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
    return name if name.startswith("_") else name.replace("_", "-")


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
    return "--" + ".".join(parts)


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
    wanted = re.sub(_INDEX, ".0", key.replace("_", "-"))
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


@functools.lru_cache(maxsize=64)
def all_flags(model: type[BaseModel]) -> list[str]:
    """Every flag of a schema (all union variants, list elements as index 0), for did-you-mean."""
    return sorted(set(_flags(model, "--", 0, ())))


def _flags(
    model: type[BaseModel], prefix: str, depth: int, seen: tuple[type, ...]
) -> Iterator[str]:
    if depth > _SUGGEST_DEPTH or model in seen:
        return
    for name, plan in plan_of(model).fields.items():
        flag = prefix + name.replace("_", "-")
        yield flag
        yield from _shape_flags(plan.shape, flag, depth, (*seen, model))


def _shape_flags(shape: Shape, flag: str, depth: int, seen: tuple[type, ...]) -> Iterator[str]:
    if shape.model is not None:
        yield from _flags(shape.model, flag + ".", depth + 1, seen)
    for _, variant in shape.variants:
        yield from _flags(variant, flag + ".", depth + 1, seen)
    if shape.kind is Kind.LIST and shape.item is not None and shape.item.is_section:
        yield from _shape_flags(shape.item, flag + ".0", depth + 1, seen)


def masked_secrets(root: Shape, tree: Any) -> Any:
    """`tree` (composed, not validated) with the values of `SecretStr`/`SecretBytes` fields
    masked, for showing to people: a copy where anything is masked."""
    for path, _ in secret_fields(root, tree):
        value = at_path(tree, path)
        if isinstance(value, str) and value != NONE_TEXT:
            tree = replaced(tree, path, SECRET_MASK)
    return tree


def secret_fields(root: Shape, tree: Any) -> Iterator[tuple[KeyPath, FieldPlan]]:
    """The path of every value in `tree` that a `SecretStr`/`SecretBytes` field takes, with
    its field. Sections with no such field below them are not entered."""
    if root.model is not None:
        yield from _secrets_in(tree, root, ())


def _secrets_in(value: Any, shape: Shape, path: KeyPath) -> Iterator[tuple[KeyPath, FieldPlan]]:
    if isinstance(value, dict) and shape.is_section:
        model = shape.model
        if model is None and shape.tag is not None:
            model = shape.variant(value.get(shape.tag))
        if model is None or not plan_of(model).holds_secrets:
            return
        fields = plan_of(model).fields
        for key, child in value.items():
            field = fields.get(key)
            if field is None:
                continue
            if is_secret(field.info.annotation):
                yield (*path, key), field
            else:
                yield from _secrets_in(child, field.shape, (*path, key))
    elif isinstance(value, dict) and shape.kind is Kind.DICT and shape.item is not None:
        for key, child in value.items():
            yield from _secrets_in(child, shape.item, (*path, key))
    elif isinstance(value, list) and shape.kind is Kind.LIST and shape.item is not None:
        for index, child in enumerate(value):
            yield from _secrets_in(child, shape.item, (*path, index))


def names_secret(root: Shape, flag: str) -> bool:
    """Whether the flag `--a.b` names a `SecretStr`/`SecretBytes` field (a misspelled key
    whose did-you-mean it is holds a secret too: errors must not show its value)."""
    try:
        target = walk(root, flag.removeprefix("--").split("."), {}, flag)
    except ComposeError:
        return False
    model = target.parent.model if target.parent is not None else None
    name = target.path[-1] if target.path else None
    field = plan_of(model).fields.get(name) if model is not None and isinstance(name, str) else None
    return field is not None and is_secret(field.info.annotation)


def is_secret(annotation: Any) -> bool:
    """Whether a field's type is (or may be) `SecretStr` or `SecretBytes`."""
    from pydantic import SecretBytes, SecretStr  # noqa: PLC0415  # help never asks

    if annotation in (SecretStr, SecretBytes):
        return True
    return any(is_secret(arg) for arg in getattr(annotation, "__args__", ()))
