"""`write_configs`: the resolved configs as `OUTPUT_DIR/configs/NAME.toml`, all written or none.

Apart from the TOML writer (`compose._output.toml`) because apps import `write_configs` beside `cli`
at the top of their entrypoint: the writer is loaded when files are written, so `--help` never
loads it (two modules, 1.4M instructions of every start). The files are written by compose's
one writer (`compose._atomic`), which holds every promise below.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from compose._atomic import PRIVATE, NewFile, write_files
from compose._output.plain import holds_secret

CONFIGS = "configs"  # below the output directory: the configs, and nothing else


def write_configs(output_dir: str | os.PathLike[str], files: Mapping[str, Any]) -> list[Path]:
    """Write `OUTPUT_DIR/configs/NAME.toml` for each NAME -> model (or dict): the old set or
    the new set, never a mix.

    Every file is rendered and written to a temporary file beside its target before any is
    renamed over its target, so a bad value or a full disk changes no file and leaves no
    partial one. The renames are one commit: Ctrl-C and termination signals wait until it
    ends, and a rename that fails puts every earlier target back. A writer killed outright
    (SIGKILL, a power cut) leaves its temporaries and the files it replaced beside their
    targets, and the next write to the directory puts that writer's old set back first. Two
    processes writing the same directory take turns (a lock on it, where the platform has
    one). Files are opened and renamed through a descriptor of the configs directory, never
    by path, so a symlink swapped in while writing cannot send the files elsewhere, and a
    symlink planted at a file's name is replaced, its target never written. A file follows
    the umask, except one that holds a secret: 0600. Names are plain file stems, never paths.

    A directory that cannot be made or written, or a config file there made read-only,
    raises `OutputError` naming it and why.
    """
    written = config_files(output_dir, files)
    write_files(written, what=CONFIGS)
    return [file.path for file in written]


def config_files(output_dir: str | os.PathLike[str], files: Mapping[str, Any]) -> list[NewFile]:
    """The files `write_configs` writes, rendered (for writing with others, all or none)."""
    from compose._output import toml as _dump  # noqa: PLC0415  # the TOML writer: see the module docstring

    directory = Path(output_dir) / CONFIGS
    return [
        NewFile(
            directory / f"{_config_name(name)}.toml",
            _dump.to_toml(value),
            PRIVATE if holds_secret(value) else None,
        )
        for name, value in files.items()
    ]


def _config_name(name: str) -> str:
    if not name or "/" in name or "\\" in name or name.startswith(".") or "\0" in name:
        raise ValueError(f"not a config file name: {name!r}")
    return name
