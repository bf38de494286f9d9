"""A captured launch as a standalone Python script (`ttinspect repro FILE.ttcap:KERNEL -o repro.py`).

The script imports the kernel as the capture names it (its module, from its file), makes fresh tensors of the
captured shapes, strides and dtypes (random data: a capture never holds tensor data), passes the captured
scalars, constexprs and options, launches on the first captured grid, and times the launch with
triton.testing.do_bench when a GPU is there. Pure text from the record: nothing here imports triton or torch,
so a refusal (no launch, no summary of a pointer, no grid) costs nothing.
"""

from __future__ import annotations

import math
from typing import Any

from ttinspect.capture.format import Capture, Compile
from ttinspect.errors import UsageError

# launch options Triton's JIT takes as keywords (others a record may hold are the backend's own)
_LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")


def literal(value: Any) -> str:
    """A captured JSON value as Python source; `tl.float16` (a captured dtype) stays a Triton expression."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"
    if isinstance(value, str) and value.startswith("tl.") and value[3:].isidentifier():
        return value
    return repr(value)


def _argument(name: str, value: Any, where: str) -> str:
    """One runtime argument as the script's expression; UsageError when the capture cannot make it."""
    if isinstance(value, dict):
        if "descriptor" in value:
            raise UsageError(f"{where}: {name} is a tensor descriptor; repro makes tensors and scalars only")
        if not {"dtype", "shape", "strides"} <= value.keys() or value["strides"] is None:
            kind = value.get("type", "an object without shape and strides")
            raise UsageError(f"{where}: the capture has no tensor summary for {name} (it recorded {kind})")
        return f"fresh({value['shape']!r}, {value['strides']!r}, {value['dtype']!r})"
    return literal(value)


def script(capture: Capture, record: Compile, label: str) -> str:
    """The script replaying `record`'s first captured launch; UsageError naming what the capture lacks."""
    where = f"{capture.path}: {label}"
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
    arguments = []
    for name in record.params:
        if name in record.constexprs:
            continue
        if name not in summary:
            raise UsageError(f"{where}: no argument summary for {name!r} in the launch record at {launch.site}")
        arguments.append(f"    {_argument(name, summary[name], where)},  # {name}")
    keywords = [f"    {name}={literal(value)}," for name, value in record.constexprs.items()]
    keywords += [f"    {name}={literal(record.options[name])},"
                 for name in _LAUNCH_OPTIONS if record.options.get(name) is not None]
    module = record.module if record.module not in (None, "__main__") else None
    return _TEMPLATE.format(
        label=label, site=launch.site, count=launch.count, capture=capture.path.name,
        file=repr(record.file), module=repr(module or "ttcap_replayed_kernel"), name=repr(record.name),
        grid=repr(tuple(launch.grids[0])), arguments="\n".join(arguments) or "    # (no runtime arguments)",
        keywords="\n".join(keywords) or "    # (no constexprs or options)")


_TEMPLATE = '''"""Replay of {label}: the launch captured at {site} ({count} launch(es)), written by `ttinspect repro`
from {capture}. Fresh random tensors of the captured shapes, strides and dtypes (a capture holds no data).
Runs on 'cuda', or on the CPU under TRITON_INTERPRET=1."""

import importlib.util
import os
import sys

import torch
import triton
import triton.testing
import triton.language as tl  # noqa: F401  (captured dtype constexprs are written as tl.X)

KERNEL_FILE = {file}
MODULE = {module}
KERNEL = {name}
GRID = {grid}
DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"


def load_kernel():
    """The @triton.jit function named KERNEL in KERNEL_FILE, under any autotune/heuristics wrapper (the
    captured constexprs and options are passed below)."""
    module = None
    try:  # a package's module is imported as Python would (its package's __init__ may import it back)
        found = importlib.import_module(MODULE)
        if os.path.realpath(getattr(found, "__file__", "") or "") == os.path.realpath(KERNEL_FILE):
            module = found
    except Exception:  # not importable by that name here: the file itself is loaded below
        pass
    if module is None:
        sys.path.insert(0, os.path.dirname(KERNEL_FILE))  # the kernel file's own imports of its neighbours
        spec = importlib.util.spec_from_file_location(MODULE, KERNEL_FILE)
        module = importlib.util.module_from_spec(spec)
        sys.modules[MODULE] = module
        spec.loader.exec_module(module)
    wrappers = (triton.runtime.Autotuner, triton.runtime.Heuristics)
    for value in vars(module).values():
        while isinstance(value, wrappers):
            value = value.fn
        if isinstance(value, triton.runtime.KernelInterface) and getattr(value, "__name__", None) == KERNEL:
            return value
    sys.exit(f"{{KERNEL_FILE}}: no @triton.jit function named {{KERNEL}}")


def fresh(shape, strides, dtype):
    """A tensor of `shape` and `strides` over random data (normal floats, small non-negative integers)."""
    dtype = getattr(torch, dtype)
    size = 1 + sum((n - 1) * s for n, s in zip(shape, strides)) if all(shape) else 0
    base = torch.empty(size, dtype=dtype, device=DEVICE)
    if dtype.is_floating_point:
        base.copy_(torch.randn(size, device=DEVICE))
    elif dtype == torch.bool:
        base.copy_(torch.randint(0, 2, (size,), device=DEVICE))
    else:
        base.copy_(torch.randint(0, 16, (size,), device=DEVICE))
    return base.as_strided(shape, strides)


kernel = load_kernel()
ARGS = [
{arguments}
]
KWARGS = dict(
{keywords}
)


def launch():
    kernel[GRID](*ARGS, **KWARGS)


launch()
if DEVICE == "cuda":
    torch.cuda.synchronize()
    ms = triton.testing.do_bench(launch)
    print(f"{{KERNEL}} grid={{GRID}}: {{ms:.4f}} ms")
else:
    print(f"{{KERNEL}} grid={{GRID}}: ran under the interpreter")
'''
