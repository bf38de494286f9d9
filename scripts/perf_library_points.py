"""On a GPU: the public-library kernels of the corpus (tests/corpus/manifest.toml) timed config by config — the
performance model's dataset of kernels ttinspect did not write (docs/predict.md, "Public-library kernels").

    python scripts/perf_library_points.py --wheels DIR OUT     # on the GPU machine: OUT/library_points.json

Per corpus entry for sm_90 (a kernel at the shape its library's call site launches it, with that call site's
arguments), one group of configs: an autotuned kernel's own list (each config as the autotuner would launch
it: the kernel under the autotuner, run with the config's constexprs and options), any other kernel its
launch at num_warps 1, 2, 4, 8 and 16 (everything else as the call site passes it; one launch where its
heuristics compute num_warps). The tensors are zeros
(every index is valid; a kernel whose work depends on the data does the work zeros give).

Each entry runs in a process of its own, many at once: it compiles its configs (Triton's `warmup`: no launch),
then takes the GPU's lock (a file lock: one entry times at a time, while the others compile) and times each
config with `triton.testing.do_bench` (median; it flushes the L2 between repetitions). A watchdog ends a config
that runs past WATCHDOG_S (a kernel whose loop waits on data zeros never give): that entry's rows end there,
and every row printed before stays. A config that fails to compile or launch is a row with its error. The
points are written to OUT/library_points.json as each entry ends, so a run cut short keeps what it timed.
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import fcntl
import json
import os
import subprocess
import sys
import tempfile
import threading
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
WATCHDOG_S = 60  # one config's first launch and its do_bench together
# the whole run (the GPU machine's commands end at 10 minutes), and one child process
BUDGET_S = float(os.environ.get("PERF_LIBRARY_BUDGET_S", 540))
START = time.monotonic()
OPTION_NAMES = ("num_warps", "num_stages", "num_ctas", "maxnreg", "num_buffers_warp_spec", "num_consumer_groups",
                "reg_dec_producer", "reg_inc_consumer")


def entries() -> list[Entry]:
    return [e for e in load() if TARGET in e.targets]


def variants(kernel: Any, entry: Entry, positional: list[Any], kwargs: dict[str, Any]) -> list[dict[str, Any]]:
    """The configs timed for this entry: {"config": N (1-based) or None, "kwargs": the constexprs and options
    the launch adds, "num_warps", "num_stages"}. An autotuned kernel's list is the one Triton times: after its
    `early_config_prune` (gemlite's adds NUM_STAGES), called as the autotuner calls it."""
    tuner = autotuner_of(kernel)
    if tuner is not None and getattr(tuner, "configs", None):
        configs = list(tuner.configs)
        if getattr(tuner, "early_config_prune", None):
            named = dict(zip(tuner.arg_names, positional, strict=False))
            configs = list(tuner.early_config_prune(configs, named, **kwargs))
        found = []
        for number, config in enumerate(configs[:MAX_CONFIGS], start=1):
            options = config.all_kwargs()
            found.append({"config": number, "kwargs": options, "num_warps": options.get("num_warps"),
                          "num_stages": options.get("num_stages")})
        return found
    given = dict(entry.config_for(TARGET))
    chain, obj = [], kernel
    while obj is not None:
        chain.append(obj)
        obj = getattr(obj, "fn", None)
    if any("num_warps" in getattr(o, "values", {}) for o in chain):  # flag-gems' heuristics set it: one launch
        return [{"config": None, "kwargs": {}, "num_warps": None, "num_stages": given.get("num_stages")}]
    return [{"config": None, "kwargs": {"num_warps": warps}, "num_warps": warps,
             "num_stages": given.get("num_stages")} for warps in WARPS]


def _launcher(entry: Entry):
    """(the kernel object, the JITFunction or heuristics a config launches through, the launch's positional
    and keyword arguments, the grid). Below the autotuner and any library wrapper (flag-gems' LibEntry keeps a
    cache of its own, which may not tell the configs apart). Heuristics above the autotuner (fla's) are
    computed here, outermost first, from the call's arguments, as their `run` would; those below it still
    apply."""
    from triton.runtime.autotuner import Heuristics
    from triton.runtime.jit import JITFunction

    kernel, jit, positional, kwargs, grid = launch_parts(entry)
    tuner = autotuner_of(kernel)
    above = kernel
    while tuner is not None and above is not tuner:
        if isinstance(above, Heuristics):
            for name, rule in above.values.items():
                kwargs[name] = rule({**dict(zip(above.arg_names, positional, strict=False)), **kwargs})
        above = above.fn
    runner = tuner.fn if tuner is not None else kernel
    while not isinstance(runner, (JITFunction, Heuristics)):
        runner = runner.fn
    return kernel, runner, jit.arg_names, positional, kwargs, grid


def _bound(arg_names: list[str], positional: list[Any], kwargs: dict[str, Any],
           added: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """The call's arguments with a config's values added. A value for a parameter the call passes by position
    goes by keyword, with every parameter after it (liger's sparsemax has a constexpr parameter named
    `num_warps`: by keyword it is both the parameter and the launch's option, as its call site passes it)."""
    cut = min([arg_names.index(name) for name in added if name in arg_names[:len(positional)]],
              default=len(positional))
    rest = {**dict(zip(arg_names[cut:], positional[cut:], strict=False)), **kwargs, **added}
    return list(positional[:cut]), rest


def _run(runner: Any, positional: list[Any], kwargs: dict[str, Any], grid: Any, warmup: bool) -> None:
    """A launch (or, `warmup`, its compile alone): `run` of a JITFunction, or of heuristics over one (which
    computes their values first)."""
    runner.run(*positional, grid=grid, warmup=warmup, **kwargs)


def _error(error: BaseException) -> str:
    return f"{type(error).__name__}: {(str(error).strip().splitlines() or [''])[0][:300]}"


def _say(record: dict[str, Any]) -> None:
    print(json.dumps(record), flush=True)


@contextlib.contextmanager
def gpu_lock(path: str):
    """One entry times at a time: the others compile meanwhile. The lock goes with the process."""
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def measure_entry(entry: Entry, lock: str, deadline: float) -> None:
    """In the child: compile every config, then time them holding the GPU's lock; a line per config."""
    import torch
    import triton.testing

    kernel, runner, arg_names, positional, kwargs, grid = _launcher(entry)
    found = variants(kernel, entry, positional, kwargs)
    calls = [_bound(arg_names, positional, kwargs, variant["kwargs"]) for variant in found]  # each config's
    compiled: dict[int, str] = {}
    for index, call in enumerate(calls):
        try:
            _run(runner, *call, grid=grid, warmup=True)
        except Exception as error:  # the row says why; a launch is not tried
            compiled[index] = _error(error)
    with gpu_lock(lock):
        for index, variant in enumerate(found):
            row = {"id": entry.id, "kernel": entry.module_ref, "library": entry.library, "group": entry.id,
                   "config": variant["config"], "num_warps": variant["num_warps"],
                   "num_stages": variant["num_stages"],
                   "constexprs": {k: v for k, v in variant["kwargs"].items()
                                  if k not in OPTION_NAMES and not callable(v)}}
            if index in compiled:
                row["error"] = compiled[index]
            elif time.time() > deadline:
                row["error"] = "not timed: the run's time ran out"
            else:
                faulthandler.dump_traceback_later(WATCHDOG_S, exit=True)
                try:
                    def launch(call=calls[index]):
                        _run(runner, *call, grid=grid, warmup=False)

                    launch()
                    torch.cuda.synchronize()
                    row["ms"] = triton.testing.do_bench(launch, warmup=WARMUP_MS, rep=REP_MS, return_mode="median")
                except Exception as error:
                    row["error"] = _error(error)
                finally:
                    faulthandler.cancel_dump_traceback_later()
            _say({"id": entry.id, "row": row})
    _say({"id": entry.id, "done": True})


def child(entry_id: str, site: str, cache: str, lock: str, deadline: float) -> dict[str, Any]:
    """One entry in a fresh process: its rows, and why it ended early if it did."""
    env = {**os.environ, "PYTHONPATH": f"{site}:{ROOT}", "TRITON_CACHE_DIR": cache}
    command = [sys.executable, __file__, "--only", entry_id, "--lock", lock, "--deadline", str(deadline)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env,
                              timeout=max(1.0, deadline - time.time() + WATCHDOG_S))
        stdout, stderr, code = done.stdout, done.stderr, done.returncode
    except subprocess.TimeoutExpired as expired:
        stdout = expired.stdout.decode() if isinstance(expired.stdout, bytes) else (expired.stdout or "")
        stderr, code = "timed out", "timeout"
    rows, ended = [], False
    for line in stdout.splitlines():
        with contextlib.suppress(ValueError):
            record = json.loads(line)
            if isinstance(record, dict) and record.get("id") == entry_id:
                rows += [record["row"]] if "row" in record else []
                if "failed" in record:
                    return {"id": entry_id, "rows": rows, "failed": record["failed"]}
                ended = ended or bool(record.get("done"))
    if ended:
        return {"id": entry_id, "rows": rows}
    tail = (stderr.strip().splitlines() or ["?"])[-1][:300]
    return {"id": entry_id, "rows": rows, "failed": f"process ended ({code}) after {len(rows)} rows: {tail}"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, nargs="?", default=Path(os.environ.get("OUT", ".")))
    parser.add_argument("--wheels", type=Path)
    parser.add_argument("--only", help="one entry id (a child)")
    parser.add_argument("--lock", help="the GPU's lock file (a child)")
    parser.add_argument("--deadline", type=float, help="epoch seconds after which nothing more is timed (a child)")
    parser.add_argument("--jobs", type=int, default=12)
    parser.add_argument("--ids", help="only these entries (comma-separated ids): a run again of some")
    parser.add_argument("--site", help="the libraries already installed there (an earlier run's)")
    options = parser.parse_args(argv)
    if options.only:  # a child
        entry = next((e for e in entries() if e.id == options.only), None)
        if entry is None:
            _say({"id": options.only, "failed": "no such sm_90 entry"})
            return 0
        for key, value in entry.env_for(TARGET).items():
            os.environ.setdefault(key, value)
        try:
            measure_entry(entry, options.lock, options.deadline)
        except Exception as error:  # the import, the arguments: this entry's result says so
            _say({"id": entry.id, "failed": _error(error)})
        return 0
    site = options.site or tempfile.mkdtemp(prefix="perf-library-site-")
    refused = install_wheels(options.wheels, Path(site)) if options.wheels and not options.site else []
    cache = tempfile.mkdtemp(prefix="perf-library-triton-")
    lock = str(Path(cache) / "gpu.lock")
    deadline = time.time() + BUDGET_S - (time.monotonic() - START)
    described = {**machine(), "capability": TARGET}
    print(f"site {site}, Triton cache {cache}, {len(refused)} wheels refused", flush=True)
    options.out.mkdir(parents=True, exist_ok=True)
    results: list[dict[str, Any]] = []
    writing = threading.Lock()

    def one(entry_id: str) -> None:
        result = child(entry_id, site, cache, lock, deadline)
        with writing:  # written as each entry ends: a run cut short keeps what it timed
            results.append(result)
            points = [row for r in results for row in r["rows"]]
            failed = {r["id"]: r["failed"] for r in results if "failed" in r}
            (options.out / "library_points.json").write_text(json.dumps(
                {"machine": described, "wheels_refused": refused, "failed": failed,
                 "points": points}, indent=1))
            print(f"{entry_id}: {len(result['rows'])} rows, {sum('ms' in r for r in result['rows'])} timed"
                  f"{', ' + result['failed'] if 'failed' in result else ''} "
                  f"[{len(results)} entries, {sum('ms' in p for p in points)} points, "
                  f"{time.monotonic() - START:.0f} s]", flush=True)

    with ThreadPoolExecutor(options.jobs) as pool:
        list(pool.map(one, [e.id for e in entries() if not options.ids or e.id in options.ids.split(",")]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
