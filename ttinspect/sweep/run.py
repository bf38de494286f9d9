"""A sweep from start to end: the points, the warm ones read here, the cold ones compiled by an
executor, a progress bar on a terminal, Ctrl-C (or SIGTERM, SIGHUP) keeping what finished."""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Sequence

from ttinspect.errors import EXIT_FAILED, EXIT_OK, UsageError, failures_exit_code, interrupted_exit_code
from ttinspect.sweep.grid import CONFIG_AXIS, Axis, expand, parse_arch_list, parse_grid
from ttinspect.engine.builds import NotCached, cached_only, resolve_target
from ttinspect.kernel.options import OPTION_KEYS, check_option
from ttinspect.refs.kinds import SOURCE_KINDS, kind_of, parse_source_ref
from ttinspect.refs.resolver import import_scope
from ttinspect.refs.userfile import Example, find, load_module
from ttinspect.refs.reference import parse_ref
from ttinspect.kernel.catalog import get_variant
from ttinspect.kernel.overrides import parse_settings, resolve
from ttinspect.refs import resolver
from ttinspect.sweep.executors import LocalPool, RayExecutor, default_jobs
from ttinspect.sweep.task import compile_point, here, ingest


@dataclass
class SweepResult:
    ref: str
    axes: list[str]
    rows: list[dict]  # the finished points, in grid order
    total: int  # points in the grid
    seconds: float = 0.0
    warm: int = 0  # read from the cache, here
    compiled: int = 0  # by the executor
    interrupted: bool = False
    executor: str = "local"
    jobs: int = 1
    notes: list[str] = field(default_factory=list)
    stopped_by: KeyboardInterrupt | None = None  # Ctrl-C, or errors.Terminated (SIGTERM, SIGHUP)

    @property
    def failed(self) -> int:
        return sum(1 for row in self.rows if row.get("error"))

    @property
    def stop_reason(self) -> str:
        """`interrupted` (Ctrl-C) or `terminated (SIGTERM)`, as the CLI's one line says it."""
        signum = getattr(self.stopped_by, "signum", None)
        if signum is None:
            return "interrupted"
        import signal

        return f"terminated ({signal.Signals(signum).name})"

    @property
    def exit_code(self) -> int:
        """Stopped by a signal: 128 + it. Every point failed: the exit code their failures share (all
        rejected by Triton: 3), else 1. Otherwise 0, some failed points included (the table shows them)."""
        if self.interrupted:
            return interrupted_exit_code(self.stopped_by or KeyboardInterrupt())
        if not self.rows or self.failed < len(self.rows):
            return EXIT_OK
        return failures_exit_code([row.get("exit_code", EXIT_FAILED) for row in self.rows])


def plan(ref: str, grid: tuple[str, ...] | list[str], arch: str | None,
         options: Mapping[str, Any]) -> tuple[list[Axis], list[tuple[dict, str | None]]]:
    if "@triton=" in ref:
        raise UsageError(f"{ref}: a sweep compiles with the installed Triton; `ttinspect versions REF --triton ...` "
                         "compares releases")
    axes = parse_grid(grid)

    check_reference(ref, axes, options)
    for axis in axes:  # a compile option out of its range is refused before anything compiles
        for value in axis.values:
            with _as_grid():  # the same rule as --set, named as the user wrote it
                check_option(axis.name, value)
    archs = parse_arch_list(arch)
    if "@" in ref and archs != [None]:
        raise UsageError(f"{ref} names its target after @ and --arch names {arch}: give the targets once, with --arch")
    for target in (*archs, _ref_arch(ref)):  # an unknown target, as `--arch` of any command refuses it
        if target is not None and target.strip().lower() != "native":  # native: each point asks the GPU
            resolve_target(target)
    counts: dict[str | None, int] | None = None
    if any(a.name == CONFIG_AXIS and a.values == ("all",) for a in axes):
        counts = {target: _autotune_config_count(ref, options, target) for target in archs}
    return axes, expand(axes, archs, counts)


@contextmanager
def _as_grid() -> Iterator[None]:
    """--set's validators, their message naming --grid (the option the value came from)."""
    try:
        yield
    except UsageError as error:
        raise UsageError(str(error).replace("--set ", "--grid ", 1)) from None


def _ref_arch(ref: str) -> str | None:
    if kind_of(ref) == "variant":
        return ref.partition("@")[2] or None
    if kind_of(ref) in SOURCE_KINDS:
        return parse_source_ref(ref).arch
    return None


def check_reference(ref: str, axes: list[Axis], options: Mapping[str, Any]) -> None:
    """What every point shares, refused once and up front as `report` refuses it, never compiling (else each
    point would fail alike, in a table): a variant's name, its inline and --set keys and values, --config; a
    Triton cache entry's prefix (and a --grid, which no compiled entry takes); a file reference's inline
    compile options (its keys: check_grid_keys, which loads the file)."""
    kind = kind_of(ref)
    if kind == "variant":
        parse_ref(ref, options.get("settings") or {}, None, options.get("config"))
    elif kind == "cache":
        resolver.resolve(ref, resolver.RefOptions())
        if axes:
            raise UsageError(f"{ref}: a Triton cache entry is already compiled: --grid does not apply")
    elif kind in SOURCE_KINDS:
        for key, value in parse_settings(list(parse_source_ref(ref).inline), ref=ref).items():
            check_option(key, value)


def check_grid_keys(ref: str, axes: list[Axis], arch: str | None = None) -> None:
    """A --grid key the kernel cannot take, refused as --set refuses it: a variant's config and problem
    keys and the compile options; a file's kernel parameters and compile options (loading the file). A
    reference of another kind is left to its points (each fails, and the exit code says so)."""
    names = [axis.name for axis in axes if axis.name != CONFIG_AXIS]
    if not names or "@triton=" in ref:
        return
    if kind_of(ref) == "variant":
        variant = get_variant(ref.partition("@")[0].partition(":")[0])
        defaults = {**variant.problem, **variant.config}
        # each key at its default (a valid value): only a key the variant does not have is refused
        probe = {k: defaults.get(k) for k in names if k in defaults or k not in OPTION_KEYS}
        with _as_grid():
            resolve(variant, probe)
    elif kind_of(ref) in SOURCE_KINDS:
        from ttinspect.compile.jit import split_options, unwrap  # imports triton

        parsed = parse_source_ref(ref)
        if parsed.name is None:
            return  # every point says how to name one
        # the file sees the target's GPU while it loads, as every point's compile does (virtual-device.md)
        found = find(load_module(parsed.path, parsed.package, import_scope(parsed.arch or arch)), parsed.path,
                     parsed.name)
        fn = unwrap(found.kernel if isinstance(found, Example) else found)[0]
        try:  # each axis's first value: plan() has checked the options' values, a kernel's are its points' own
            split_options(fn, {axis.name: axis.values[0] for axis in axes if axis.name in names})
        except UsageError as error:
            raise UsageError(f"--grid {error}") from None


def _autotune_config_count(ref: str, options: Mapping[str, Any], arch: str | None) -> int:
    """The configs a launch on `arch` would time: a file's list may depend on the GPU (virtual-device.md)."""
    return len(autotune_list(ref, arch) or ())


def autotune_list(ref: str, arch: str | None) -> Sequence[Mapping[str, Any]] | None:
    """An autotuned kernel's own list as a launch on `arch` would time it, each config's constexprs and
    options (read from the autotuner, nothing compiled); [] for a kernel that is not autotuned; None for a
    reference whose list is not read this way (a capture, a cache entry)."""
    if kind_of(ref) == "variant":
        return list(get_variant(ref.partition("@")[0].partition(":")[0]).autotune_configs or ())
    if kind_of(ref) in SOURCE_KINDS:
        parsed = parse_source_ref(ref)
        if parsed.name is None:  # as building it would say
            raise UsageError(f"{ref}: name a kernel or an example, as {ref.rstrip(':')}:NAME")
        found = find(load_module(parsed.path, parsed.package, import_scope(parsed.arch or arch)), parsed.path,
                     parsed.name)
        kernel = found.kernel if isinstance(found, Example) else found
        return own_configs(kernel) or []
    return None


def own_configs(kernel: Any) -> list[dict[str, Any]] | None:
    """A kernel object's autotune list, each config's constexprs and options; None when no autotuner wraps it."""
    from ttinspect.compile.jit import autotune_configs, unwrap  # imports triton

    autotuner = unwrap(kernel)[1]
    return autotune_configs(autotuner) if autotuner is not None else None


def make_executor(name: str, jobs: int, ray_address: str | None = None):
    if name == "local":
        if ray_address:
            raise UsageError("--ray-address goes with --executor ray")
        return LocalPool(jobs)
    if name == "ray":
        return RayExecutor(jobs, ray_address)
    raise UsageError(f"unknown --executor {name!r}; valid: local, ray")


def run_sweep(ref: str, axes: list[Axis], points: list[tuple[dict, str | None]], options: Mapping[str, Any], *,
              executor: str = "local", jobs: int | None = None, ray_address: str | None = None,
              progress: bool | None = None, on_row: Callable[[dict], None] | None = None) -> SweepResult:
    """Warm points are read here (no worker started for them); cold ones go to the executor. Ctrl-C
    stops the workers and returns what finished (`interrupted`); their entries are in the cache."""
    jobs = jobs or default_jobs()
    runner = make_executor(executor, jobs, ray_address)
    start = time.perf_counter()
    result = SweepResult(ref, [a.name for a in axes], [], len(points), executor=executor, jobs=jobs)
    rows: list[dict | None] = [None] * len(points)
    bar = _Progress(len(points)) if (progress if progress is not None else sys.stderr.isatty()) else None

    def finish(index: int, row: dict) -> None:
        overrides, arch = points[index]
        row.setdefault("ref", ref)
        row.setdefault("point", dict(overrides))
        row.setdefault("arch", arch)
        row.setdefault("facts", {})
        if row.get("error"):  # every failed row says its kind (a row from an older worker may not)
            row.setdefault("error_kind", "Error")
            row.setdefault("exit_code", EXIT_FAILED)
        ingest(row)
        rows[index] = row
        if bar:
            bar.advance(bool(row.get("error")))
        if on_row:
            on_row(row)

    try:
        cold = []
        with cached_only():
            for index, (overrides, arch) in enumerate(points):
                try:
                    finish(index, compile_point(ref, overrides, arch, options))
                    result.warm += 1
                except NotCached:
                    cold.append(index)
        if cold or any(row and row.get("error") for row in rows):  # keys no warm point vouched for,
            check_grid_keys(ref, axes, points[0][1] if points else None)  # refused before anything compiles
        if cold:
            if executor == "local" and (jobs == 1 or len(cold) == 1):  # no worker to start: compile here
                for index in cold:
                    overrides, arch = points[index]
                    finish(index, compile_point(ref, overrides, arch, options))
                    result.compiled += 1
            else:
                driver = here()
                work = [(i, ref, points[i][0], points[i][1], dict(options)) for i in cold]
                for index, row in runner.run(work, driver):
                    finish(index, row)
                    result.compiled += 1
    except KeyboardInterrupt as error:  # Ctrl-C, or SIGTERM/SIGHUP as errors.Terminated
        result.interrupted, result.stopped_by = True, error
        stop = getattr(runner, "stop", None)
        if stop:
            stop()
    finally:
        if bar:
            bar.close()
    result.rows = [row for row in rows if row is not None]
    result.seconds = time.perf_counter() - start
    for row in result.rows:
        if row.get("ingest_error"):
            result.notes.append(f"{row.get('label') or row.get('point')}: {row['ingest_error']}")
    return result


class _Progress:
    """A rich progress bar on stderr (points done, failures, ETA); only on a terminal."""

    def __init__(self, total: int):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.failed = 0
        self.progress = Progress(TextColumn("sweep"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[failed]} failed"), TimeRemainingColumn(),
                                 console=Console(stderr=True), transient=True)
        self.progress.start()
        self.task = self.progress.add_task("sweep", total=total, failed=0)

    def advance(self, failed: bool) -> None:
        self.failed += failed
        self.progress.update(self.task, advance=1, failed=self.failed)

    def close(self) -> None:
        self.progress.stop()
