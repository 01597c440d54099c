"""`BaseConfig`: the Pydantic base class schemas are built from."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class BaseConfig(BaseModel):
    """A schema section: unknown keys are errors, field docstrings describe flags in --help."""

    model_config = ConfigDict(
        extra="forbid",
        use_attribute_docstrings=True,
        validate_default=False,
    )
