"""How a found file is shown in messages and origins (`compose._input.search.shown_path`):
relative to the working directory when it is inside it, else as found; the shortcut that cuts
the directory off gives what `os.path.relpath` gives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compose._input import search


@pytest.mark.parametrize("shortcuts", [True, False])
def test_a_file_is_shown_from_the_working_directory(
    shortcuts: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search, "SHORTCUTS", shortcuts)
    work = tmp_path / "work"
    (work / "..odd").mkdir(parents=True)
    monkeypatch.chdir(work)
    here = str(work)
    assert search.shown_path(f"{here}/conf/db/mysql.yaml") == "conf/db/mysql.yaml"
    assert search.shown_path(f"{here}/conf/./db//mysql.yaml") == "conf/db/mysql.yaml"
    assert search.shown_path(f"{here}/conf/../top.yaml") == "top.yaml"
    assert search.shown_path(here) == "."
    outside = str(tmp_path / "other" / "c.yaml")
    assert search.shown_path(outside) == outside  # above the working directory: as found
    assert search.shown_path(f"{here}x/c.yaml") == f"{here}x/c.yaml"  # a sibling named alike
    odd = f"{here}/..odd/c.yaml"  # `relpath` gives "..odd/c.yaml", which reads as outside
    assert search.shown_path(odd) == odd
    assert search.shown_path("conf/c.yaml") == os.path.normpath("conf/c.yaml")
