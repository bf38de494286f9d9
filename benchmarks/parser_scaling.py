"""Parser + facts time against input size: 1 MB and 50 MB of each stage (the seed text repeated), to
show the time grows linearly (the trust issue: 50 MB within 2x of 50x the 1 MB time).

    python benchmarks/parser_scaling.py            # prints a table; docs/reliability.md has the figures
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fuzz_harness import SEEDS, analyze  # noqa: E402


def seconds(stage: str, text: str) -> float:
    start = time.perf_counter()
    analyze(stage, text)
    return time.perf_counter() - start


def main() -> None:
    print(f"{'stage':<10} {'1 MB s':>8} {'50 MB s':>8} {'ratio':>7}  (linear = 50, the bound = 100)")
    for stage, path in sorted(SEEDS.items()):
        seed = path.read_text()
        small = seed * max(1, 1_000_000 // len(seed))
        large = seed * max(1, 50_000_000 // len(seed))
        t_small = min(seconds(stage, small) for _ in range(2))
        t_large = seconds(stage, large)
        ratio = t_large / t_small * (len(small) / len(large)) * 50
        print(f"{stage:<10} {t_small:8.2f} {t_large:8.2f} {ratio:7.1f}", flush=True)


if __name__ == "__main__":
    main()
