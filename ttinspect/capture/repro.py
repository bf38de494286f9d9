"""A captured launch as a standalone Python script (`ttinspect repro FILE.ttcap:KERNEL -o repro.py`).

The script is the replay plan (replay_plan.py) written out: it imports the kernel as the capture names it,
makes fresh tensors of the captured shapes, strides and dtypes (random data), passes every runtime argument
by name with the captured constexprs and options, launches on the captured grid, and times the launch with
triton.testing.do_bench when a GPU is there. Its loader and tensor maker are replay_runtime.py's own
functions, copied in by their source, so the script needs triton and torch, never ttinspect.

A capture may come from someone else, and running the script must run only what the template says: every
captured string goes in as a literal or escaped in the docstring, every captured name written as a keyword
must be an identifier, a dtype is `tl.X` only for a plain dtype name (files/generated_python.py); a capture
that breaks this is refused in one line naming what it held.
"""

from __future__ import annotations

import inspect
from typing import Any

from ttinspect.capture import replay_runtime
from ttinspect.capture.replay_plan import ReplayPlan, TensorSpec
from ttinspect.errors import UsageError
from ttinspect.files import generated_python
from ttinspect.files.generated_python import identifier, in_docstring


def literal(value: Any) -> str:
    """A captured JSON value as Python source; "tl.float16" (a captured dtype) stays a Triton expression."""
    if isinstance(value, str) and value.startswith("tl.") and generated_python.dtype_attribute(value):
        return value
    return generated_python.literal(value)


def _integers(values: Any, what: str, where: str) -> list[int]:
    if not isinstance(values, (list, tuple)) or not all(type(n) is int for n in values):
        raise UsageError(f"{where}: the captured {what} {values!r} is not a list of integers")
    return list(values)


def _expression(value: TensorSpec | Any, name: str, where: str) -> str:
    if isinstance(value, TensorSpec):
        if not generated_python.is_identifier(value.dtype):
            raise UsageError(f"{where}: the captured dtype {value.dtype!r} of {name} is not a torch dtype name")
        return (f"fresh({_integers(value.shape, f'shape of {name}', where)!r}, "
                f"{_integers(value.strides, f'strides of {name}', where)!r}, {value.dtype!r}, DEVICE)")
    return literal(value)


def script(replay: ReplayPlan) -> str:
    """The script carrying out `replay`; UsageError when the capture holds a name the script cannot write."""
    where = replay.label
    arguments = [f"    {identifier(name, 'argument name', where)}={_expression(value, name, where)},"
                 for name, value in replay.args.items()]
    keywords = [f"    {identifier(name, 'constexpr or option name', where)}={literal(value)},"
                for name, value in replay.keywords.items()]
    helpers = "\n\n".join(inspect.getsource(f) for f in (replay_runtime.load_kernel, replay_runtime.fresh,
                                                         replay_runtime.script_definitions,
                                                         replay_runtime.run_definitions))
    return _TEMPLATE.format(
        label=in_docstring(replay.label), site=in_docstring(replay.site), count=in_docstring(replay.count),
        capture=in_docstring(replay.capture_name), helpers=helpers, file=literal_text(replay.file),
        module=literal_text(replay.module), name=literal_text(replay.name),
        grid=repr(tuple(_integers(replay.grid, "grid", where))),
        script=repr(bool(replay.script)),
        arguments="\n".join(arguments) or "    # (no runtime arguments)",
        keywords="\n".join(keywords) or "    # (no constexprs or options)")


def literal_text(value: Any) -> str:
    """A captured string as a Python string literal (never anything else in its place)."""
    return repr(str(value))


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
