"""Secrets read from the environment, which the files compose writes name instead of holding.

A `SecretStr` field set to `${oc.env:NAME}` gets its value from this process's environment.
Written into a run's config files literally, the key would sit on disk and travel with the
run directory; written as the reference, each component reads its own environment, as the
user meant. So binding hands Pydantic the resolved value wrapped in a `SecretStr` subclass
that remembers its reference (Pydantic keeps an instance of the field's class as it is), and
the writers put the reference back (`compose._output.plain.to_data`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pydantic import SecretBytes, SecretStr

from compose._schema.memo import memoize
from compose._schema.plan import FieldPlan, is_secret, plan_of
from compose._schema.shape import Kind, Shape, shape_of
from compose._schema.walk import walk
from compose._syntax import NONE_TEXT, SECRET_MASK, dotted, split_dotted
from compose._tree import KeyPath, at_path, replaced
from compose.errors import ComposeError

__all__ = [
    "EnvSecretBytes",
    "EnvSecretStr",
    "FromEnvironment",
    "Verbatim",
    "env_reference",
    "from_environment",
]

# Exactly one `${oc.env:NAME}` or `${oc.env:NAME,default}`: the whole value is the variable's.
# Anything more (text around it, a second reference) may need other keys of the tree, which a
# component's own file need not hold: such a value is written as its resolved text.
_ENV_REFERENCE = r"\$\{oc\.env:[A-Za-z_][A-Za-z0-9_]*(,[^${}\\]*)?\}"


def env_reference(text: str) -> bool:
    """Whether `text` is a single reference to an environment variable, and nothing else.
    (`re` caches the compiled pattern: compiling it at import would tax every `--help`, which
    loads this module with the writers.)"""
    return re.fullmatch(_ENV_REFERENCE, text) is not None


class Verbatim(str):
    """Text a TOML writer writes as it is: a reference it must not escape into a literal."""

    __slots__ = ()


class FromEnvironment:
    """The reference a secret was resolved from. Equal to any secret of the same value, as a
    plain `SecretStr` is: where the value came from is not part of the config."""

    reference: str

    if TYPE_CHECKING:  # the secret class's, after this one in the method order

        def get_secret_value(self) -> Any: ...

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (SecretStr, SecretBytes)):
            return NotImplemented
        return bool(self.get_secret_value() == other.get_secret_value())

    def __hash__(self) -> int:
        return hash(self.get_secret_value())


class EnvSecretStr(FromEnvironment, SecretStr):
    """A `SecretStr` whose value came from `reference` (`${oc.env:NAME}`)."""

    def __init__(self, secret_value: str, reference: str) -> None:
        super().__init__(secret_value)
        self.reference = reference


class EnvSecretBytes(FromEnvironment, SecretBytes):
    """A `SecretBytes` whose value came from `reference` (`${oc.env:NAME}`)."""

    def __init__(self, secret_value: bytes, reference: str) -> None:
        super().__init__(secret_value)
        self.reference = reference


def from_environment(value: Any, reference: str, annotation: Any) -> Any:
    """`value`, resolved from `reference`, as the secret class of `annotation` that remembers
    it; anything but text (None, a default's value) as it is."""
    if not isinstance(value, str):
        return value
    if _mentions(annotation, SecretStr):
        return EnvSecretStr(value, reference)
    if _mentions(annotation, SecretBytes):
        return EnvSecretBytes(value.encode(), reference)
    return value


def _mentions(annotation: Any, cls: type) -> bool:
    return annotation is cls or any(_mentions(a, cls) for a in getattr(annotation, "__args__", ()))


def masked_secrets(root: Shape, tree: Any) -> Any:
    """`tree` (composed, not validated) with the values of `SecretStr`/`SecretBytes` fields
    masked, for showing to people: a copy where anything is masked."""
    for path, _ in secret_fields(root, tree):
        value = at_path(tree, path)
        if masked_value(value) is not value:
            tree = replaced(tree, path, SECRET_MASK)
    return tree


def masked_value(value: Any) -> Any:
    """A secret field's value as people are shown it: text masked, None (and what is not
    text, which validation will refuse) as it is; in a list or dict (`dict[str, SecretStr]`
    is a secret field too), every value below it so."""
    if isinstance(value, list):
        return [masked_value(item) for item in value]
    if isinstance(value, dict):
        return {key: masked_value(item) for key, item in value.items()}
    return SECRET_MASK if isinstance(value, str) and value != NONE_TEXT else value


def is_secret_path(root: Shape, tree: Any, path: KeyPath) -> bool:
    """Whether the value at `path` of `tree` is one a secret field takes, or lies in one
    (a value of a `dict[str, SecretStr]` field)."""
    return any(found == path[: len(found)] for found, _ in secret_fields(root, tree))


def secret_fields(root: Shape, tree: Any) -> Iterator[tuple[KeyPath, FieldPlan]]:
    """The path of every value in `tree` that a `SecretStr`/`SecretBytes` field takes, with
    its field."""
    if root.model is not None:
        yield from _secrets_in(tree, root, ())


def _secrets_in(value: Any, shape: Shape, path: KeyPath) -> Iterator[tuple[KeyPath, FieldPlan]]:
    if isinstance(value, dict) and shape.is_section:
        model = shape.model
        if model is None and shape.tag is not None:
            model = shape.variant(value.get(shape.tag))
        if model is None or not schema_holds_secrets(model):
            return  # most sections hold none: their values are not walked
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
        target = walk(root, split_dotted(flag.removeprefix("--")), {}, flag)
    except ComposeError:
        return False
    model = target.parent.model if target.parent is not None else None
    name = target.path[-1] if target.path else None
    field = plan_of(model).fields.get(name) if model is not None and isinstance(name, str) else None
    return field is not None and is_secret(field.info.annotation)


def masks_secret(root: Shape, flag: str, text: str) -> bool:
    """Whether `text`, given to the flag `--a.b`, holds a secret's mask where a value should
    be: the mask itself for a secret (a field, or a dict's value), the mask inside for a list,
    dict or section that holds secrets (what `to_flat` and `to_argv` write for one)."""
    if SECRET_MASK not in text:
        return False
    try:
        shape = walk(root, split_dotted(flag.removeprefix("--")), {}, flag).shape
    except ComposeError:
        return False
    if _is_secret_shape(shape):
        return text == SECRET_MASK
    return holds_secrets(shape)


def holds_secrets_at(root: Shape, flag: str) -> bool:
    """Whether the value the flag `--a.b` names may hold a secret: a secret field, or a section,
    list or dict with one inside (a value given there in the wrong kind shows it whole)."""
    try:
        shape = walk(root, split_dotted(flag.removeprefix("--")), {}, flag).shape
    except ComposeError:
        return False
    return holds_secrets(shape)


def _is_secret_shape(shape: Shape) -> bool:
    return any(member in (SecretStr, SecretBytes) for member in shape.members)


@memoize
def schema_holds_secrets(model: type[Any]) -> bool:
    """Whether a config of `model` may hold a secret anywhere (`holds_secrets`, once a class)."""
    return holds_secrets(shape_of(model))


class SecretCopies:
    """Which references copy a secret into a value that is not one, for one composition.

    compose shows a value as a secret (masked in `show`, `explain`, errors, run records and
    trackers, its config file made `0600`) by its field's type alone: `log.header: str` set to
    `"Bearer ${api.key}"` would hold the key in clear, and be printed and recorded so, and the
    app's own `print(config)` would show it too. Masking values by where they came from could
    not reach that last one; so such a reference is refused, and the fix is the type."""

    def __init__(self, root: Shape, tree: Any) -> None:
        self.root = root
        self.tree = tree
        self._paths: list[tuple[str, ...]] | None = None  # found at the first reference

    def copied(self, site: KeyPath, target: KeyPath) -> str | None:
        """The dotted key of a secret that the reference at `site` to `target` puts where the
        schema takes no secret: `target` is a secret, lies in one (a value of a
        `dict[str, SecretStr]`) or holds one (a section copied whole). None: nothing is."""
        if self._paths is None:  # list indices as text, as a reference may spell them
            self._paths = [tuple(map(str, p)) for p, _ in secret_fields(self.root, self.tree)]
        to = tuple(map(str, target))
        for found in self._paths:
            if found[: len(to)] == to:  # the secret is the target, or inside it
                place = (*site, *found[len(to) :])
                if not self._secret_at(place):
                    return dotted(found)
            elif to[: len(found)] == found and not self._secret_at(site):
                return dotted(to)
        return None

    def _secret_at(self, path: tuple[str | int, ...]) -> bool:
        """Whether the schema takes a secret at `path` (by its fields, not the tree's values)."""
        flag = "--" + dotted(path)
        try:
            shape = walk(self.root, split_dotted(flag[2:]), {}, flag).shape
        except ComposeError:  # no field of the schema: a place it takes no secret
            return False
        return _is_secret_shape(shape) or names_secret(self.root, flag)


def holds_secrets(shape: Shape) -> bool:
    """Whether a value of `shape` may hold a secret, through lists, dicts and sections."""
    stack, seen = [shape], set()
    while stack:
        shape = stack.pop()
        if _is_secret_shape(shape):
            return True
        if shape.item is not None:
            stack.append(shape.item)
        for model in shape.sections:
            if model not in seen:
                seen.add(model)
                stack += [field.shape for field in plan_of(model).fields.values()]
    return False
