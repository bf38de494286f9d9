"""The shipped kernels under every Triton release, computed by ttinspect itself (`ttinspect versions`):
docs/data/versions/matrix.json and the table between the matrix markers of docs/versions.md.

    ttinspect toolchains --add 3.3.1 --add 3.4.0 ...      # every release but the installed one
    python scripts/versions_matrix.py                      # all prepared releases + the installed one
    python scripts/versions_matrix.py --markdown-only      # the table again from the JSON

tests/test_versions_matrix.py reads the JSON: every fact that changes between two consecutive releases
must be listed there with its reason, and the installed release's live facts must equal its column.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DATA = ROOT / "docs" / "data" / "versions" / "matrix.json"
DOC = ROOT / "docs" / "versions.md"
BEGIN, END = "<!-- matrix:begin (scripts/versions_matrix.py) -->", "<!-- matrix:end -->"
VARIANTS = ("naive", "opt", "opt_tma", "tileon", "softmax")
ARCHES = ("sm_80", "sm_90", "sm_100")
SHOWN = ("pipeline_depth", "tensor_core_path", "shared_memory", "registers", "spills", "occupancy")


def compute(versions: list[str]) -> dict:
    from ttinspect.refs.resolver import RefOptions
    from ttinspect.versions.rows import version_rows

    cells = {}
    for variant in VARIANTS:
        for arch in ARCHES:
            rows = version_rows(variant, versions, RefOptions(arch=arch))
            cells[f"{variant}@{arch}"] = {r.version: (r.as_dict()["facts"] if r.error is None else {"error": r.error})
                                          for r in rows}
            print(f"{variant}@{arch}: done", file=sys.stderr)
    return {"versions": versions, "facts": list(SHOWN), "cells": cells}


def markdown(data: dict) -> str:
    versions = data["versions"]
    lines = [BEGIN, "",
             "| kernel@target | " + " | ".join(versions) + " |", "|---|" + "---|" * len(versions)]
    for name, by_version in data["cells"].items():
        row, previous = [], None
        for version in versions:
            facts = by_version.get(version, {})
            if "error" in facts:
                text = "does not compile"
            else:
                text = (f"depth {facts.get('pipeline_depth')}, {facts.get('tensor_core_path')}, "
                        f"{facts.get('registers')} regs, {facts.get('spills')} spills, "
                        f"{facts.get('shared_memory')} B, {facts.get('occupancy')}")
            row.append(f"**{text}**" if previous is not None and text != previous else text)
            previous = text
        lines.append(f"| {name} | " + " | ".join(row) + " |")
    lines += ["", "Bold: differs from the release to its left. `ttinspect diff REF@triton=A REF@triton=B --arch ARCH "
              "--passes` explains each.", "", END]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown-only", action="store_true")
    options = parser.parse_args()
    if options.markdown_only:
        data = json.loads(DATA.read_text())
    else:
        from ttinspect.versions.rows import default_versions

        data = compute(default_versions())
        DATA.parent.mkdir(parents=True, exist_ok=True)
        DATA.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    text = DOC.read_text()
    table = markdown(data)
    if BEGIN in text:
        text = text[:text.index(BEGIN)] + table + text[text.index(END) + len(END):]
    else:
        text = text.rstrip() + "\n\n## The shipped kernels under every release\n\n" + table + "\n"
    DOC.write_text(text)
    print(f"wrote {DATA.relative_to(ROOT)} and the table in {DOC.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
