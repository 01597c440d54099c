"""`write_configs`: the resolved configs as `OUTPUT_DIR/configs/NAME.toml`, all written or none.

Apart from the TOML writer (`compose._dump`) because apps import `write_configs` beside `cli`
at the top of their entrypoint: the writer is loaded when files are written, so `--help` never
loads it (two modules, 1.4M instructions of every start).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def write_configs(output_dir: str | os.PathLike[str], files: Mapping[str, Any]) -> list[Path]:
    """Write `OUTPUT_DIR/configs/NAME.toml` for each NAME -> model (or dict).

    Every file is rendered and written to a temporary file beside its target before any is
    renamed over its target, so a bad value or a full disk changes no file and leaves no
    partial one; each rename is atomic (a failing rename itself, rare, can leave earlier files
    renamed). Names are plain file stems, never paths: nothing is written outside
    `OUTPUT_DIR/configs`.
    """
    from compose import _dump  # noqa: PLC0415  # the TOML writer: see the module docstring

    directory = Path(output_dir) / "configs"
    texts = {_config_name(name): _dump.to_toml(value) for name, value in files.items()}
    directory.mkdir(parents=True, exist_ok=True)
    staged: list[tuple[Path, Path]] = []
    try:
        for name, text in texts.items():
            staged.append((_stage(directory, name, text), directory / f"{name}.toml"))
        for temporary, target in staged:
            os.replace(temporary, target)
    finally:
        for temporary, _ in staged:
            temporary.unlink(missing_ok=True)
    return [target for _, target in staged]


def _config_name(name: str) -> str:
    if not name or "/" in name or "\\" in name or name.startswith(".") or "\0" in name:
        raise ValueError(f"not a config file name: {name!r}")
    return name


def _stage(directory: Path, name: str, text: str) -> Path:
    handle, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
    except BaseException:
        os.unlink(temporary)  # a full disk or text UTF-8 cannot hold: leave nothing behind
        raise
    return Path(temporary)
