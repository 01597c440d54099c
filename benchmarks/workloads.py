"""Deterministic workloads: N files x M leaves as TOML (and the same data as YAML), on disk.

Schema-less files hold sections `g{group}.s{section}` of ten leaves `k0..k9` (ints, floats,
text, booleans, a short list). File `i` covers a window of `M / 10` sections starting at
`i * M / 20`: each file overlaps half of the one before, so merging replaces values and
descends into shared tables instead of only adding keys.

Typed files set fields of a generated schema of ~500 fields (`bench_schema.py`: nested
sections, discriminated unions, an optional section, lists), again in half-overlapping windows;
past the schema's own leaves the rest go into `blocks`, a `dict[str, Block]`.

With K > 0 the last file gets a `[refs]` table of K interpolations (`${g000.s1.k2}`), a tenth
of them inside text (`"x-${...}-y"`), a tenth chained to another reference.
CLI workloads add 200 overrides (`key`, `value text`) to the same files.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

LEAVES_PER_SECTION = 10
SECTIONS_PER_GROUP = 10
SCHEMA_MODULE = "bench_schema"
BASELINE_MODULE = "bench_schema_pydantic"

Tree = dict[str, Any]
KeyPath = tuple[str, ...]


@dataclass(frozen=True)
class Workload:
    """One cell's input: `typed` binds onto the generated schema; `overrides` CLI flags."""

    n: int
    m: int
    typed: bool = False
    k: int = 0
    overrides: int = 0

    @property
    def name(self) -> str:
        kind = "typed" if self.typed else "plain"
        extra = f"-k{self.k}" if self.k else ""
        extra += f"-o{self.overrides}" if self.overrides else ""
        return f"{kind}-n{self.n}-m{self.m}{extra}"

    @property
    def leaves(self) -> int:
        """Leaves written across all files (what every system has to read)."""
        return self.n * self.m + self.k

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Paths:
    """Where a workload lives: TOML files, YAML files (plus Hydra's primary config), extras."""

    root: Path

    @property
    def toml_dir(self) -> Path:
        return self.root / "toml"

    @property
    def yaml_dir(self) -> Path:
        return self.root / "yaml"

    def toml_files(self, n: int) -> list[str]:
        return [str(self.toml_dir / f"f{i:03d}.toml") for i in range(n)]

    def yaml_files(self, n: int) -> list[str]:
        return [str(self.yaml_dir / f"f{i:03d}.yaml") for i in range(n)]

    @property
    def overrides_file(self) -> Path:
        return self.root / "overrides.json"

    @property
    def leaves_file(self) -> Path:
        return self.root / "leaves.json"


# ---------------------------------------------------------------- values


def plain_value(c: int, i: int, j: int) -> Any:
    """Leaf `k{c}` of section `j` in file `i`: its type depends on `c` only."""
    kind = c % LEAVES_PER_SECTION
    if kind in (0, 4, 7):
        return i * 100_000 + j * 10 + c
    if kind in (1, 6):
        return float(i + j) + 0.25 * (c % 4 + 1)
    if kind in (2, 5, 9):
        return f"v{i}-{j}-{c}"
    if kind == 3:
        return (i + j) % 2 == 0
    return [i, j, c]


def section_path(j: int) -> KeyPath:
    return (f"g{j // SECTIONS_PER_GROUP:03d}", f"s{j % SECTIONS_PER_GROUP}")


def window(i: int, length: int) -> range:
    """The half-overlapping window of file `i`: it starts where the previous one's middle is."""
    start = i * length // 2
    return range(start, start + length)


def put(tree: Tree, path: KeyPath, value: Any) -> None:
    node = tree
    for segment in path[:-1]:
        node = node.setdefault(segment, {})
    node[path[-1]] = value


def plain_tree(i: int, m: int) -> Tree:
    """File `i` of a schema-less workload: `m` leaves in `m / 10` sections."""
    tree: Tree = {}
    for j in window(i, max(1, m // LEAVES_PER_SECTION)):
        put(tree, section_path(j), {f"k{c}": plain_value(c, i, j) for c in range(10)})
    return tree


# ---------------------------------------------------------------- the generated schema

# Scalar field kinds of the generated schema, cycled over each section's fields.
SCALAR_KINDS = ("int", "float", "str", "bool", "literal", "optional_int", "list_int", "float")
ANNOTATIONS = {
    "int": "int",
    "float": "float",
    "str": "str",
    "bool": "bool",
    "literal": 'Literal["x", "y", "z"]',
    "optional_int": "int | None",
    "list_int": "list[int]",
}
DEFAULTS = {
    "int": "0",
    "float": "0.5",
    "str": '"s"',
    "bool": "False",
    "literal": '"x"',
    "optional_int": "None",
    "list_int": "[]",
}
ROOT_SCALARS = 10
SECTIONS = 20
SECTION_SCALARS = 16
INNER_SCALARS = 4
UNIONS = 3
VARIANT_SCALARS = 5
CKPT_SCALARS = 8


@dataclass(frozen=True)
class Leaf:
    """A settable leaf of the schema: its path, kind and, inside a union, the tag to set."""

    path: KeyPath
    kind: str
    tag: tuple[KeyPath, str] | None = None


def scalar_kind(index: int) -> str:
    return SCALAR_KINDS[index % len(SCALAR_KINDS)]


def variant_names(u: int) -> tuple[str, str]:
    return (f"Opt{u}A", f"Opt{u}B")


def chosen_variant(u: int) -> str:
    """Files use variant B (not the default) for odd unions: binding must follow the tag."""
    return "b" if u % 2 else "a"


def schema_leaves() -> list[Leaf]:
    """Every leaf a typed file sets, in schema order (~470 of the ~500 fields)."""
    leaves = [Leaf((f"r{f:02d}",), scalar_kind(f)) for f in range(ROOT_SCALARS)]
    for s in range(SECTIONS):
        sec = f"sec{s:02d}"
        leaves += [Leaf((sec, f"f{f:02d}"), scalar_kind(f + s)) for f in range(SECTION_SCALARS)]
        leaves += [Leaf((sec, "inner", f"a{f}"), scalar_kind(f + 3)) for f in range(INNER_SCALARS)]
    for u in range(UNIONS):
        tag = chosen_variant(u)
        leaves += [
            Leaf((f"opt{u}", f"{tag}{f}"), scalar_kind(f), ((f"opt{u}", "type"), tag))
            for f in range(VARIANT_SCALARS)
        ]
    leaves += [Leaf(("ckpt", f"c{f}"), scalar_kind(f + 1)) for f in range(CKPT_SCALARS)]
    leaves.append(Leaf(("envs",), "envs"))
    return leaves


def typed_value(kind: str, i: int, index: int) -> Any:
    """A valid value of `kind` that differs between files."""
    values: dict[str, Any] = {
        "int": i * 1000 + index,
        "float": i + index / 4 + 0.5,
        "str": f"t{i}-{index}",
        "bool": (i + index) % 2 == 1,
        "literal": "xyz"[(i + index) % 3],
        "optional_int": i + index,
        "list_int": [i, index],
        "envs": [
            {"id": f"env{i}-{e}", "weight": 0.5 + e, "n": e, "tags": ["a", f"t{i}"]}
            for e in range(2)
        ],
    }
    return values[kind]


def typed_tree(i: int, m: int) -> Tree:
    """File `i` of a typed workload: schema leaves, then `blocks` entries past the schema."""
    leaves = schema_leaves()
    own = min(m, len(leaves))
    tree: Tree = {}
    for position in window(i, own):
        index = position % len(leaves)
        leaf = leaves[index]
        if leaf.tag is not None:
            put(tree, *leaf.tag)
        put(tree, leaf.path, typed_value(leaf.kind, i, index))
    rest = m - own
    if rest > 0:
        for j in window(i, math.ceil(rest / LEAVES_PER_SECTION)):
            block = {f"k{c}": plain_value(c, i, j) for c in range(10)}
            put(tree, ("blocks", f"b{j:05d}"), block)
    return tree


def schema_source(base: str) -> str:
    """The generated schema as Python source; `base` is the import line giving `BaseConfig`."""
    lines = [
        '"""Generated by benchmarks/workloads.py: a ~500-field schema for typed runs."""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Annotated, Literal",
        "",
        "from pydantic import Field",
        "",
        base,
        "",
    ]
    lines += _inner_and_sections()
    lines += _unions()
    lines += _class("Ckpt", [(f"c{f}", scalar_kind(f + 1)) for f in range(CKPT_SCALARS)])
    env_fields = [("id", "str"), ("weight", "float"), ("n", "int")]
    lines += _class("Env", env_fields, ["    tags: list[str] = []"])
    lines += _class("Block", [(f"k{c}", _block_kind(c)) for c in range(10)])
    lines += _root()
    return "\n".join(lines) + "\n"


def _block_kind(c: int) -> str:
    kinds = {0: "int", 4: "int", 7: "int", 1: "float", 6: "float", 3: "bool", 8: "list_int"}
    return kinds.get(c, "str")


def _class(name: str, fields: list[tuple[str, str]], extra: list[str] | None = None) -> list[str]:
    lines = [f"class {name}(BaseConfig):"]
    for field, kind in fields:
        lines.append(f"    {field}: {ANNOTATIONS[kind]} = {DEFAULTS[kind]}")
        lines.append(f'    """The {kind} field {field} of {name}."""')
    lines += extra or []
    return [*lines, "", ""]


def _inner_and_sections() -> list[str]:
    lines: list[str] = []
    for s in range(SECTIONS):
        inner = [(f"a{f}", scalar_kind(f + 3)) for f in range(INNER_SCALARS)]
        lines += _class(f"Inner{s:02d}", inner)
        fields = [(f"f{f:02d}", scalar_kind(f + s)) for f in range(SECTION_SCALARS)]
        lines += _class(f"Sec{s:02d}", fields, [f"    inner: Inner{s:02d} = Inner{s:02d}()"])
    return lines


def _unions() -> list[str]:
    lines: list[str] = []
    for u in range(UNIONS):
        for name, tag in zip(variant_names(u), "ab", strict=True):
            fields = [(f"{tag}{f}", scalar_kind(f)) for f in range(VARIANT_SCALARS)]
            lines += _class(name, fields, [f'    type: Literal["{tag}"] = "{tag}"'])
    return lines


def _root() -> list[str]:
    lines = ["class BenchConfig(BaseConfig):", '    """The generated benchmark schema."""']
    for f in range(ROOT_SCALARS):
        kind = scalar_kind(f)
        lines.append(f"    r{f:02d}: {ANNOTATIONS[kind]} = {DEFAULTS[kind]}")
    for s in range(SECTIONS):
        lines.append(f"    sec{s:02d}: Sec{s:02d} = Sec{s:02d}()")
    for u in range(UNIONS):
        a, b = variant_names(u)
        lines.append(f'    opt{u}: Annotated[{a} | {b}, Field(discriminator="type")] = {a}()')
    lines += [
        "    ckpt: Ckpt | None = None",
        "    envs: list[Env] = []",
        "    blocks: dict[str, Block] = {}",
    ]
    return [*lines, ""]


COMPOSE_BASE = "from compose import BaseConfig"
PYDANTIC_BASE = (
    "from pydantic import BaseModel, ConfigDict\n\n\n"
    "class BaseConfig(BaseModel):\n"
    '    model_config = ConfigDict(extra="forbid")\n'
)


def write_schema(directory: Path) -> None:
    """`bench_schema.py` (on compose's BaseConfig) and its plain-Pydantic twin, for cold start."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{SCHEMA_MODULE}.py").write_text(schema_source(COMPOSE_BASE))
    (directory / f"{BASELINE_MODULE}.py").write_text(schema_source(PYDANTIC_BASE))


# ---------------------------------------------------------------- interpolations, overrides


def refs_table(k: int, m: int) -> Tree:
    """`k` references into file 0's sections (which every merge keeps)."""
    sections = max(1, m // LEAVES_PER_SECTION)
    refs: Tree = {}
    for r in range(k):
        group, section = section_path(r % sections)
        if r % 10 == 0:
            refs[f"r{r}"] = f"x-${{{group}.{section}.k2}}-y"
        elif r % 10 == 1:
            refs[f"r{r}"] = f"${{refs.r{r - 1}}}"
        else:
            refs[f"r{r}"] = f"${{{group}.{section}.k{r % 8}}}"
    return refs


def plain_overrides(w: Workload) -> list[tuple[str, str]]:
    """`w.overrides` flags on leaves of the merged tree: ints, floats, text, booleans."""
    sections = max(1, w.m // LEAVES_PER_SECTION)
    texts = ("123", "1.5", "word", "true")
    found: list[tuple[str, str]] = []
    for o in range(w.overrides):
        group, section = section_path((o // 4) % (sections * w.n // 2 + sections // 2))
        found.append((f"{group}.{section}.k{o % 4}", texts[o % 4]))
    return found


def typed_overrides(w: Workload) -> list[tuple[str, str]]:
    """`w.overrides` flags on scalar fields of the schema, as text the CLI would carry."""
    texts = {
        "int": "42",
        "float": "0.125",
        "str": "hello",
        "bool": "true",
        "literal": "z",
        "optional_int": "7",
    }
    scalars = [leaf for leaf in schema_leaves() if leaf.kind in texts and leaf.tag is None]
    return [(".".join(leaf.path), texts[leaf.kind]) for leaf in scalars[: w.overrides]]


def overrides_of(w: Workload) -> list[tuple[str, str]]:
    return typed_overrides(w) if w.typed else plain_overrides(w)


# ---------------------------------------------------------------- writing files


def file_tree(w: Workload, i: int) -> Tree:
    tree = typed_tree(i, w.m) if w.typed else plain_tree(i, w.m)
    if w.k and i == w.n - 1:
        tree["refs"] = refs_table(w.k, w.m)
    return tree


def leaf_paths(tree: Tree, prefix: KeyPath = ()) -> Iterator[KeyPath]:
    for key, value in tree.items():
        if isinstance(value, dict) and value:
            yield from leaf_paths(value, (*prefix, key))
        else:
            yield (*prefix, key)


def write_workload(w: Workload, paths: Paths) -> None:
    """All of `w`'s files; skipped when a previous run left them complete."""
    done = paths.root / "complete"
    if done.exists():
        return
    paths.toml_dir.mkdir(parents=True, exist_ok=True)
    paths.yaml_dir.mkdir(parents=True, exist_ok=True)
    leaves: dict[str, None] = {}
    for i, (toml_file, yaml_file) in enumerate(
        zip(paths.toml_files(w.n), paths.yaml_files(w.n), strict=True)
    ):
        tree = file_tree(w, i)
        Path(toml_file).write_text(to_toml(tree))
        Path(yaml_file).write_text(to_yaml(tree))
        leaves.update((".".join(p), None) for p in leaf_paths(tree))
    overrides = overrides_of(w)
    leaves.update((key, None) for key, _ in overrides)
    (paths.yaml_dir / "bench.yaml").write_text(hydra_primary(w.n))
    paths.overrides_file.write_text(json.dumps(overrides))
    paths.leaves_file.write_text(json.dumps(list(leaves)))
    done.touch()


def hydra_primary(n: int) -> str:
    """Hydra's primary config: a defaults list of the N files, in order."""
    entries = "".join(f"  - f{i:03d}\n" for i in range(n))
    return f"defaults:\n{entries}  - _self_\n"


# ---------------------------------------------------------------- TOML and YAML writers


def scalar_text(value: Any) -> str:
    """A value as TOML writes it; JSON's syntax, which is also YAML's flow syntax."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {scalar_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(scalar_text(v) for v in value) + "]"
    return json.dumps(value)


def to_toml(tree: Tree) -> str:
    lines: list[str] = []
    _toml_table(tree, (), lines)
    return "\n".join(lines) + "\n"


def _toml_table(table: Tree, path: KeyPath, lines: list[str]) -> None:
    scalars = [(k, v) for k, v in table.items() if not isinstance(v, dict)]
    if path and (scalars or not table):
        lines.append(f"[{'.'.join(path)}]")
    lines += [f"{key} = {scalar_text(value)}" for key, value in scalars]
    for key, value in table.items():
        if isinstance(value, dict):
            _toml_table(value, (*path, key), lines)


def yaml_scalar(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return scalar_text(value)


def to_yaml(tree: Tree) -> str:
    lines: list[str] = []
    _yaml_mapping(tree, 0, lines)
    return "\n".join(lines) + "\n"


def _yaml_mapping(table: Tree, indent: int, lines: list[str]) -> None:
    pad = " " * indent
    for key, value in table.items():
        if isinstance(value, dict) and value:
            lines.append(f"{pad}{key}:")
            _yaml_mapping(value, indent + 2, lines)
        else:
            lines.append(f"{pad}{key}: {yaml_scalar(value)}")


# ---------------------------------------------------------------- a Hydra config tree


@dataclass(frozen=True)
class HydraTree:
    """A generated Hydra 1.3 tree of realistic size (`write_hydra_tree`) and how to compose it."""

    root: Path
    config_name: str
    overrides: tuple[str, ...]  # a single run: group choices, an experiment, values
    sweep: tuple[str, ...]  # a multirun of `sweep_points` jobs over values and group choices
    sweep_points: int
    files: int


def write_hydra_tree(root: Path, groups: int = 30, options: int = 4, sweep: int = 10) -> HydraTree:
    """`groups` groups `gNN` of `options` options each (`g00` has `max(options, sweep)`, which
    the multirun globs), every option setting the same twelve keys with its own values (so one
    schema fits every choice): ints, floats, text, a boolean, a list, a nested table, and
    interpolations into the primary's and a sibling group's keys. Every third group's options
    have a defaults list of their own (a nested group `inner`, then `_self_`), every fifth is
    placed with `group@package`; an `experiment` group (`# @package _global_`) overrides two
    choices and sets values, as Hydra's experiment pattern does. The primary lists every group,
    `_self_` first. Deterministic: the same arguments write the same bytes."""
    root.mkdir(parents=True, exist_ok=True)
    files = 0

    def write(relative: str, text: str) -> None:
        nonlocal files
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        files += 1

    defaults = ["_self_"]
    for g in range(groups):
        name = f"g{g:02d}"
        entry = f"{name}@shared.{name}" if g % 5 == 4 else name
        defaults.append(f"{entry}: o0")
        count = max(options, sweep) if g == 0 else options
        for o in range(count):
            write(f"{name}/o{o}.yaml", _hydra_option(g, o))
        if g % 3 == 2:
            for i in range(2):
                write(f"{name}/inner/i{i}.yaml", f"depth: {i + 1}\nwidth: {64 * (i + 1)}\n")
    defaults.append("experiment: null")
    primary = [
        "defaults:",
        *(f"  - {entry}" for entry in defaults),
        "name: generated",
        "seed: 0",
        "paths:",
        "  root: /data",
        "  out: ${paths.root}/out/${name}",
        "",
    ]
    write("config.yaml", "\n".join(primary))
    for e in range(3):
        write(
            f"experiment/e{e}.yaml",
            "# @package _global_\n"
            "defaults:\n"
            f"  - override /g01: o{(e + 1) % options}\n"
            f"  - override /g02: o{(e + 2) % options}\n"
            f"name: experiment{e}\n"
            f"seed: {100 + e}\n"
            "g03:\n"
            f"  i0: {e * 7}\n"
            f"  text: from experiment {e}\n",
        )
    values = ",".join(f"{0.01 * (i + 1):.2f}" for i in range(sweep))
    return HydraTree(
        root,
        "config",
        overrides=("g02=o3", "experiment=e1", "g00.i1=5", "seed=7", "paths.root=/scratch"),
        sweep=("g00=glob(*)", f"seed=range({sweep})", f"g01.f0={values}"),
        sweep_points=max(options, sweep) * sweep * sweep,
        files=files,
    )


def _hydra_option(g: int, o: int) -> str:
    """One option of group `g`: the group's twelve keys, with values of option `o`."""
    lines = []
    if g % 3 == 2:
        lines += ["defaults:", f"  - inner: i{o % 2}", "  - _self_"]
    sibling = f"g{(g + 1) % 30:02d}" if g % 5 != 3 else "seed"
    lines += [
        f"i0: {g * 10 + o}",
        f"i1: {o}",
        f"f0: {(g + 1) * 0.5 + o:.2f}",
        f"f1: {1e-3 * (o + 1):.0e}",
        f"text: group {g} option {o}",
        f"flag: {'true' if (g + o) % 2 else 'false'}",
        f"items: [{g}, {o}, {g + o}]",
        "nested:",
        f"  a: {o * 3}",
        f"  b: name-{g}-{o}",
        "  c:",
        f"    deep: {g + o * 0.25}",
        "where: ${paths.root}/" + f"g{g:02d}",
        "seed_copy: ${seed}" if sibling == "seed" else f"label: {sibling}-{o}",
    ]
    return "\n".join(lines) + "\n"
