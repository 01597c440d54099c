"""`BaseConfig`: the Pydantic base class schemas are built from."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class BaseConfig(BaseModel):
    """A schema section: unknown keys are errors, field docstrings describe flags in --help."""

    model_config = ConfigDict(
        extra="forbid",
        # Field docstrings feed --help, read from source only when help is drawn
        # (compose._docstrings): Pydantic's use_attribute_docstrings would read every class's
        # source at import, most of an entrypoint's cold start.
        validate_default=False,
    )
