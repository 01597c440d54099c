"""The config search path: which file a name means, and the pieces a search path offers.

A file name (`@ NAME`, `--section @ NAME`, `compose(["NAME"])`, `key=@NAME`, an `_include_`
entry) that exists as written is used as is. Otherwise the name, as given and with each config
suffix appended, is looked up in the app's directories (`search_path=`), then the working
directory, then each directory of `$COMPOSE_PATH`: `--trainer.optim @ optim/muon` finds
`conf/optim/muon.toml` as Hydra finds a config group's option. An `_include_` entry looks in
the including file's directory first.

A file node's name is read as written first (`_sources`): the search, and the environment
variable, are looked at only for a name that is not there.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator, Sequence

from compose._shortcuts import SHORTCUTS
from compose.errors import SourceError, closest

SUFFIXES = (".toml", ".json", ".yaml", ".yml")
PATH_VARIABLE = "COMPOSE_PATH"
_MAX_LISTED = 2000  # entries read from one directory when listing pieces (an error path only)

SearchPath = tuple[str, ...]  # the app's directories, as given
# What `search_path=` accepts: directories, or one directory.
Dirs = Sequence[str | os.PathLike[str]] | str | os.PathLike[str]


def as_search_path(dirs: Dirs) -> SearchPath:
    """`search_path=` as given to `cli`/`parse`/`compose`: one directory or several."""
    if isinstance(dirs, (tuple, list)):  # first: `isinstance` of an ABC costs several times more
        return tuple(os.fspath(d) for d in dirs) if dirs else ()
    if isinstance(dirs, (str, os.PathLike)):
        return (os.fspath(dirs),)
    return tuple(os.fspath(d) for d in dirs)


def find_file(name: str, search_path: SearchPath) -> str:
    """The path to read for `name`, a file node named on the command line or in `compose()`.

    A name that exists as written (or that cannot be looked up: its reader says why) is kept.
    """
    found = _usable(name)
    if found is not False or os.path.isabs(name) or not name:
        return name
    dirs = search_dirs(search_path)
    path = _look_up(name, dirs)
    if path is None:
        if os.path.isdir(name):
            return name  # reading it says it is a directory: clearer than "not found"
        raise not_found(name, dirs, origin=name)
    return path


def find_include(name: str, base: str, search_path: SearchPath, where: Callable[[], str]) -> str:
    """The path of an `_include_` entry: beside the including file, then the search path.

    `base` is the including file's directory (as shown); `where` gives the entry's line.
    """
    dirs = [base, *(d for d in search_dirs(search_path) if not _same_dir(d, base))]
    path = _look_up(name, dirs)
    if path is None:
        beside = os.path.join(base, name)
        if os.path.isdir(beside):
            return shown_path(beside)  # reading it says it is a directory
        raise not_found(name, dirs, origin=where())
    return path


def search_dirs(search_path: SearchPath) -> list[str]:
    """The app's directories, the working directory (`""`), then `$COMPOSE_PATH`'s, once each."""
    from_env = [d for d in os.environ.get(PATH_VARIABLE, "").split(os.pathsep) if d]
    dirs: list[str] = []
    for directory in [*search_path, "", *from_env]:
        if not any(_same_dir(directory, seen) for seen in dirs):
            dirs.append(directory)
    return dirs


def _same_dir(a: str, b: str) -> bool:
    return os.path.abspath(a or os.curdir) == os.path.abspath(b or os.curdir)


def _look_up(name: str, dirs: list[str]) -> str | None:
    for directory in dirs:
        for candidate in _spellings(name):
            path = os.path.join(directory, candidate)
            if _usable(path) is True:
                return shown_path(path)
    return None


def _spellings(name: str) -> list[str]:
    """`name` as given, then with each config suffix (unless it already has one)."""
    if name.endswith(SUFFIXES):
        return [name]
    return [name, *(name + suffix for suffix in SUFFIXES)]


def _usable(path: str) -> bool | None:
    """True: something to read (a file, a pipe); False: nothing there (or a directory);
    None: cannot tell (permission, a bad name): reading it will say what is wrong."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return False
    except (OSError, ValueError):
        return None
    return not stat.S_ISDIR(mode)


def shown_path(path: str) -> str:
    """A found file as messages and origins show it: relative to the working directory when it
    is inside it (`conf/optim/muon.toml`), else as found."""
    path = os.path.normpath(path)
    if not os.path.isabs(path):
        return path
    if SHORTCUTS:  # what `relpath` gives a path below the working directory, without its walk
        cwd = os.getcwd()
        if cwd != os.sep and path.startswith(cwd + os.sep):
            inside = path[len(cwd) + 1 :]
            return path if inside.startswith(os.pardir) else inside
        relative = os.path.relpath(path, cwd)  # the directory asked once, not again inside
    else:
        relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir) else relative


def not_found(name: str, dirs: list[str], origin: str) -> SourceError:
    """The error for a name found nowhere: the directories searched, and a close piece."""
    searched = ", ".join(os.path.abspath(d or os.curdir) for d in dirs)
    hint = f"looked in {searched}"
    close = _closest(name, dirs)
    if close is not None:
        hint += f"; did you mean {close}?"
    if origin == name:
        return SourceError("file not found", origin=name, hint=hint)
    return SourceError("file not found", value=name, origin=origin, hint=hint)


def _closest(name: str, dirs: list[str]) -> str | None:
    """A piece whose name is close to `name`, spelt as `name` is (with a suffix if it has one)."""
    stem, suffix = _split_suffix(name)
    named = {_stem(piece): piece for piece in _candidates(name, dirs)}
    # A typo changes a few characters: a longer name that merely starts alike is another file
    slack = max(2, len(stem) // 4)
    alike = [other for other in named if abs(len(other) - len(stem)) <= slack]
    close = closest(stem, alike, cutoff=0.75)
    if close is None:
        return None
    return named[close] if suffix else close


def _candidates(name: str, dirs: list[str]) -> Iterator[str]:
    """Config files near `name`: in each directory, its sub-directories, and `name`'s folder."""
    folder = os.path.dirname(name)
    for directory in dirs:
        yield from _files_in(directory, "")
        for group in _subdirs(directory):
            yield from _files_in(directory, group)
        if folder and not os.path.isabs(folder):
            yield from _files_in(directory, folder)


def _split_suffix(name: str) -> tuple[str, str]:
    for suffix in SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)], suffix
    return name, ""


def _stem(piece: str) -> str:
    return _split_suffix(piece)[0]


def _files_in(directory: str, group: str) -> Iterator[str]:
    """Config files directly in `directory/group`, named `group/file.toml`."""
    for entry in _entries(os.path.join(directory, group)):
        name = entry.name
        if name.endswith(SUFFIXES) and not name.startswith(".") and _is_file(entry):
            yield f"{group}/{name}" if group else name


def _subdirs(directory: str) -> list[str]:
    return sorted(_groups_in(directory, None))


def _entries(directory: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory or os.curdir) as scan:
            entries: list[os.DirEntry[str]] = []
            for entry in scan:
                entries.append(entry)
                if len(entries) >= _MAX_LISTED:
                    break
            return entries
    except (OSError, ValueError):
        return []


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def config_groups(
    search_path: SearchPath, names: Iterable[str] | None = None
) -> dict[str, list[str]]:
    """Directory name -> its pieces (`optim` -> `["optim/adamw", "optim/muon"]`) over the whole
    search path, each piece once (the first directory that has it wins). With `names` (section
    field names), only those directories are looked at: help never lists a whole tree."""
    dirs = search_dirs(search_path)
    wanted = None if names is None else set(names)
    # Each directory is listed once, and only the groups it holds are read: looking for each
    # section's name in each directory was ~40 failed scandirs (and exceptions) per `--help`.
    present = {directory: _groups_in(directory, wanted) for directory in dirs}
    groups: dict[str, list[str]] = {}
    for group in sorted(set().union(*present.values())):
        pieces: dict[str, None] = {}
        for directory in dirs:
            if group in present[directory]:
                files = _files_in(directory, group)
                pieces.update(dict.fromkeys(sorted(_stem(f) for f in files)))
        if pieces:
            groups[group] = sorted(pieces)
    return groups


def _groups_in(directory: str, wanted: set[str] | None) -> set[str]:
    """The subdirectories of `directory` that are groups (those in `wanted`, if given)."""
    entries = _entries(directory)
    found = {e.name for e in entries if not e.name.startswith((".", "_")) and _is_dir(e)}
    if wanted is not None and len(entries) >= _MAX_LISTED:  # listed in part: ask for each name
        found |= {name for name in wanted if os.path.isdir(os.path.join(directory, name))}
    return found if wanted is None else found & wanted
