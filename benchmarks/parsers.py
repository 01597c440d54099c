"""Which TOML (and JSON) parser compose should read with: the evidence, in one run.

    .venv/bin/python benchmarks/parsers.py [--corpus DIR] [--out benchmarks/results]

For each candidate that is installed (tomli, the standard library's tomllib, toml-rs, rtoml,
pytomlpp) it measures:

- **speed** on the benchmark's own files (`workloads.plain_tree`: 100, 1,000 and 10,000 leaves),
  the median of interleaved rounds;
- **agreement with tomli** on the whole toml-test corpus (toml-lang/toml-test, the TOML 1.1.0
  file list): every valid file must give the same table, value for value and type for type;
  every invalid file must be refused. The corpus is fetched, not kept in this repository:
  `--corpus DIR` names a checkout, else it is cloned into the user's cache directory;
- **the edge cases** compose's users meet: big integers, datetimes with offsets, `1e400`,
  duplicate keys and tables, NUL, lone carriage returns, deep nesting;
- **import cost**, as a whole `python -X importtime` of the module.

It writes `parsers.md` and `parsers.json` to `--out`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import workloads  # noqa: E402

CORPUS_URL = "https://github.com/toml-lang/toml-test"
CORPUS_COMMIT = "d168c2a"  # the commit these results were read from
FILE_LIST = "tests/files-toml-1.1.0"

Loads = Callable[[str], Any]


def candidates() -> dict[str, tuple[str, Loads, str]]:
    """name -> (module, loads, version) for every candidate parser that imports here."""
    found: dict[str, tuple[str, Loads, str]] = {}
    for name, module, attribute in (
        ("tomli", "tomli", "loads"),
        ("tomllib", "tomllib", "loads"),
        ("toml-rs", "toml_rs", "loads"),
        ("rtoml", "rtoml", "loads"),
        ("pytomlpp", "pytomlpp", "loads"),
    ):
        try:
            loaded = importlib.import_module(module)
        except ImportError:
            continue
        version = getattr(loaded, "__version__", "")
        if not version:
            from importlib.metadata import version as installed  # noqa: PLC0415

            version = installed(name) if name != "tomllib" else sys.version.split()[0]
        found[name] = (module, getattr(loaded, attribute), str(version))
    return found


# ------------------------------------------------------------------------------- agreement


def same(a: Any, b: Any) -> bool:
    """Equal values of the same types, NaN equal to NaN, datetimes with the same offset."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, dt.datetime):
        return a == b and a.utcoffset() == b.utcoffset()
    return bool(a == b)


def outcome(loads: Loads, text: str) -> tuple[str, Any]:
    """("ok", table) or ("error", the exception's type name)."""
    try:
        return "ok", loads(text)
    except RecursionError:
        return "error", "RecursionError"
    except Exception as error:  # every refusal counts, whatever its type
        return "error", type(error).__name__


def corpus_files(corpus: Path) -> list[str]:
    return [
        line.strip()
        for line in (corpus / FILE_LIST).read_text().splitlines()
        if line.strip().endswith(".toml")
    ]


def agreement(corpus: Path, parsers: dict[str, tuple[str, Loads, str]]) -> dict[str, Any]:
    """Per parser: valid files read as tomli reads them, invalid files refused, and each
    disagreement by file."""
    reference = parsers["tomli"][1]
    files = corpus_files(corpus)
    result: dict[str, Any] = {"files": len(files)}
    for name, (_, loads, _) in parsers.items():
        counts = {"valid": 0, "valid_same": 0, "invalid": 0, "invalid_refused": 0}
        differences: list[str] = []
        for relative in files:
            raw = (corpus / "tests" / relative).read_bytes()
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                # compose decodes before it parses, so such a file is refused before any parser
                # sees it; count it as refused by every parser
                text = None
            kind = "valid" if relative.startswith("valid/") else "invalid"
            counts[kind] += 1
            mine = ("error", "UnicodeDecodeError") if text is None else outcome(loads, text)
            theirs = ("error", "UnicodeDecodeError") if text is None else outcome(reference, text)
            if kind == "invalid":
                if mine[0] == "error":
                    counts["invalid_refused"] += 1
                else:
                    differences.append(f"{relative}: accepted (tomli: {theirs[0]})")
                continue
            if mine[0] == "ok" and theirs[0] == "ok" and same(mine[1], theirs[1]):
                counts["valid_same"] += 1
            elif mine[0] == "error":
                differences.append(f"{relative}: refused ({mine[1]})")
            else:
                differences.append(f"{relative}: read differently from tomli")
        result[name] = {**counts, "differences": differences}
    return result


# ------------------------------------------------------------------------------- edge cases

EDGE_CASES: dict[str, str] = {
    "integer past 64 bits": "a = 99999999999999999999",
    "datetime with offset": "a = 1979-05-27T07:32:00-08:00",
    "datetime, nanoseconds": "a = 1979-05-27T07:32:00.999999999Z",
    "1e400": "a = 1e400",
    "-nan": "a = -nan",
    "duplicate key": "a = 1\na = 2",
    "duplicate table": "[a]\nx = 1\n[a]\ny = 2",
    "NUL in a string": 'a = "x\x00y"',
    "NUL in a comment": "a = 1 # \x00",
    "lone carriage return": "a = 1\rb = 2",
    "arrays nested 200 deep": "a = " + "[" * 200 + "]" * 200,
    "arrays nested 5,000 deep": "a = " + "[" * 5000 + "]" * 5000,
    "inline table, trailing comma (1.1)": "a = {x = 1,}",
    "time without seconds (1.1)": "a = 07:32",
    "\\e escape (1.1)": 'a = "\\e"',
}


def edge_cases(parsers: dict[str, tuple[str, Loads, str]]) -> dict[str, dict[str, str]]:
    """case -> parser -> what it gave: `same as tomli`, or the value or error it gave."""
    reference = parsers["tomli"][1]
    table: dict[str, dict[str, str]] = {}
    for case, text in EDGE_CASES.items():
        expected = outcome(reference, text)
        row: dict[str, str] = {}
        for name, (_, loads, _) in parsers.items():
            got = outcome(loads, text)
            if name == "tomli":
                row[name] = _shown(got)
            elif got[0] == expected[0] and (got[0] == "error" or same(got[1], expected[1])):
                row[name] = "same"
            else:
                row[name] = _shown(got)
        table[case] = row
    return table


def _shown(got: tuple[str, Any]) -> str:
    if got[0] == "error":
        return f"refused ({got[1]})"
    try:
        text = repr(got[1].get("a"))
    except RecursionError:
        text = "[[[[..."
    return text if len(text) < 48 else text[:45] + "..."


# ------------------------------------------------------------------------------------ speed


def speed(parsers: dict[str, tuple[str, Loads, str]], rounds: int) -> dict[str, dict[str, float]]:
    """leaves -> parser -> median microseconds to parse one benchmark file of that size."""
    result: dict[str, dict[str, float]] = {}
    for m in (100, 1000, 10000):
        text = workloads.to_toml(workloads.plain_tree(0, m))  # as run.py writes it
        times: dict[str, list[float]] = {name: [] for name in parsers}
        repeat = max(1, 20_000 // m)
        for _ in range(rounds):
            for name, (_, loads, _) in parsers.items():
                start = time.perf_counter()
                for _ in range(repeat):
                    loads(text)
                times[name].append((time.perf_counter() - start) / repeat * 1e6)
        result[str(m)] = {name: statistics.median(t) for name, t in times.items()}
    return result


def import_cost(parsers: dict[str, tuple[str, Loads, str]], rounds: int) -> dict[str, float]:
    """parser -> median microseconds its module adds to a fresh interpreter (-X importtime,
    cumulative, the module's own line)."""
    result: dict[str, float] = {}
    for name, (module, _, _) in parsers.items():
        samples = []
        for _ in range(rounds):
            done = subprocess.run(
                [sys.executable, "-X", "importtime", "-c", f"import {module}"],
                capture_output=True,
                text=True,
                check=True,
            )
            pattern = re.compile(rf"\|\s*(\d+) \| {re.escape(module)}$")
            matches = [pattern.search(line) for line in done.stderr.splitlines()]
            samples += [float(m.group(1)) for m in matches if m]
        result[name] = statistics.median(samples) if samples else math.nan
    return result


# ------------------------------------------------------------------------------ JSON and YAML


def other_formats(rounds: int) -> dict[str, dict[str, float]]:
    """leaves -> reader -> median µs for the same tree as JSON and as YAML: compose's JSON
    reader (stdlib `json` with the duplicate-key hook) beside bare `json.loads` and orjson;
    PyYAML's C loader (what compose uses where libyaml is built in) beside its Python one."""
    import yaml  # noqa: PLC0415

    from compose._input.json import parse_json  # noqa: PLC0415

    readers: dict[str, Callable[[str, str], Any]] = {
        "compose JSON (json + hook)": lambda text, _: parse_json("x.json", text),
        "json.loads": lambda text, _: json.loads(text),
        "yaml C loader": lambda _, ytext: yaml.load(ytext, Loader=yaml.CSafeLoader),
        "yaml Python loader": lambda _, ytext: yaml.load(ytext, Loader=yaml.SafeLoader),
    }
    try:
        import orjson  # noqa: PLC0415

        readers["orjson"] = lambda text, _: orjson.loads(text)
    except ImportError:
        pass
    result: dict[str, dict[str, float]] = {}
    for m in (100, 1000, 10000):
        tree = workloads.plain_tree(0, m)
        text, ytext = json.dumps(tree, indent=1), yaml.safe_dump(tree)
        times: dict[str, list[float]] = {name: [] for name in readers}
        for _ in range(max(3, rounds // 3)):
            for name, read in readers.items():
                repeat = max(1, (2_000 if "yaml" in name else 20_000) // m)
                start = time.perf_counter()
                for _ in range(repeat):
                    read(text, ytext)
                times[name].append((time.perf_counter() - start) / repeat * 1e6)
        result[str(m)] = {name: statistics.median(t) for name, t in times.items()}
    return result


# ----------------------------------------------------------------------------------- report


def corpus_dir(given: str | None) -> Path:
    if given:
        return Path(given)
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "compose-bench"
    target = cache / "toml-test"
    if not (target / FILE_LIST).exists():
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", CORPUS_URL, str(target)], check=True)
        subprocess.run(["git", "-C", str(target), "checkout", "-q", CORPUS_COMMIT], check=True)
    return target


def report(data: dict[str, Any]) -> str:
    names = list(data["versions"])
    lines = ["# TOML parsers: the evidence (`benchmarks/parsers.py`)", ""]
    lines += [
        f"Python {sys.version.split()[0]}; "
        + ", ".join(f"{n} {v}" for n, v in data["versions"].items())
        + ".",
        "",
    ]
    lines += ["## Speed: one benchmark file (µs, median of interleaved rounds)", ""]
    lines += ["| leaves | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for m, row in data["speed"].items():
        base = row["tomli"]
        cells = [f"{row[n]:,.0f} ({base / row[n]:.1f}x)" for n in names]
        lines.append(f"| {int(m):,} | " + " | ".join(cells) + " |")
    lines += ["", "(x: how many times faster than tomli)", ""]
    lines += ["## Import cost (µs, `-X importtime`, cumulative)", ""]
    lines += ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]
    lines.append("| " + " | ".join(f"{data['imports'][n]:,.0f}" for n in names) + " |")
    corpus = data["agreement"]
    lines += [
        "",
        f"## The toml-test corpus ({CORPUS_URL} at `{CORPUS_COMMIT}`, "
        f"`{FILE_LIST}`: {corpus['files']} files)",
        "",
    ]
    lines += [
        "| parser | valid files read as tomli reads them | invalid files refused |",
        "|---|---|---|",
    ]
    for n in names:
        c = corpus[n]
        lines.append(
            f"| {n} | {c['valid_same']} of {c['valid']} | "
            f"{c['invalid_refused']} of {c['invalid']} |"
        )
    for n in names:
        if corpus[n]["differences"]:
            lines += ["", f"{n}, where it differs:", ""]
            lines += [f"- `{d}`" for d in corpus[n]["differences"]]
    others = data["other_formats"]
    readers = list(next(iter(others.values())))
    lines += ["", "## JSON and YAML: the same trees (µs, median)", ""]
    lines += ["| leaves | " + " | ".join(readers) + " |", "|---|" + "---|" * len(readers)]
    for m, row in others.items():
        lines.append(f"| {int(m):,} | " + " | ".join(f"{row[r]:,.0f}" for r in readers) + " |")
    imports = ", ".join(f"{n} {v:,.0f}" for n, v in data["format_imports"].items())
    lines += ["", f"Import cost of the JSON and YAML readers (µs, as above): {imports}."]
    lines += ["", '## Edge cases ("same": as tomli gives it)', ""]
    lines += ["| case | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for case, row in data["edges"].items():
        lines.append(f"| {case} | " + " | ".join(row[n] for n in names) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", help="a checkout of toml-lang/toml-test")
    parser.add_argument("--out", default=str(HERE / "results"))
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    parsers = candidates()
    data = {
        "versions": {n: v for n, (_, _, v) in parsers.items()},
        "speed": speed(parsers, args.rounds),
        "imports": import_cost(parsers, args.rounds),
        "agreement": agreement(corpus_dir(args.corpus), parsers),
        "edges": edge_cases(parsers),
        "other_formats": other_formats(args.rounds),
        "format_imports": import_cost(
            {n: (n, lambda _: None, "") for n in ("json", "orjson", "yaml")}, args.rounds
        ),
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "parsers.json").write_text(json.dumps(data, indent=1) + "\n")
    (out / "parsers.md").write_text(report(data))
    print(report(data))


if __name__ == "__main__":
    main()
