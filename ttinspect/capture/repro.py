"""A captured launch as a standalone Python script (`ttinspect repro FILE.ttcap:KERNEL -o repro.py`).

The script is the replay plan (replay_plan.py) written out: it imports the kernel as the capture names it,
makes fresh tensors of the captured shapes, strides and dtypes (random data), passes every runtime argument
by name with the captured constexprs and options, launches on the captured grid, and times the launch with
triton.testing.do_bench when a GPU is there. Its loader and tensor maker are replay_runtime.py's own
functions, copied in by their source, so the script needs triton and torch, never ttinspect.
"""

from __future__ import annotations

import inspect
import math
from typing import Any

from ttinspect.capture import replay_runtime
from ttinspect.capture.replay_plan import ReplayPlan, TensorSpec


def literal(value: Any) -> str:
    """A captured JSON value as Python source; `tl.float16` (a captured dtype) stays a Triton expression."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"
    if isinstance(value, str) and value.startswith("tl.") and value[3:].isidentifier():
        return value
    return repr(value)


def _expression(value: TensorSpec | Any) -> str:
    if isinstance(value, TensorSpec):
        return f"fresh({list(value.shape)!r}, {list(value.strides)!r}, {value.dtype!r}, DEVICE)"
    return literal(value)


def script(replay: ReplayPlan) -> str:
    """The script carrying out `replay`."""
    arguments = [f"    {name}={_expression(value)}," for name, value in replay.args.items()]
    keywords = [f"    {name}={literal(value)}," for name, value in replay.keywords.items()]
    helpers = "\n\n".join(inspect.getsource(f) for f in (replay_runtime.load_kernel, replay_runtime.fresh,
                                                         replay_runtime.script_definitions,
                                                         replay_runtime.run_definitions))
    return _TEMPLATE.format(
        label=replay.label, site=replay.site, count=replay.count, capture=replay.capture_name, helpers=helpers,
        file=repr(replay.file), module=repr(replay.module), name=repr(replay.name), grid=repr(replay.grid),
        script=repr(replay.script),
        arguments="\n".join(arguments) or "    # (no runtime arguments)",
        keywords="\n".join(keywords) or "    # (no constexprs or options)")


_TEMPLATE = '''"""Replay of {label}: the launch captured at {site} ({count} launch(es)), written by `ttinspect repro`
from {capture}. Fresh random tensors of the captured shapes, strides and dtypes (a capture holds no data).
Runs on 'cuda', or on the CPU under TRITON_INTERPRET=1."""

import os

import torch
import triton
import triton.testing
import triton.language as tl  # noqa: F401  (captured dtype constexprs are written as tl.X)

KERNEL_FILE = {file}
MODULE = {module}
KERNEL = {name}
PROGRAM_SCRIPT = {script}  # the kernel is in the program's own script: its definitions, not the program, are run
GRID = {grid}
DEVICE = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"


{helpers}

torch.manual_seed(0)
kernel = load_kernel(KERNEL_FILE, MODULE, KERNEL, PROGRAM_SCRIPT)
ARGS = dict(  # every runtime argument by name, in the kernel's order
{arguments}
)
KWARGS = dict(  # the captured constexprs and launch options
{keywords}
)


def launch():
    kernel[GRID](**ARGS, **KWARGS)


launch()
if DEVICE == "cuda":
    torch.cuda.synchronize()
    ms = triton.testing.do_bench(launch)
    print(f"{{KERNEL}} grid={{GRID}}: {{ms:.4f}} ms")
else:
    print(f"{{KERNEL}} grid={{GRID}}: ran under the interpreter")
'''
