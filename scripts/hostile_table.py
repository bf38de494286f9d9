"""The hostile-input suite's coverage, for docs/reliability.md: cases by family and by command, from the
table itself (tests/hostile/cases.py), so the docs cannot drift from what CI runs.

    python scripts/hostile_table.py
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "hostile"))

from cases import (cache_cases, import_cases, output_cases, reference_cases,  # noqa: E402
                   stream_cases)

FAMILIES = {
    "references and file names": reference_cases,
    "files that misbehave at import": import_cases,
    "output paths": output_cases,
    "foreign, damaged and odd caches": cache_cases,
    "closed and full streams": stream_cases,
}


def main() -> None:
    total = 0
    print("| family | cases | commands | exit codes asserted |")
    print("|---|---|---|---|")
    for family, make in FAMILIES.items():
        cases = make()
        total += len(cases)
        commands = Counter(c.argv[0] for c in cases)
        codes = Counter(c.code for c in cases)
        print(f"| {family} | {len(cases)} | " + ", ".join(f"{k} {n}" for k, n in sorted(commands.items()))
              + " | " + ", ".join(f"{k}: {n}" for k, n in sorted(codes.items())) + " |")
    print(f"| **all** | **{total}** | | |")
    print()
    print(f"{total} table cases (tests/hostile/test_hostile.py) + the timed cases of tests/hostile/test_signals.py")


if __name__ == "__main__":
    main()
