"""`BaseConfig`: the Pydantic base class schemas are built from."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, model_validator


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

    @model_validator(mode="before")
    @classmethod
    def _compose_meaning(cls, data: Any) -> Any:
        if not data:  # `Section()`, as class defaults are made at import: nothing to give
            return data
        # Imported on first validation of data: a bare --help never needs it
        from compose._schema.prepare import prepare_fields  # noqa: PLC0415

        return prepare_fields(cls, data)
