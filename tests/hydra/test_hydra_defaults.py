"""The defaults tree of a Hydra config tree (`compose_hydra`): the primary found by name, the
search path and the store, defaults lists depth first with `_self_`, relative and absolute
groups, `override`, `optional`, `null`, `???`, multi-select and choice interpolation; and the
errors of that stage, each naming FILE:LINE and the chain of configs that led there."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from conftest import write_tree as tree

from compose import ArgvError, ComposeError, ComposeWarning, SourceError, compose_hydra

# Trees written short: most primaries have no _self_, which Hydra (and compose) warn of
pytestmark = pytest.mark.filterwarnings("ignore:.*has no _self_:compose.ComposeWarning")

if TYPE_CHECKING:
    from conftest import WriteFile


def test_defaults_merge_depth_first_and_the_config_itself_last(write: WriteFile) -> None:
    conf = tree(
        write,
        {
            "config.yaml": """
                defaults:
                  - db: mysql
                  - server: apache
                port: 1
            """,
            "db/mysql.yaml": "driver: mysql\nport: 3306\n",
            "server/apache.yaml": "defaults:\n  - db: sqlite\nname: apache\n",
            "server/db/sqlite.yaml": "file: x.db\n",
        },
    )
    assert compose_hydra(conf, "config") == {
        "db": {"driver": "mysql", "port": 3306},
        "server": {"name": "apache", "db": {"file": "x.db"}},
        "port": 1,
    }


def test_self_first_lets_the_defaults_win(write: WriteFile) -> None:
    conf = tree(
        write,
        {
            "config.yaml": "defaults:\n  - _self_\n  - db: mysql\ndb:\n  port: 1\n",
            "db/mysql.yaml": "port: 3306\n",
        },
    )
    assert compose_hydra(conf, "config.yaml") == {"db": {"port": 3306}}


def test_a_choice_on_the_command_line_and_an_appended_group(write: WriteFile) -> None:
    conf = tree(
        write,
        {
            "config.yaml": "defaults:\n  - db: mysql\n",
            "db/mysql.yaml": "driver: mysql\n",
            "db/postgresql.yaml": "driver: postgresql\n",
            "extra/on.yaml": "flag: true\n",
        },
    )
    assert compose_hydra(conf, "config", ["db=postgresql", "+extra=on"]) == {
        "db": {"driver": "postgresql"},
        "extra": {"flag": True},
    }
    assert compose_hydra(conf, "config", ["~db"]) == {}


def test_override_entries_optional_null_and_missing(write: WriteFile) -> None:
    conf = tree(
        write,
        {
            "config.yaml": """
                defaults:
                  - db: mysql
                  - optional extra: nothere
                  - cache: null
                  - experiment: fast
            """,
            "db/mysql.yaml": "driver: mysql\n",
            "db/sqlite.yaml": "driver: sqlite\n",
            "cache/redis.yaml": "host: r\n",
            "experiment/fast.yaml": (
                "# @package _global_\ndefaults:\n  - override /db: sqlite\nlr: 0.1\n"
            ),
        },
    )
    assert compose_hydra(conf, "config") == {"db": {"driver": "sqlite"}, "lr": 0.1}
    assert compose_hydra(conf, "config", ["cache=redis"])["cache"] == {"host": "r"}
    assert compose_hydra(conf, "config", ["db=mysql"])["db"] == {"driver": "mysql"}


def test_multi_select_and_choice_interpolation(write: WriteFile) -> None:
    conf = tree(
        write,
        {
            "config.yaml": """
                defaults:
                  - db: mysql
                  - features: [a, b]
                  - combo: ${db}_small
            """,
            "db/mysql.yaml": "driver: mysql\n",
            "db/sqlite.yaml": "driver: sqlite\n",
            "features/a.yaml": "a: 1\nx: a\n",
            "features/b.yaml": "b: 2\nx: b\n",
            "combo/mysql_small.yaml": "size: 1\n",
            "combo/sqlite_small.yaml": "size: 2\n",
        },
    )
    result = compose_hydra(conf, "config")
    assert result["features"] == {"a": 1, "b": 2, "x": "b"}
    assert result["combo"] == {"size": 1}
    assert compose_hydra(conf, "config", ["db=sqlite"])["combo"] == {"size": 2}


def test_search_path_from_the_primary_and_the_store(write: WriteFile) -> None:
    conf = tree(
        write,
        {
            "config.yaml": """
                defaults:
                  - db: mysql
                  - model: small
                hydra:
                  searchpath: [file://more]
            """,
            "db/mysql.yaml": "driver: mysql\n",
        },
    )
    write("more/db/mysql.yaml", "driver: shadowed\n")
    write("more/db/other.yaml", "driver: other\n")
    store = {"model/small": {"layers": 2}, "model/big@net": {"layers": 8}}
    assert compose_hydra(conf, "config", store=store) == {
        "db": {"driver": "mysql"},  # the first source that holds a config wins
        "model": {"layers": 2},
    }
    assert compose_hydra(conf, "config", ["db=other", "model=big"], store=store) == {
        "db": {"driver": "other"},
        "net": {"layers": 8},
    }


def test_no_primary_and_a_store_primary(write: WriteFile) -> None:
    conf = tree(write, {"db/mysql.yaml": "driver: mysql\n"})
    assert compose_hydra(conf, None, ["+db=mysql"]) == {"db": {"driver": "mysql"}}
    store = {"app": {"defaults": [{"db": "mysql"}], "name": "x"}}
    assert compose_hydra(conf, "app", store=store) == {"db": {"driver": "mysql"}, "name": "x"}


# --- errors --------------------------------------------------------------------------------------


def error_of(*args: Any, **kwargs: Any) -> ComposeError:
    with pytest.raises(ComposeError) as caught:
        compose_hydra(*args, **kwargs)
    return caught.value


def test_an_unknown_option_names_the_chain_and_the_close_option(write: WriteFile) -> None:
    conf = tree(
        write,
        {
            "config.yaml": "defaults:\n  - experiment: nglite\n",
            "experiment/nglite.yaml": "defaults:\n  - /db: mysq\n",
            "db/mysql.yaml": "driver: mysql\n",
        },
    )
    error = error_of(conf, "config")
    assert isinstance(error, SourceError)
    assert error.origin == "conf/config.yaml:2 -> conf/experiment/nglite.yaml:2"
    assert error.message == "no config db/mysq"
    assert error.hint is not None and "did you mean mysql?" in error.hint


def test_a_group_chosen_twice_names_both_places(write: WriteFile) -> None:
    conf = tree(
        write,
        {
            "config.yaml": "defaults:\n  - db: mysql\n  - exp: one\n",
            "exp/one.yaml": "# @package _global_\ndefaults:\n  - /db: sqlite\n",
            "db/mysql.yaml": "a: 1\n",
            "db/sqlite.yaml": "a: 2\n",
        },
    )
    error = error_of(conf, "config")  # a list's entries are chosen last first
    assert error.message == (
        "db is chosen twice: mysql here, sqlite at conf/config.yaml:3 -> conf/exp/one.yaml:3"
    )
    assert error.origin == "conf/config.yaml:2"


def test_a_group_appended_where_the_list_chooses_it_points_to_the_choice(
    write: WriteFile,
) -> None:
    # `+db=x` of a group the list already chooses: changing the choice is `db=x`, on the
    # command line, not an `override` entry in a file
    conf = tree(
        write,
        {
            "config.yaml": "defaults:\n  - db: mysql\n  - _self_\n",
            "db/mysql.yaml": "a: 1\n",
            "db/sqlite.yaml": "a: 2\n",
        },
    )
    error = error_of(conf, "config", ["+db=sqlite"])
    assert error.message.startswith("db is chosen twice: mysql here, sqlite at")
    assert error.hint is not None and "db=sqlite changes the choice" in error.hint
    assert "override" not in error.hint


def test_unused_overrides_are_reported_together_with_did_you_mean(write: WriteFile) -> None:
    conf = tree(
        write,
        {"config.yaml": "defaults:\n  - db: mysql\n", "db/mysql.yaml": "a: 1\n"},
    )
    error = error_of(conf, "config", ["db@src=mysql", "~db@other"])
    assert [type(e) for e in error.errors] == [ArgvError, ArgvError]
    first, second = error.errors
    assert first.message == "no entry of the defaults list chooses db@src"
    assert first.hint is not None and "did you mean db?" in first.hint
    assert "+db@src=mysql appends the entry" in first.hint
    assert second.message == "no entry of the defaults list to delete: db@other"


def test_a_missing_choice_lists_the_options(write: WriteFile) -> None:
    conf = tree(
        write,
        {"config.yaml": "defaults:\n  - db: ???\n", "db/a.yaml": "", "db/b.yaml": ""},
    )
    error = error_of(conf, "config")
    assert error.message == "db must be chosen"
    assert error.hint == "add db=OPTION; the options are a, b"
    assert error.origin == "conf/config.yaml:2"


@pytest.mark.parametrize(
    ("files", "message", "origin"),
    [
        (
            {"config.yaml": "defaults:\n  db: mysql\n"},
            "`defaults` must be a list",
            "conf/config.yaml:1",
        ),
        (
            {"config.yaml": "defaults:\n  - _self_\n  - _self_\n"},
            "`_self_` twice in one defaults list",
            "conf/config.yaml:3",
        ),
        (
            {
                "config.yaml": "defaults:\n  - override db: a\n  - db: a\n",
                "db/a.yaml": "",
            },
            "`override` entries come after every other entry of a defaults list",
            "conf/config.yaml:3",
        ),
        ({"config.yaml": "defaults:\n  - 3\n"}, "an entry is a config name", "conf/config.yaml:2"),
        ({"config.yaml": "- a\n- b\n"}, "a primary config is a mapping", "conf/config.yaml"),
        ({"config.yaml": "defaults:\n  - config\n"}, "nested deeper", None),
    ],
)
def test_defaults_list_errors_name_the_line(
    write: WriteFile, files: dict[str, str], message: str, origin: str | None
) -> None:
    error = error_of(tree(write, files), "config")
    assert isinstance(error, SourceError)
    assert message in error.message
    if origin is not None:
        assert error.origin == origin


def test_a_tree_that_doubles_at_each_level_is_refused_as_it_grows(write: WriteFile) -> None:
    # 15 files, each naming the next twice, as a config or as a group's option: 2^15 entries
    twice = {"": "- c{n}\n  - c{n}", "g/": "- /g@p{n}: c{n}\n  - /g@q{n}: c{n}"}
    for folder, entries in twice.items():
        conf = tree(
            write,
            {
                f"{folder}c{level}.yaml": f"defaults:\n  {entries.format(n=level + 1)}\n"
                for level in range(15)
            }
            | {f"{folder}c15.yaml": "x: 1\n"},
        )
        error = error_of(conf, f"{folder}c0")
        assert "more than 10,000 entries" in error.message, folder
        assert error.origin is not None and f"conf/{folder}c" in error.origin


@pytest.mark.parametrize(
    ("name", "overrides", "origin"),
    [
        ("config", [], "conf/config.yaml:2"),  # a group's option in a defaults list
        ("entry", [], "conf/entry.yaml:2"),  # a config entry
        ("nested", [], "conf/nested.yaml:2 -> conf/g/deeper.yaml:2"),  # /g/../.. from a group
        ("config", ["g=../../outside"], "g=../../outside"),  # a choice on the command line
        ("config", ["g=[x,../../outside]"], "g=[x,../../outside]"),  # one of a multi-select
        ("config", ["+h@a=../outside"], "conf/config.yaml -> +h@a=../outside"),  # appended
        ("../outside", [], None),  # the primary's name
        ("empty", [], "conf/empty.yaml:2"),  # an empty name between slashes
    ],
)
def test_a_config_path_cannot_leave_its_group_or_the_tree(
    write: WriteFile, name: str, overrides: list[str], origin: str | None
) -> None:
    write("outside.yaml", "secret: 1\n")  # beside conf/: never to be read
    conf = tree(
        write,
        {
            "config.yaml": "defaults:\n  - g: ../../outside\n",
            "entry.yaml": "defaults:\n  - ../outside\n",
            "nested.yaml": "defaults:\n  - g: deeper\n",
            "g/deeper.yaml": "defaults:\n  - /g/../../outside\n",
            "g/x.yaml": "x: 1\n",
            "h/x.yaml": "x: 1\n",
            "empty.yaml": "defaults:\n  - g//x\n",
        },
    )
    error = error_of(conf, name, overrides)
    assert isinstance(error, SourceError)
    assert error.message.startswith("a config path is names joined by `/`")
    assert error.origin == origin


def test_no_such_primary_says_where_it_looked(write: WriteFile) -> None:
    error = error_of(tree(write, {"other.yaml": ""}), "config")
    assert error.message == "no such primary config"
    assert error.hint is not None and "file://conf" in error.hint


def test_several_bad_entries_of_one_list_at_once(write: WriteFile) -> None:
    conf = tree(write, {"config.yaml": "defaults:\n  - 1\n  - [a]\n"})
    error = error_of(conf, "config")
    assert [e.origin for e in error.errors] == ["conf/config.yaml:2", "conf/config.yaml:3"]


def test_a_non_primary_config_cannot_set_the_search_path(write: WriteFile) -> None:
    conf = tree(
        write,
        {
            "config.yaml": "defaults:\n  - db: a\n",
            "db/a.yaml": "# @package _global_\nhydra:\n  searchpath: [file://x]\n",
        },
    )
    error = error_of(conf, "config")
    assert "only the primary config may set hydra.searchpath" in error.message
    assert error.origin == "conf/config.yaml:2"


def test_a_search_path_that_is_not_a_list(write: WriteFile) -> None:
    conf = tree(write, {"config.yaml": "a: 1\n"})
    error = error_of(conf, "config", ["hydra.searchpath=file://x"])
    assert isinstance(error, ArgvError)
    assert error.origin == "hydra.searchpath=file://x"


@pytest.mark.parametrize(
    ("name", "store"),
    [(3, None), ("config", ["db/a"]), ("config", {"db/a": 3}), ("config", {1: {}})],
)
def test_bad_arguments_are_one_argv_error(write: WriteFile, name: Any, store: Any) -> None:
    conf = tree(write, {"config.yaml": "a: 1\n"})
    with pytest.raises(ArgvError):
        compose_hydra(conf, name, store=store)


def test_a_primary_without_self_is_warned_once(write: WriteFile) -> None:
    conf = tree(write, {"config.yaml": "defaults:\n  - db: a\nx: 1\n", "db/a.yaml": "x: 2\n"})
    with pytest.warns(ComposeWarning, match="its defaults list has no _self_") as caught:
        assert compose_hydra(conf, "config", ["+y=1,2"], multirun=True)[0][1]["x"] == 1
    assert len(caught) == 1


def test_a_pkg_search_path_runs_no_code_of_the_package(
    write: WriteFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`pkg://a.b` is a directory inside the package `a`, found without importing `a`
    (whose `__init__.py` here would raise); a package that is not there holds nothing."""
    write("site/trap/__init__.py", "raise RuntimeError('imported')\n")
    write("site/trap/configs/db/other.yaml", "driver: other\n")
    monkeypatch.syspath_prepend("site")
    conf = tree(
        write,
        {
            "config.yaml": "defaults:\n  - db: other\nhydra:\n  searchpath: [pkg://trap.configs]\n",
        },
    )
    assert compose_hydra(conf, "config") == {"db": {"driver": "other"}}
    with pytest.raises(SourceError, match="no config db/other"):
        compose_hydra(conf, "config", ["hydra.searchpath=[pkg://nothere.configs]"])


@pytest.mark.parametrize("entry", ["file://nowhere", "pkg://nothere.configs"])
def test_a_search_path_entry_that_names_nothing_is_warned_of(write: WriteFile, entry: str) -> None:
    """As in Hydra, no config is read from it, and the composition is the same; unlike
    Hydra, a misspelt entry is said, once, with where it was written."""
    conf = tree(write, {"config.yaml": "defaults:\n  - db: a\n", "db/a.yaml": "x: 1\n"})
    override = f"hydra.searchpath=[{entry}]"
    with pytest.warns(ComposeWarning) as caught:
        assert compose_hydra(conf, "config", [override]) == {"db": {"x": 1}}
    kind = "package" if entry.startswith("pkg") else "directory"
    said = [str(w.message) for w in caught if "searchpath" in str(w.message)]
    assert said == [
        f"{override}: hydra.searchpath names {entry}, no {kind} here: no config is read from it"
    ]
