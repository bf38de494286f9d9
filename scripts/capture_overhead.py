"""What a capture costs a launch-heavy program: a loop of small launches timed without capture, with the capture
recording, and with the hooks reporting to a session that keeps nothing (the hooks' own share).

    python scripts/capture_overhead.py                 # on a GPU machine: real launches (docs/perf.md)
    python scripts/capture_overhead.py --no-gpu        # anywhere: Triton's launch path with a stand-in driver
                                                       # whose launcher does nothing (the CPU side only)

Each mode runs `--launches` launches (default 10,000) of one tiny kernel from one line, `--rounds` times
(default 7), the modes in turns; the fastest round of each is reported with the median (a round slower than
the fastest met a busy machine; every round is printed). The
goal (issue 29): capture adds at most 5 % on the GPU. Without a GPU the launch has no driver call at all,
so the same absolute cost is a larger share: the figure there is an upper bound. The capture's launch
count is checked against the launches made (a capture that drops launches would look cheap).
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from ttinspect.capture import format as capture_format, hooks, recording  # noqa: E402


@triton.jit
def add_one(x, y, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y + offsets, tl.load(x + offsets, mask=mask) + 1, mask=mask)


class NothingKept:
    """A session that takes every record and keeps none: what the hooks alone cost."""
    stopped = False

    def add_source(self, path: Any) -> None:
        return None

    def add_compile(self, record: Any) -> str:
        return "k1"

    def add_launch(self, compile_id: str, site: str, grid: Any, args: Any = None, count: int = 1) -> None:
        pass

    def add_autotune(self, record: Any) -> None:
        pass

    def add_heuristics(self, record: Any) -> None:
        pass

    def set_device(self, device: Any) -> None:
        pass


def timed_loop(x: Any, y: Any, launches: int, synchronize: Callable[[], None]) -> float:
    """Microseconds per launch."""
    n = x.numel()
    synchronize()
    start = time.perf_counter()
    for _ in range(launches):
        add_one[(1,)](x, y, n, BLOCK=128)
    synchronize()
    return (time.perf_counter() - start) / launches * 1e6


@contextlib.contextmanager
def stand_in_driver(no_gpu: bool) -> Iterator[None]:
    if not no_gpu:
        yield
        return
    sys.path.insert(0, str(ROOT / "tests" / "data" / "capture_kernels"))
    from fake_gpu import fake_gpu  # the stand-in driver the tests use

    with fake_gpu():
        yield


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--launches", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--no-gpu", action="store_true", help="Triton's launch path on a stand-in driver")
    options = parser.parse_args()
    if not options.no_gpu and not torch.cuda.is_available():
        print("capture_overhead: no GPU here; run with --no-gpu for the CPU side only", file=sys.stderr)
        return 2
    device = "cpu" if options.no_gpu else "cuda"
    synchronize = (lambda: None) if options.no_gpu else torch.cuda.synchronize
    x = torch.arange(128, dtype=torch.float32, device=device)
    y = torch.empty_like(x)
    times: dict[str, list[float]] = {"without capture": [], "with capture": [], "hooks only": []}
    recorded = 0
    with stand_in_driver(options.no_gpu), tempfile.TemporaryDirectory(prefix="ttinspect-overhead-") as scratch:
        timed_loop(x, y, 10, synchronize)  # compiled before any timing
        for round_number in range(options.rounds):
            modes = list(times)
            for mode in modes[round_number % 3:] + modes[:round_number % 3]:  # no mode always first
                if mode == "without capture":
                    times[mode].append(timed_loop(x, y, options.launches, synchronize))
                elif mode == "hooks only":
                    hooks.install(NothingKept())
                    try:
                        times[mode].append(timed_loop(x, y, options.launches, synchronize))
                    finally:
                        hooks.uninstall()
                else:
                    folder = Path(scratch) / f"round{round_number}"
                    folder.mkdir()
                    recording.begin(folder)
                    try:
                        times[mode].append(timed_loop(x, y, options.launches, synchronize))
                    finally:
                        recording.finish(0)
                    capture = capture_format.read(next(folder.iterdir()))
                    recorded += sum(entry.count for entry in capture.launches)
    base = min(times["without capture"])
    where = "stand-in driver, no GPU" if options.no_gpu else torch.cuda.get_device_name()
    print(f"{options.launches} launches x {options.rounds} rounds, Triton {triton.__version__}, {where}")
    print(f"  {'':16} {'fastest':>9} {'median':>9}   (us per launch; every round: {', '.join(times)})")
    for mode, values in times.items():
        best, middle = min(values), statistics.median(values)
        extra = "" if mode == "without capture" else f"  (+{best - base:.2f} us, {100 * (best - base) / base:+.1f} %)"
        print(f"  {mode:16} {best:9.2f} {middle:9.2f}{extra}")
    for number, values in enumerate(zip(*times.values(), strict=True), 1):
        print(f"  round {number}: " + " ".join(f"{v:.2f}" for v in values))
    expected = options.launches * options.rounds
    print(f"  launches recorded: {recorded} of {expected}")
    return 0 if recorded == expected else 1


if __name__ == "__main__":
    sys.exit(main())
