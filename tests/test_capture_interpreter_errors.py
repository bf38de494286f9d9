"""A kernel that fails in Triton's interpreter while a capture runs it (`capture --as ARCH --run-kernels`, or
TRITON_INTERPRET=1): one stderr line naming the kernel's line and the launch line, a non-zero exit, no traceback,
and what was recorded until then kept (issue 39). The op is `tl.inline_asm_elementwise`: the interpreter of
every release from 3.3.1 to 3.9.0 raises NotImplementedError for it (their runtime/interpreter.py, read)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from cli_helpers import run_process

from ttinspect.capture import interpreter_failures, read

KERNELS = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def copy(x, y, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(y + offs, tl.load(x + offs))


    @triton.jit
    def as_bits(v):
        return tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [v], tl.int32, True, 1)


    @triton.jit
    def asm_direct(x, y, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        v = tl.load(x + offs)
        tl.store(y + offs, tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [v], tl.int32, True, 1))


    @triton.jit
    def asm_in_helper(x, y, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(y + offs, as_bits(tl.load(x + offs)))
    """)


def _line_of(fragment: str, after: str) -> int:
    """The 1-based line of KERNELS holding `fragment`, the first after the line holding `after`."""
    lines = KERNELS.splitlines()
    start = next(n for n, line in enumerate(lines) if after in line)
    return next(n for n, line in enumerate(lines) if n > start and fragment in line) + 1


LINES = {"asm_direct": _line_of("tl.inline_asm_elementwise", "def asm_direct"),  # the line each fails at
         "asm_in_helper": _line_of("as_bits(", "def asm_in_helper"),
         "as_bits": _line_of("tl.inline_asm_elementwise", "def as_bits")}

PROGRAM = textwrap.dedent("""\
    import torch
    from kern import copy, {kernel}

    x = torch.arange(64, dtype=torch.int32, device="{device}")
    y = torch.empty_like(x)
    copy[(1,)](x, y, BLOCK=64)
    {kernel}[(1,)](x, y, BLOCK=64)
    print("went on")
    """)
LAUNCH_LINE = 7

CATCHING = PROGRAM.replace("{kernel}[(1,)](x, y, BLOCK=64)",  # as a test runner catches a test's error
                           "try:\n    {kernel}[(1,)](x, y, BLOCK=64)\nexcept Exception:\n    pass")

MODES = {"as sm_90": ("--as", "sm_90", "--run-kernels"), "TRITON_INTERPRET=1": ()}


def capture(tmp_path: Path, program: str, kernel: str, mode: str):
    (tmp_path / "kern.py").write_text(KERNELS)
    device = "cuda" if mode.startswith("as") else "cpu"
    (tmp_path / "prog.py").write_text(program.format(kernel=kernel, device=device))
    done = run_process("capture", *MODES[mode], "-o", "run.ttcap", "--", sys.executable, "prog.py", cwd=tmp_path,
                       env={"TRITON_INTERPRET": "1", "TRITON_DEFAULT_FP_FUSION": "1"})
    return done, read(tmp_path / "run.ttcap")


def said(done) -> list[str]:
    return [line for line in done.stderr.splitlines() if "Triton's interpreter" in line]


@pytest.mark.parametrize("kernel", ["asm_direct", "asm_in_helper"])
@pytest.mark.parametrize("mode", list(MODES))
def test_a_kernel_the_interpreter_cannot_run_ends_the_program_in_one_line(tmp_path, mode, kernel):
    done, captured = capture(tmp_path, PROGRAM, kernel, mode)
    assert done.returncode != 0 and "went on" not in done.stdout
    lines = said(done)
    assert len(lines) == 1, done.stderr
    line = lines[0]
    assert line.startswith("ttinspect capture --as sm_90: " if mode.startswith("as") else "ttinspect capture: ")
    assert f"kernel {kernel} (launched at prog.py:{LAUNCH_LINE})" in line
    if kernel == "asm_in_helper":
        assert f"kern.py:{LINES['as_bits']} in as_bits, called from kern.py:{LINES[kernel]}" in line
    else:
        assert f"at kern.py:{LINES[kernel]} (NotImplementedError: inline_asm not supported" in line
    assert f"report CAPTURE.ttcap:{kernel}" in line
    # the launch before it and this one's compile (and launch: a GPU would have made it) are in the capture
    names = {c.id: c.name for c in captured.compiles}
    launched = {names[entry.compile]: entry.count for entry in captured.launches}
    assert launched == {"copy": 1, kernel: 1}


@pytest.mark.parametrize("mode", list(MODES))
def test_a_program_that_catches_the_failure_goes_on_and_is_told_at_exit(tmp_path, mode):
    done, captured = capture(tmp_path, CATCHING, "asm_direct", mode)
    assert done.returncode == 0 and "went on" in done.stdout, done.stderr
    lines = said(done)
    assert len(lines) == 1, done.stderr
    assert "the program caught 1 kernel failure(s)" in lines[0]
    assert f"failed at kern.py:{LINES['asm_direct']}" in lines[0]
    assert {c.name for c in captured.compiles} == {"copy", "asm_direct"}


def _failing_kernel(x):
    return x.no_such_attribute


class _Jit:
    """Stands for a @jit object: the interpreter's failure is recognized through the function it wraps."""

    def __init__(self, fn):
        self.fn = fn


def _raised(function, *args):
    try:
        function(*args)
    except Exception as error:
        return error
    raise AssertionError("did not raise")


def test_only_an_error_from_the_kernels_own_frame_is_a_kernel_failure():
    inside = _raised(_failing_kernel, None)
    try:
        raise RuntimeError("wrapped, as the interpreter wraps it") from inside
    except RuntimeError as wrapped:
        failure = interpreter_failures.recognize(wrapped, _Jit(_failing_kernel), sys._getframe())
    assert failure is not None and failure.kernel == "_failing_kernel"
    assert failure.error.startswith("AttributeError:") and failure.kernel_line == failure.inner_line
    body_line = _failing_kernel.__code__.co_firstlineno + 1
    assert failure.kernel_line.endswith(f"test_capture_interpreter_errors.py:{body_line}")
    # an error of the program's own (a grid function's, a missing argument) keeps its traceback
    assert interpreter_failures.recognize(_raised(int, "x"), _Jit(_failing_kernel), sys._getframe()) is None
