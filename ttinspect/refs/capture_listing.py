"""`ttinspect list FILE.ttcap`: what a run compiled, one row per distinct compile — the reference that names
it, where the kernel is, how often and from where it was launched and with which grids, its config (and
how it fared in the autotuner), the target, and whether its source is still the one that ran. The most
launched first: what the run spent its launches on. Nothing is compiled or imported."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Mapping

from ttinspect.caches.store import warn
from ttinspect.kernel.variants import config_value_text
from ttinspect.refs.kinds import kind_of
from ttinspect.refs.captured import kernel_name, load, named, parse_capture_ref, pick, say_warnings, target_arch
from ttinspect.refs.captured_source import refuse_changed, release_note, status
from ttinspect.refs.release_suffix import with_release

if TYPE_CHECKING:
    from ttinspect.capture.format import Autotune, Capture, Compile

# an autotune config's compile options, beside its kwargs (the constexprs)
_CONFIG_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")


def list_capture(text: str, refuse_changed_sources: bool = False) -> dict[str, Any]:
    """`text`: FILE.ttcap, or FILE.ttcap:KERNEL for that kernel's compiles only (with `@triton=X`, each row's
    reference names that release). `refuse_changed_sources`: the compiles are compiled next, without a `--source`
    choice: a file changed since the run is one line."""
    ref = parse_capture_ref(text)
    capture = load(ref.path, quiet=True)  # a kernel not in an incomplete capture: one line saying both
    chosen = capture.compiles
    if ref.name is not None:
        chosen = (pick(capture, ref, text),) if ref.number is not None else tuple(named(capture, ref.name))
    say_warnings(capture)
    note = release_note(capture)  # another Triton release (or build) than the run's: said once, not refused
    if note and ref.release is None:  # under @triton=X each compile's worker says it, naming that release
        warn(note)
    if refuse_changed_sources:
        refuse_changed(chosen, str(ref.path))
    tunings = tunings_by_kernel(capture)
    rows = [compile_row(capture, record, tunings, ref.release) for record in chosen]
    rows.sort(key=lambda row: -row["launches"])  # stable: file order among equals
    header = capture.header
    return {
        "capture": str(ref.path),
        "run": {"argv": list(header.argv), "cwd": header.cwd, "created": header.created, "triton": header.triton,
                "torch": header.torch, "python": header.python, "interpreter": header.interpreter,
                "device": header.device, "complete": capture.complete, "made": header.made(),
                "exit_code": capture.end.exit_code if capture.end is not None else None},
        "compiles": rows,
    }


def names_several(text: str) -> bool:
    """Whether a capture reference names more than one compile: the whole capture (FILE.ttcap), or a kernel
    the run compiled several times without its #N (what `check` and `html` then take one by one)."""
    if kind_of(text) != "capture":
        return False
    ref = parse_capture_ref(text)
    if ref.name is None:
        return True
    return ref.number is None and len(load(ref.path, quiet=True).named(ref.name)) > 1  # said when listed


def compile_row(capture: Capture, record: Compile, tunings: Mapping[str, list[Autotune]] | None = None,
                release: str | None = None) -> dict[str, Any]:
    """One compile's row; `release`: the whole capture was named with `@triton=X`, and so is each compile (its
    `ref`, which check, html and predict compile)."""
    count = len(capture.named(record.name))
    entries = sorted(capture.launches_of(record.id), key=lambda e: -e.count)
    # the grids and argument shapes the run launched it with (never tensor data), each once: kept by a key
    # of its own, so a capture of many sites is listed in linear time
    grids = {grid: list(grid) for entry in entries for grid in entry.grids}
    args = {json.dumps(a, sort_keys=True): a for entry in entries for a in entry.args}
    return {
        "ref": with_release(f"{capture.path}:{kernel_name(capture, record)}", release),  # as given
        "kernel": record.name, "number": record.number, "of": count, "id": record.id,
        "file": record.file, "line": record.def_line, "module": record.module, "inductor": record.inductor,
        "launches": sum(e.count for e in entries),
        "sites": [{"site": e.site, "count": e.count} for e in entries],
        "grids": list(grids.values()),
        "args": list(args.values()),
        "config": config_of(record),
        "autotune": autotune_results(capture, record, tunings),
        "target": target_arch(record.target),
        "source": status(record),
        "triton_cache_key": record.triton_cache_key,
        "triton_cache_dir": record.triton_cache_dir,  # the run's entry: its PTX, to compare with ours
    }


def config_of(record: Compile) -> dict[str, Any]:
    """The constexprs and the options the run gave (those left at their default are not shown)."""
    values = {**record.constexprs, **{k: v for k, v in record.options.items() if v is not None}}
    return {k: config_value_text(v) if not isinstance(v, (bool, int, float)) else v for k, v in values.items()}


def tunings_by_kernel(capture: Capture) -> dict[str, list[Autotune]]:
    """The autotune records by each compile id they made, and by kernel name those that name no compile (a
    capture written before the records listed their compiles): each compile's are found without a scan."""
    index: dict[str, list[Autotune]] = {}
    for tuning in capture.autotune:
        keys = [f"id:{c}" for c in dict.fromkeys(tuning.compiles)] or [f"name:{tuning.name}"]
        for key in keys:
            index.setdefault(key, []).append(tuning)
    return index


def autotune_results(capture: Capture, record: Compile, tunings: Mapping[str, list[Autotune]] | None = None
                     ) -> list[dict[str, Any]]:
    """For each autotuning that made this compile: its key (the values it tuned for), the config's number,
    its time, the winner's, the compile the winner was (`chosen`, as FILE.ttcap:NAME#N names it) and the grid
    the config launched with while benchmarked (`grid`, [x, y, z]; null when the capture does not say).

    A tuning belongs to the compiles it made — the compile's identity, never a config's values: two
    specializations of one kernel (n = 64 and n = 100) are compiled from the same configs, and each tuning
    made the compiles of its own launch only. Only a record that lists no compiles is matched by name."""
    known = tunings if tunings is not None else tunings_by_kernel(capture)
    mine = {id(t): t for t in [*known.get(f"id:{record.id}", ()),
                               *(t for t in known.get(f"name:{record.name}", ()) if not t.compiles)]}
    out = []
    for tuning in sorted(mine.values(), key=lambda t: t.line):
        index = config_index(tuning, record)
        if index is None:
            continue
        timings = tuning.timings_ms
        chosen = _chosen(capture, tuning)
        out.append({"key": tuning.key, "config": index + 1, "configs": len(tuning.configs),
                    "winner": index == tuning.best,
                    "chosen": kernel_name(capture, chosen) if chosen is not None else None,
                    "ms": timings[index] if timings is not None and index < len(timings) else None,
                    "best_ms": timings[tuning.best] if timings is not None and tuning.best is not None
                    and tuning.best < len(timings) else None,
                    "grid": list(grid) if (grid := bench_grid(tuning, index)) is not None else None})
    return out


def _chosen(capture: Capture, tuning: Autotune) -> Compile | None:
    """The compile the tuning's winner ran as: of the compiles it made, the one the best config gave."""
    if tuning.best is None or tuning.best >= len(tuning.configs):
        return None
    best = tuning.configs[tuning.best]
    made = (capture.compile(c) for c in dict.fromkeys(tuning.compiles))
    return next((c for c in made if c is not None and _matches(best, c)), None)


def bench_grid(tuning: Autotune, index: int) -> tuple[int, ...] | None:
    """The grid config `index` launched with while the autotuner benchmarked it, where recorded."""
    grids = tuning.grids
    return grids[index] if grids is not None and index < len(grids) else None


def config_index(tuning: Autotune, record: Compile) -> int | None:
    """Which of the autotuner's configs made this compile (one the tuning made): the config whose kwargs are
    the compile's constexprs and whose options are the compile's (an option the config leaves unset is not
    compared)."""
    for index, config in enumerate(tuning.configs):
        if _matches(config, record):
            return index
    return None


def _matches(config: Mapping[str, Any], record: Compile) -> bool:
    kwargs = config.get("kwargs") or {}
    if any(record.constexprs.get(k) != v for k, v in kwargs.items()):
        return False
    return all(record.options.get(k) == config[k] for k in _CONFIG_OPTIONS if config.get(k) is not None)
