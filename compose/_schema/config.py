"""`BaseConfig`: the Pydantic base class schemas are built from."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, model_validator

from compose._syntax import FROZEN_ATTR

if TYPE_CHECKING:
    from typing_extensions import Self


class BaseConfig(BaseModel):
    """A schema section: unknown keys are errors, field docstrings describe flags in --help.

    Data validated by a `BaseConfig` means what it means in a composition, however it arrives
    (`compose`, `Model.model_validate(data)`, `Model(**data)`, or a dict an app's own
    before-validator writes): the text "None" is None where the field admits None, and a
    union section without its tag keeps the variant of the field's default
    (`compose._schema.prepare`).
    """

    model_config = ConfigDict(
        extra="forbid",
        # Field docstrings feed --help, read from source only when help is drawn
        # (compose._schema.docstrings): Pydantic's use_attribute_docstrings would read every class's
        # source at import, most of an entrypoint's cold start.
        validate_default=False,
    )
    __compose_prepares__: ClassVar[bool] = True  # compose._schema.prepare.PREPARES_ITSELF
    # compose._schema.memo.MEMO_ATTR: each class makes its own on first use; None here spares
    # that first use a failed lookup (Pydantic's metaclass `__getattr__`, and an exception).
    # Not annotated `ClassVar`: Pydantic evaluates a base's annotations again for every
    # subclass (6M instructions for the rl example's schema).
    __compose_memo__ = None
    __compose_migrations__ = None  # compose._schema.plan.MIGRATIONS_ATTR: `versioned` sets it

    # Frozen results (`compose._schema.frozen`): one lookup in the instance's dict added to an
    # assignment, none to a composition (Pydantic fills `__dict__` without `__setattr__`).
    def __setattr__(self, name: str, value: Any) -> None:
        if FROZEN_ATTR in self.__dict__ and name not in self.__private_attributes__:
            raise _refused(self, name, "assign", value)
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if FROZEN_ATTR in self.__dict__ and name not in self.__private_attributes__:
            raise _refused(self, name, "delete")
        super().__delattr__(name)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """Pydantic's `model_copy`; a frozen result's copy is frozen, its `update` values too."""
        copied = super().model_copy(update=update, deep=deep)
        if update and FROZEN_ATTR in self.__dict__:
            from compose._schema.frozen import refreeze  # noqa: PLC0415  # frozen results only

            refreeze(copied, update)
        return copied

    @model_validator(mode="before")
    @classmethod
    def _compose_meaning(cls, data: Any) -> Any:
        if not data:  # `Section()`, as class defaults are made at import: nothing to give
            return data
        # Imported on first validation of data: a bare --help never needs it
        from compose._schema.prepare import prepare_fields  # noqa: PLC0415

        return prepare_fields(cls, data)


def _refused(model: BaseModel, name: str, what: str, *value: Any) -> Exception:
    from compose._schema.frozen import refuse  # noqa: PLC0415  # only a frozen result needs it

    return refuse((*model.__dict__[FROZEN_ATTR], name), what, *value)
