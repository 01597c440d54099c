"""Where a Hydra config's keys land (`compose_hydra`): its group path by default, `group@pkg`
relative to the containing config, `_here_`, `_global_`, `# @package` headers (absolute, read
only from the comment lines at the top); and the key by which the command line names the
choice, which follows the final package."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from conftest import write_tree as tree

from compose import ArgvError, SourceError, compose_hydra

# Trees written short: most primaries have no _self_, which Hydra (and compose) warn of
pytestmark = pytest.mark.filterwarnings("ignore:.*has no _self_:compose.ComposeWarning")

if TYPE_CHECKING:
    from conftest import WriteFile


@pytest.mark.parametrize(
    ("entry", "header", "expected"),
    [
        ("db: a", "", {"db": {"x": 1}}),
        ("db@src: a", "", {"src": {"x": 1}}),
        ("db@_here_: a", "", {"x": 1}),
        ("db@_global_.deep.at: a", "", {"deep": {"at": {"x": 1}}}),
        ("db: a", "# @package _global_\n", {"x": 1}),
        ("db: a", "# @package moved.here\n", {"moved": {"here": {"x": 1}}}),
        ("db@src: a", "# @package moved\n", {"src": {"x": 1}}),  # the entry's @pkg wins
        ("db: a", "# a comment\n# @package _global_\n", {"db": {"x": 1}}),  # not a header
    ],
)
def test_packages_at_the_top(write: WriteFile, entry: str, header: str, expected: object) -> None:
    conf = tree(write, {"config.yaml": f"defaults:\n  - {entry}\n", "db/a.yaml": header + "x: 1\n"})
    assert compose_hydra(conf, "config") == expected


def test_a_nested_entry_is_relative_to_its_config(write: WriteFile) -> None:
    conf = tree(
        write,
        {
            "config.yaml": "defaults:\n  - server: apache\n",
            "server/apache.yaml": "defaults:\n  - db@store: sqlite\n  - /log@_here_: std\n",
            "server/db/sqlite.yaml": "file: x\n",
            "log/std.yaml": "level: 1\n",
        },
    )
    assert compose_hydra(conf, "config") == {"server": {"store": {"file": "x"}, "level": 1}}


def test_a_primary_header_moves_every_child_and_their_keys(write: WriteFile) -> None:
    conf = tree(
        write,
        {
            "config.yaml": "# @package foo\ndefaults:\n  - group1: a\n",
            "group1/a.yaml": "x: 1\n",
            "group1/b.yaml": "x: 2\n",
        },
    )
    assert compose_hydra(conf, "config") == {"foo": {"group1": {"x": 1}}}
    assert compose_hydra(conf, "config", ["group1@foo.group1=b"]) == {"foo": {"group1": {"x": 2}}}


def test_two_packages_of_one_group_are_chosen_apart(write: WriteFile) -> None:
    conf = tree(
        write,
        {
            "config.yaml": "defaults:\n  - db@src: a\n  - db@dst: a\n",
            "db/a.yaml": "x: 1\n",
            "db/b.yaml": "x: 2\n",
        },
    )
    assert compose_hydra(conf, "config", ["db@dst=b", "~db@src"]) == {"dst": {"x": 2}}
    with pytest.raises(ArgvError, match="no entry of the defaults list chooses db"):
        compose_hydra(conf, "config", ["db=b"])


def test_an_entry_header_does_not_change_its_override_key(write: WriteFile) -> None:
    conf = tree(
        write,
        {
            "config.yaml": "defaults:\n  - db: a\n",
            "db/a.yaml": "# @package _global_\nx: 1\n",
            "db/b.yaml": "# @package _global_\nx: 2\n",
        },
    )
    assert compose_hydra(conf, "config", ["db=b"]) == {"x": 2}


def test_a_list_lands_at_a_package(write: WriteFile) -> None:
    conf = tree(
        write, {"config.yaml": "defaults:\n  - items@all: two\n", "items/two.yaml": "- 1\n- 2\n"}
    )
    assert compose_hydra(conf, "config") == {"all": [1, 2]}


def test_a_package_past_the_depth_limit_is_refused_where_it_is_written(write: WriteFile) -> None:
    deep = ".".join("p" * 60)  # each below 100 segments; joined, the package is 120 deep
    conf = tree(
        write,
        {
            "config.yaml": f"defaults:\n  - one@{deep}.{deep}: x\n  - _self_\n",
            "nested.yaml": "defaults:\n  - two: x\n  - _self_\n",
            "one/x.yaml": "a: 1\n",
            "two/x.yaml": f"# @package {deep}\ndefaults:\n  - /one@{deep}: x\n  - _self_\n",
        },
    )
    for name, origin in [
        ("config", "conf/config.yaml:2"),
        ("nested", "conf/nested.yaml:2 -> conf/two/x.yaml:3"),
    ]:
        with pytest.raises(SourceError) as caught:
            compose_hydra(conf, name)
        assert caught.value.message == "a package of more than 100 segments", name
        assert caught.value.origin == origin
