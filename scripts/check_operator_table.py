#!/usr/bin/env python3
"""The README's operator table names every op type Lumen runs, and nothing it does not run.

The table (between two marker comments in README.md's "## Operators") is what a user reads to know whether a model will load;
the registry (`lumen_run --list-operators`) is what actually loads. A layer added without its row,
or a row left behind by a removed layer, fails this ctest (operator_table).

    scripts/check_operator_table.py README.md LUMEN_RUN     check (the ctest)
    scripts/check_operator_table.py --write README.md        rewrite the table from source/layer/

--write rebuilds the table between its two marker comments from the LUMEN_REGISTER_LAYER and
LUMEN_REGISTER_ACTIVATION lines of source/layer/**/*.cpp: one row per family folder.
"""
import pathlib
import re
import subprocess
import sys

BEGIN = "<!-- operator table: written by scripts/check_operator_table.py --write -->"
END = "<!-- end of the operator table -->"
REGISTRATION = re.compile(r"LUMEN_REGISTER_(?:LAYER|ACTIVATION)\(\s*\w+\s*,(.*?)\);", flags=re.S)


def write_table(readme):
    """Replaces the table between BEGIN and END with one generated from the layer sources."""
    root = pathlib.Path(readme).resolve().parent
    rows = ["| family (`source/layer/...`) | op types (`;` between files) |", "| --- | --- |"]
    layers = root / "source/layer"
    for family in [layers] + sorted(p for p in layers.iterdir() if p.is_dir()):
        groups = []
        for source in sorted(family.glob("*.cpp")):
            for match in REGISTRATION.finditer(source.read_text(encoding="utf-8")):
                types = re.findall(r'"([^"]+)"', match.group(1))
                groups.append(", ".join(f"`{t}`" for t in types))
        if groups:
            name = "(the framework)" if family == layers else f"`{family.name}/`"
            rows.append(f"| {name} | " + "; ".join(groups) + " |")
    text = pathlib.Path(readme).read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    text = text[:start] + "\n" + "\n".join(rows) + "\n" + text[end:]
    pathlib.Path(readme).write_text(text, encoding="utf-8")


def table_types(readme):
    """The op types in backquotes in the README's operator table (between BEGIN and END)."""
    text = open(readme, encoding="utf-8").read()
    if BEGIN not in text or END not in text:
        sys.exit(f"{readme}: no operator table (the markers {BEGIN} and {END})")
    table = text[text.index(BEGIN):text.index(END)]
    types = set()
    for line in table.splitlines():
        if line.startswith("|"):
            types.update(re.findall(r"`([A-Za-z_][\w.:]*)`", line))
    return types


def main():
    if sys.argv[1] == "--write":
        write_table(sys.argv[2])
        return
    readme, lumen_run = sys.argv[1], sys.argv[2]
    listed = subprocess.run([lumen_run, "--list-operators"], check=True, capture_output=True,
                            text=True).stdout.split()
    in_table = table_types(readme)
    missing = sorted(set(listed) - in_table)
    extra = sorted(in_table - set(listed))
    for type_name in missing:
        print(f"{readme}: the operator table lacks `{type_name}`, which Lumen runs")
    for type_name in extra:
        print(f"{readme}: the operator table names `{type_name}`, which no layer registers")
    if missing or extra:
        sys.exit(1)
    print(f"{len(listed)} op types, each in the table")


if __name__ == "__main__":
    main()
