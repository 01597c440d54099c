"""What composing gives: the merged tree before interpolation and binding, who set what, and
where later stages have work to do (what the nodes' text held).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from compose._input.argv import ValueItem
from compose._input.origins import FileSource, Origins
from compose._input.search import SearchPath
from compose._merge.migrations import Versions, versions_of
from compose._schema.keys import cli_key
from compose._schema.shape import Shape
from compose._shortcuts import SHORTCUTS
from compose._syntax import INTERPOLATION, MANDATORY, dotted
from compose._tree import KeyPath
from compose.errors import ComposeError

if TYPE_CHECKING:  # the file reader (and tomli) is loaded by composing, not by help
    from compose._input.files import FileCache
    from compose._merge.typed import TypedTree


class Composed:
    """The merged tree before interpolation and binding, with who set what."""

    __slots__ = (  # made once a composition: slots make it and its stores cheaper
        "aliased",
        "env_secrets",
        "files",
        "may_hold_none",
        "needs_resolution",
        "origins",
        "pending",
        "root",
        "search_path",
        "sources",
        "tree",
        "typed",
        "unchecked",
        "versions",
        "work_below",
    )

    def __init__(
        self,
        tree: dict[str, Any],
        origins: Origins,
        root: Shape,
        sources: list[FileSource],
        search_path: SearchPath = (),
    ) -> None:
        self.tree = tree
        self.origins = origins
        self.root = root
        self.sources = sources  # every file read, for a replay to read again
        self.search_path = search_path  # the app's directories to find file names in
        # Where resolution may have work: the values at and below these paths (None: anywhere).
        # A node whose text holds "${" or "???" adds the keys it sets, so resolution need not
        # look at every value that files without references merged (see `note_work`).
        self.work_below: set[KeyPath] | None = set() if SHORTCUTS else None
        self.needs_resolution: set[FileSource] = set()  # file nodes whose text marks that work
        self.may_hold_none = False  # some file may spell "None" (or escape it): it may need None
        self.pending: list[ComposeError] = []  # errors reported with validation's
        # Flags whose keys no field of the schema's classes names, by the path they set: the
        # class that validates the section judges them, and its verdict names the flag.
        self.unchecked: dict[KeyPath, ValueItem] = {}
        # Secret fields set to `${oc.env:NAME}`, by path: the reference and the field's type,
        # so the bound secret remembers where it came from (`compose._schema.secrets`).
        self.env_secrets: dict[KeyPath, tuple[str, Any]] = {}
        self.files: FileCache | None = None  # files read once for many compositions (a sweep)
        # Some node named a field by a validation alias: validation is handed each value under
        # the name the node that set it wrote (its origin says which: `_bind.validate`)
        self.aliased = False
        # A Hydra tree's types (store models by path), once a `NodeItem` is merged
        self.typed: TypedTree | None = None
        # The root schema's versions and migrations (`versioned`), or None: files need none
        self.versions: Versions | None = versions_of(root.model)

    @property
    def may_interpolate(self) -> bool:
        """Some node holds "${" or "???": resolution has work to do."""
        return self.work_below is None or bool(self.work_below)

    def show_key(self, path: KeyPath) -> str:
        if self.typed is not None:  # a Hydra tree's (its nodes typed as OmegaConf types them)
            return dotted(path) if path else "(root)"  # as Hydra's overrides name it: db.port
        if self.root.model is None:
            return _plain_key(path)
        return cli_key(self.root, path, self.tree)


def _plain_key(path: KeyPath) -> str:
    return "--" + dotted(path) if path else "(root)"


def marks_resolution(text: str) -> bool:
    """A cheap look at raw text: only "${" and "???" give interpolation work to do. An escape
    (a unicode escape for `$`, a line continuation between `$` and `{`) can spell either, so
    any backslash counts too: rare in configs, and it costs one scan, never a wrong result.
    Each pattern is looked for only where its first character is there: a one-character search
    is memchr's, several times faster than one for a longer pattern."""
    return (
        ("$" in text and INTERPOLATION in text)
        or ("?" in text and MANDATORY in text)
        or "\\" in text
    )


def note_work(composed: Composed, paths: Iterable[KeyPath]) -> None:
    """A node whose text may need resolution set the values at `paths`: resolution looks there.

    A value stays below the key that set it: tables merge key by key, and list strategies only
    append to a list or merge into its elements where they are. Class defaults, which come into
    the tree elsewhere, make resolution look everywhere (`_api.resolve`)."""
    if composed.work_below is not None:
        composed.work_below.update(paths)
