"""The table of docs/reliability.md: the bad-value cases of tests/bad_values.py by category, run through
the CLI, with how each was answered.

    python scripts/reliability_table.py
"""

from __future__ import annotations

import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from bad_values import cases  # noqa: E402
from click.testing import CliRunner  # noqa: E402

from ttinspect.cli.main import cli  # noqa: E402


def main() -> None:
    runner = CliRunner()
    by_category: dict[str, list] = collections.defaultdict(list)
    for category, args in cases():
        result = runner.invoke(cli, args)
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        right = result.exit_code == 2 and len(lines) == 1 and not result.stdout
        by_category[category].append((args, right, lines[0] if lines else ""))
    total = sum(len(v) for v in by_category.values())
    good = sum(r for v in by_category.values() for _, r, _ in v)
    print(f"{total} cases, {good} answered in one line with exit code 2\n")
    print("| option | cases | one line, exit 2 | example answer |")
    print("|---|---|---|---|")
    for category, results in by_category.items():
        example = max(results, key=lambda r: len(r[2]))[2].replace("|", "/")
        example = example if len(example) <= 110 else example[:107] + "..."
        print(f"| `{category}` | {len(results)} | {sum(r for _, r, _ in results)} | {example} |")


if __name__ == "__main__":
    main()
