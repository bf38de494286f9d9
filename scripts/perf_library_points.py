"""On a GPU: the public-library kernels of the corpus (tests/corpus/manifest.toml) timed config by config — the
performance model's dataset of kernels ttinspect did not write (docs/predict.md, "Public-library kernels").

    python scripts/perf_library_points.py --wheels DIR OUT     # on the GPU machine: OUT/library_points.json

Per corpus entry for sm_90 (a kernel at the shape its library's call site launches it, with that call site's
arguments), one group of configs: an autotuned kernel's own list (each config as the autotuner would launch
it: the kernel under the autotuner, run with the config's constexprs and options), any other kernel its
launch at num_warps 1, 2, 4, 8 and 16 (everything else as the call site passes it). The tensors are zeros
(every index is valid; a kernel whose work depends on the data does the work zeros give). Two phases, each
entry in a process of its own (a crash or a hang is that entry's rows): every config compiled in parallel
(Triton's `warmup`, which fills its cache), then timed one entry after another with
`triton.testing.do_bench` (median; it flushes the L2 between repetitions). A config that fails to compile or
launch is a row with its error.

Status (2026-11-29): not yet run to completion. Its first run on an H200 (Triton 3.6.0) compiled the 72
entries' configs in 313 s, then its timing phase (the first library's process) did not finish inside the
command's 10 minutes, nor inside a second call's 145 s on the same cache, and the session's GPU time was spent:
no data yet. What to look at next: the timing child prints nothing until an entry ends (time each entry
alone, and see whether its launches compile again — the compile phase's warmup and the launch must share
Triton's cache entries).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "corpus"))
sys.path.insert(0, str(ROOT / "scripts"))

from corpus_gpu import TARGET, autotuner_of, install_wheels, launch_parts, machine  # noqa: E402
from corpus_manifest import Entry, load  # noqa: E402

WARPS = (1, 2, 4, 8, 16)  # a kernel that is not autotuned: its launch at each of these
MAX_CONFIGS = 32  # of an autotuned kernel's list, the first
WARMUP_MS, REP_MS = 10, 40  # do_bench's
# the whole run (the GPU machine's commands end at 10 minutes), and one child process
BUDGET_S, CHILD_TIMEOUT_S = float(os.environ.get("PERF_LIBRARY_BUDGET_S", 480)), 300
START = time.monotonic()


def entries() -> list[Entry]:
    return [e for e in load() if TARGET in e.targets]


def variants(kernel: Any, entry: Entry) -> list[dict[str, Any]]:
    """The configs timed for this entry: {"config": N (1-based) or None, "kwargs": the constexprs and options
    the launch adds, "num_warps", "num_stages"}."""
    tuner = autotuner_of(kernel)
    if tuner is not None and getattr(tuner, "configs", None):
        found = []
        for number, config in enumerate(tuner.configs[:MAX_CONFIGS], start=1):
            options = config.all_kwargs()
            found.append({"config": number, "kwargs": options, "num_warps": options.get("num_warps"),
                          "num_stages": options.get("num_stages")})
        return found
    given = dict(entry.config_for(TARGET))
    return [{"config": None, "kwargs": {"num_warps": warps}, "num_warps": warps,
             "num_stages": given.get("num_stages")} for warps in WARPS]


def _launcher(entry: Entry):
    """(the callable a config launches through, the launch's positional and keyword arguments, the grid)."""
    kernel, _, positional, kwargs, grid = launch_parts(entry)
    tuner = autotuner_of(kernel)
    runner = tuner.fn if tuner is not None else kernel  # below the autotuner: heuristics still apply
    return kernel, runner, positional, kwargs, grid


def _run(runner: Any, positional: list[Any], grid: Any, kwargs: dict[str, Any], warmup: bool) -> None:
    """A launch (or, `warmup`, its compile alone) through the kernel's own object: a JITFunction, heuristics
    over one (whose `run` computes their values first), or a library's wrapper (flag-gems' LibEntry)."""
    if warmup and not hasattr(runner, "run"):
        return
    if hasattr(runner, "run") and type(runner).__name__ in ("JITFunction", "Heuristics"):
        runner.run(*positional, grid=grid, warmup=warmup, **kwargs)
    elif warmup:
        runner.warmup(*positional, grid=grid, **kwargs)
    else:
        runner[grid](*positional, **kwargs)


def compile_entry(entry: Entry) -> list[dict[str, Any]]:
    kernel, runner, positional, kwargs, grid = _launcher(entry)
    rows = []
    for variant in variants(kernel, entry):
        try:
            _run(runner, positional, grid, {**kwargs, **variant["kwargs"]}, warmup=True)
            rows.append({"config": variant["config"], "num_warps": variant["num_warps"], "compiled": True})
        except Exception as error:  # the row says why
            rows.append({"config": variant["config"], "num_warps": variant["num_warps"],
                         "error": f"{type(error).__name__}: {(str(error).strip().splitlines() or [''])[0][:300]}"})
    return rows


def time_entry(entry: Entry) -> list[dict[str, Any]]:
    import torch
    import triton.testing

    kernel, runner, positional, kwargs, grid = _launcher(entry)
    rows = []
    for variant in variants(kernel, entry):
        row = {"id": entry.id, "kernel": entry.module_ref, "library": entry.library, "group": entry.id,
               "config": variant["config"], "num_warps": variant["num_warps"], "num_stages": variant["num_stages"],
               "constexprs": {k: v for k, v in variant["kwargs"].items()
                              if k not in ("num_warps", "num_stages", "num_ctas", "maxnreg", "num_buffers_warp_spec",
                                           "num_consumer_groups", "reg_dec_producer", "reg_inc_consumer")
                              and not callable(v)}}
        try:
            def launch(variant=variant):
                _run(runner, positional, grid, {**kwargs, **variant["kwargs"]}, warmup=False)

            launch()
            torch.cuda.synchronize()
            row["ms"] = triton.testing.do_bench(launch, warmup=WARMUP_MS, rep=REP_MS, return_mode="median")
        except Exception as error:
            row["error"] = f"{type(error).__name__}: {(str(error).strip().splitlines() or [''])[0][:300]}"
        rows.append(row)
    return rows


def child(ids: list[str], phase: str, site: str, out: Path, cache: str) -> list[dict[str, Any]]:
    """Run `phase` over `ids` in a fresh process; one result line per entry, printed as each ends (a crash
    loses only the entries after it: the caller runs those again in another process)."""
    env = {**os.environ, "PYTHONPATH": f"{site}:{ROOT}", "TRITON_CACHE_DIR": cache}
    try:
        done = subprocess.run([sys.executable, __file__, "--only", ",".join(ids), "--phase", phase, str(out)],
                              capture_output=True, text=True, env=env, timeout=CHILD_TIMEOUT_S)
        stdout, stderr, code = done.stdout, done.stderr, done.returncode
    except subprocess.TimeoutExpired as expired:
        stdout = expired.stdout.decode() if isinstance(expired.stdout, bytes) else (expired.stdout or "")
        stderr, code = "timed out", "timeout"
    results = []
    for line in stdout.splitlines():
        with contextlib.suppress(ValueError):
            result = json.loads(line)
            if isinstance(result, dict) and "id" in result:
                results.append(result)
    ended = {r["id"] for r in results}
    if len(ended) < len(ids):  # the entry it stopped in fails; the rest go on in another process
        stopped = next(i for i in ids if i not in ended)
        tail = (stderr.strip().splitlines() or ["?"])[-1][:300]
        results.append({"id": stopped, "failed": f"{phase}: process ended ({code}): {tail}"})
        rest = ids[ids.index(stopped) + 1:]
        if rest and time.monotonic() - START < BUDGET_S:
            results += child(rest, phase, site, out, cache)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, nargs="?", default=Path(os.environ.get("OUT", ".")))
    parser.add_argument("--wheels", type=Path)
    parser.add_argument("--only", help="entry ids, comma-separated (the children)")
    parser.add_argument("--phase", choices=("compile", "time"))
    parser.add_argument("--jobs", type=int, default=14)
    parser.add_argument("--site", help="the libraries already installed there (an earlier run's)")
    parser.add_argument("--cache", help="Triton's cache an earlier run's compile phase filled: time only")
    options = parser.parse_args(argv)
    if options.phase:  # a child: its entries one after another, a result line each
        wanted = options.only.split(",")
        for entry in sorted(entries(), key=lambda e: wanted.index(e.id) if e.id in wanted else -1):
            if entry.id not in wanted:
                continue
            for key, value in entry.env_for(TARGET).items():
                os.environ.setdefault(key, value)
            try:
                rows = compile_entry(entry) if options.phase == "compile" else time_entry(entry)
                print(json.dumps({"id": entry.id, "rows": rows}), flush=True)
            except Exception as error:  # the import, the arguments: this entry's result says so
                print(json.dumps({"id": entry.id, "failed": f"{options.phase}: {type(error).__name__}: "
                                                            f"{(str(error).splitlines() or [''])[0][:300]}"}),
                      flush=True)
        return 0
    site = options.site or tempfile.mkdtemp(prefix="perf-library-site-")
    refused = install_wheels(options.wheels, Path(site)) if options.wheels and not options.site else []
    cache = options.cache or tempfile.mkdtemp(prefix="perf-library-triton-")
    print(f"site {site}, Triton cache {cache}", flush=True)
    ids = [e.id for e in entries()]
    compiled: list[dict[str, Any]] = []
    if not options.cache:  # a cache given was filled by an earlier run's compile phase
        with ThreadPoolExecutor(options.jobs) as pool:
            compiled = [r for chunk in pool.map(lambda i: child([i], "compile", site, options.out, cache), ids)
                        for r in chunk]
        print(f"compiled {len(ids)} entries in {time.monotonic() - START:.0f} s", flush=True)
    by_library: dict[str, list[str]] = {}
    for entry in entries():
        by_library.setdefault(entry.library, []).append(entry.id)
    timed: list[dict[str, Any]] = []
    options.out.mkdir(parents=True, exist_ok=True)
    for group in by_library.values():  # written after each library: a run cut short keeps what it timed
        if time.monotonic() - START > BUDGET_S:
            break
        timed += child(group, "time", site, options.out, cache)
        points = [row for result in timed for row in result.get("rows", [])]
        failed = {r["id"]: r["failed"] for r in compiled + timed if "failed" in r}
        (options.out / "library_points.json").write_text(json.dumps(
            {"machine": {**machine(), "capability": TARGET}, "wheels_refused": refused, "failed": failed,
             "points": points}, indent=1))
        print(f"{len(points)} points ({sum('ms' in p for p in points)} timed), {len(failed)} entries failed, "
              f"{time.monotonic() - START:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
