"""What replaying a captured launch takes, as plain data: the kernel's file, module and name, the captured grid,
every runtime argument by name (a tensor as its shape, strides and dtype — a capture holds no tensor data),
and the constexprs and launch options, with a reference's own changes (`step.ttcap:k:num_stages=4`) on top.

One plan serves `ttinspect repro` (written out as a script, repro.py) and `bench` / `profile` of a captured
kernel (run in-process, gpu/replay.py). Built from the record alone (and whether the kernel's file is a
program, read from the file: program_file.py): nothing here imports triton or torch, so a refusal (no launch,
no grid, no summary of a pointer) costs nothing and needs no GPU.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Mapping

from ttinspect.capture.format import Capture, Compile
from ttinspect.capture.program_file import loads_definitions_only
from ttinspect.errors import UsageError
from ttinspect.kernel.argument_types import TlDtype

# launch options Triton's JIT takes as keywords (others a record may hold are the backend's own)
LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")
# torch's dtypes a replay makes tensors of (replay_runtime.fresh looks the name up on torch: only these)
TENSOR_DTYPES = frozenset((
    "bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64", "float16", "bfloat16",
    "float32", "float64", "complex64", "complex128", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
    "float8_e5m2fnuz", "float8_e8m0fnu"))
MAX_ELEMENTS = 1 << 40  # one tensor's storage: more than any GPU holds
FALLBACK_MODULE = "ttcap_replayed_kernel"  # the name a kernel loaded from its file runs under


@dataclass(frozen=True)
class TensorSpec:
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: str  # torch's name: "float16"


@dataclass(frozen=True)
class ReplayPlan:
    label: str
    site: str  # the launch replayed: the site launching this compile most often
    count: int  # its launches there
    capture_name: str
    file: str
    module: str  # the kernel module's name to import it by (a package's), or a name of the replay's own
    name: str
    grid: tuple[int, ...]
    args: dict[str, TensorSpec | Any]  # every runtime argument, in the kernel's order
    keywords: dict[str, Any] = field(default_factory=dict)  # constexprs and launch options; a dtype as "tl.X"
    script: bool = False  # the kernel's file is a program (program_file.py): loaded for its definitions


def _argument(name: str, value: Any, where: str) -> TensorSpec | Any:
    if isinstance(value, dict):
        if "descriptor" in value:
            raise UsageError(f"{where}: {name} is a tensor descriptor; a replay makes tensors and scalars only")
        if not {"dtype", "shape", "strides"} <= value.keys() or value["strides"] is None:
            kind = value.get("type", "an object without shape and strides")
            raise UsageError(f"{where}: the capture has no tensor summary for {name} (it recorded {kind})")
        spec = TensorSpec(tuple(value["shape"]), tuple(value["strides"]), str(value["dtype"]))
        _check_tensor(name, spec, where)
        return spec
    return value


def _check_tensor(name: str, spec: TensorSpec, where: str) -> None:
    """A tensor a replay can make: a torch dtype, as many strides as dimensions, none negative, a storage
    that fits a GPU (a capture from elsewhere is data: it picks no torch attribute and sizes no allocation)."""
    if spec.dtype not in TENSOR_DTYPES:
        raise UsageError(f"{where}: {name} has dtype {spec.dtype[:60]!r}, which is not a torch dtype a replay makes "
                         f"({', '.join(sorted(TENSOR_DTYPES))})")
    if len(spec.shape) != len(spec.strides) or min((*spec.shape, *spec.strides), default=0) < 0:
        raise UsageError(f"{where}: {name}'s shape {list(spec.shape)} and strides {list(spec.strides)} do not make "
                         "a tensor (as many of each, none negative)")
    storage = 1 + sum((n - 1) * s for n, s in zip(spec.shape, spec.strides, strict=True)) if all(spec.shape) else 0
    if storage > MAX_ELEMENTS:
        raise UsageError(f"{where}: {name}'s shape {list(spec.shape)} and strides {list(spec.strides)} need "
                         f"{storage:,} elements, more than a GPU holds")


def _module_name(record: Compile) -> str:
    """The name to import the kernel's module by: the record's, only when it is a dotted name that the file's
    own path ends with (.../pkg/mod.py for pkg.mod), so a name from a capture never imports another module;
    else the file is loaded under a name of the replay's own."""
    module, file = record.module or "", PurePosixPath(record.file or "")
    parts = module.split(".")
    if module == "__main__" or not all(part.isidentifier() for part in parts):
        return FALLBACK_MODULE
    stem = file.parent.parts if file.name == "__init__.py" else (*file.parent.parts, file.stem)
    return module if file.suffix == ".py" and tuple(stem[-len(parts):]) == tuple(parts) else FALLBACK_MODULE


def _keyword_value(value: Any) -> Any:
    """A `--set`/inline value as the plan keeps it: a dtype (kernel.argument_types.TlDtype) as "tl.X"."""
    return f"tl.{value.name}" if isinstance(value, TlDtype) else value


def plan(capture: Capture, record: Compile, label: str, changes: Mapping[str, Any] | None = None) -> ReplayPlan:
    """The replay of `record`'s most frequent captured launch; UsageError naming what the capture lacks, or
    a change that names neither a constexpr nor a launch option."""
    where = str(capture.path.with_name(label))  # /runs/step.ttcap:matmul_kernel#2
    entries = sorted(capture.launches_of(record.id), key=lambda entry: -entry.count)
    if not entries:
        raise UsageError(f"{where}: no launch record (the run compiled it and never launched it)")
    with_grid = [entry for entry in entries if entry.grids]
    if not with_grid:
        raise UsageError(f"{where}: no grid in its launch records (its launcher computed the grid itself)")
    launch = with_grid[0]
    if not launch.args:
        raise UsageError(f"{where}: no argument summary in its launch record at {launch.site}")
    if record.file is None:
        raise UsageError(f"{where}: the compile record names no file to import the kernel from")
    summary = launch.args[0]
    args: dict[str, TensorSpec | Any] = {}
    for name in record.params:
        if name in record.constexprs:
            continue
        if name not in summary:
            raise UsageError(f"{where}: no argument summary for {name!r} in the launch record at {launch.site}")
        args[name] = _argument(name, summary[name], where)
    keywords = dict(record.constexprs)
    keywords.update({name: record.options[name] for name in LAUNCH_OPTIONS if record.options.get(name) is not None})
    for key, value in (changes or {}).items():
        if key not in record.constexprs and key not in LAUNCH_OPTIONS:
            settable = ", ".join([*record.constexprs, *LAUNCH_OPTIONS])
            raise UsageError(f"{where}: {key} is not a constexpr or launch option of {record.name} "
                             f"(settable: {settable})")
        keywords[key] = _keyword_value(value)
    return ReplayPlan(label=label, site=launch.site, count=launch.count, capture_name=capture.path.name,
                      file=record.file, module=_module_name(record), name=record.name, grid=tuple(launch.grids[0]),
                      args=args, keywords=keywords,
                      script=loads_definitions_only(record.module, record.file))
