"""A kernel that failed inside Triton's interpreter while a capture ran it (TRITON_INTERPRET=1, or
`capture --as ARCH --run-kernels`): one line naming the kernel's line that failed, the program's launch line and
what to do, instead of a traceback of fifty lines through the interpreter.

Any exception raised while the interpreter runs a launched kernel's body counts, whatever its type: an op the
interpreter lacks raises NotImplementedError (`tl.inline_asm_elementwise`, an extern elementwise, Triton
3.3-3.9) or hands back None (3.9's `libdevice.log1p`: an AttributeError on the next op), and Triton 3.3-3.9
wrap each in an InterpreterError at every @jit function it passes. It is told apart from the program's own
errors (a grid function's, an argument the launch lacks) by where it arose: its traceback passes through the
kernel's own frame. The error still propagates unchanged: a program that catches it (pytest, a fallback to
torch) goes on, and at exit one line sums up the failures it caught. The launch's compile is recorded before the
kernel runs, and the launch is counted: a GPU would have made it.
"""

from __future__ import annotations

import atexit
import os
import sys
from dataclasses import dataclass
from typing import Any

from ttinspect.capture import launches
from ttinspect.errors import cause_chain
from ttinspect.files.terminal_text import shown
from ttinspect.virtual.refusal import shown_path

MAX_KEPT = 100  # failures kept for the exit's summary (a test run may fail in every test); the rest are counted
MAX_ERROR_TEXT = 200  # characters of the interpreter's message in the line
_UNWRAP = 4  # wrappers of a @jit function (autotuner, heuristics) looked through for the function itself


@dataclass(frozen=True)
class Failure:
    """Where a launched kernel failed in the interpreter: the innermost @jit function's line (`inner_line`, in
    `inner_name`; the kernel's own where they are one), the kernel's line, the program's launch line."""
    kernel: str
    kernel_line: str
    inner_name: str
    inner_line: str
    launch_line: str
    error: str


_kept: list[tuple[BaseException, Failure]] = []  # the propagating error (kept alive: matched by identity)
_count = [0]  # failures seen in this process
_said: list[Failure] = []  # failures the excepthook has said (not said again at exit)
_arch: list[str | None] = []  # [the target's name under `capture --as`, or None] once a hook is installed


def failed(error: BaseException, kernel: Any, launch_frame: Any) -> bool:
    """Is `error`, raised by the interpreter's launch of `kernel`, a new failure of the kernel's body (the launch
    is then counted)? If so it is kept for the one-line report (the excepthook is installed at the first one,
    unless `capture --as` installed it)."""
    if any(kept is error for kept, _ in _kept):
        return False  # kept and counted already: a launch wrapper inside this one saw it first
    failure = recognize(error, kernel, launch_frame)
    if failure is None:
        return False
    _count[0] += 1
    if len(_kept) < MAX_KEPT:
        _kept.append((error, failure))
    if not _arch:
        sys.excepthook = excepthook(sys.excepthook, None)
    return True


def recognize(error: BaseException, kernel: Any, launch_frame: Any) -> Failure | None:
    """The Failure of `error` when its traceback passes through the kernel's frame; None otherwise."""
    function = _python_function(kernel)
    if function is None:
        return None
    own = (function.__name__, os.path.abspath(function.__code__.co_filename))
    kernel_line = inner_line = None
    inner_name = function.__name__
    raised: BaseException = error  # what the op raised: the innermost error through the innermost @jit frame
    for link in cause_chain(error):
        trace = link.__traceback__
        while trace is not None:
            code = trace.tb_frame.f_code
            here = f"{shown_path(code.co_filename)}:{trace.tb_lineno}"
            if (code.co_name, os.path.abspath(code.co_filename)) == own:
                kernel_line = inner_line = here
                inner_name, raised = code.co_name, link
            elif kernel_line is not None and _runs_jit_function(trace.tb_frame):
                inner_line, inner_name, raised = here, code.co_name, link
            trace = trace.tb_next
    if kernel_line is None or inner_line is None:  # not the kernel's body: the program's own error
        return None
    first_line = (str(raised).strip().splitlines() or [""])[0]
    text = f"{type(raised).__name__}: {first_line}" if first_line else type(raised).__name__
    if len(text) > MAX_ERROR_TEXT:
        text = text[:MAX_ERROR_TEXT] + "..."
    return Failure(function.__name__, kernel_line, inner_name, inner_line, launches.shown_site(launch_frame), text)


def in_one_line(failure: Failure, arch: str | None) -> str:
    """What the user reads: where it failed, what is recorded, what to do."""
    where = failure.kernel_line if failure.inner_line == failure.kernel_line else \
        f"{failure.inner_line} in {failure.inner_name}, called from {failure.kernel_line}"
    offline = f"compiles it offline for {arch}" if arch else "compiles it offline (--arch: the GPU's)"
    instead = ("capture without --run-kernels (launches recorded, none run)" if arch else
               "`ttinspect capture --as ARCH` records its launches without running them")
    return (f"{_prefix(arch)}: kernel {failure.kernel} (launched at {failure.launch_line}) failed in Triton's "
            f"interpreter at {where} ({shown(failure.error)}); its compile and launch are recorded: `ttinspect "
            f"report CAPTURE.ttcap:{failure.kernel}` {offline} (an error there is the kernel's own; none: the "
            f"interpreter cannot run this op); where the program does not read what its kernels compute, "
            f"{instead}")


def excepthook(previous: Any, arch: str | None) -> Any:
    """sys.excepthook saying a kept failure in one line (also one a library's error wraps); any other error
    goes on to `previous`. `arch`: the target's name under `capture --as`. Installed once per process."""
    if not _arch:
        _arch.append(arch)
        atexit.register(_caught_at_exit)

    def hook(kind: Any, error: Any, trace: Any) -> None:
        failure = _kept_failure(error)
        if failure is None:
            previous(kind, error, trace)
            return
        _said.append(failure)
        print(in_one_line(failure, arch), file=sys.stderr, flush=True)
    return hook


def _caught_at_exit() -> None:
    """The failures the program caught itself (a test runner's tests, a fallback), in one line: the code after
    each in its own path did not run, so its launches are not in the capture."""
    caught = [failure for _, failure in _kept if failure not in _said]
    count = _count[0] - len(_said)
    if not caught or count <= 0:
        return
    first = caught[0]
    arch = _arch[0] if _arch else None
    print(f"{_prefix(arch)}: the program caught {count} kernel failure(s) in Triton's interpreter (the first: "
          f"kernel {first.kernel}, launched at {first.launch_line}, failed at {first.inner_line}: "
          f"{shown(first.error)}); their compiles and launches are recorded, the code after each did not run",
          file=sys.stderr, flush=True)


def _kept_failure(error: Any) -> Failure | None:
    for link in cause_chain(error):
        for kept, failure in _kept:
            if kept is link:
                return failure
    return None


def _python_function(value: Any) -> Any:
    """The Python function a @jit object (or an autotuner / heuristics over one) wraps; None if none."""
    for _ in range(_UNWRAP):
        if value is None or hasattr(value, "__code__"):
            break
        value = getattr(value, "fn", None)
    return value if hasattr(value, "__code__") else None


def _runs_jit_function(frame: Any) -> bool:
    """Does this frame run a @jit function of the user's (a helper the kernel called)? The interpreter runs a
    rewritten copy of it, so it is matched by name and file against the module global of its name. Triton's own
    (tl.max, tl.cdiv: the release's) are not: the line named is the one the user wrote."""
    code = frame.f_code
    triton = _triton_folder()
    if triton and os.path.abspath(code.co_filename).startswith(triton):
        return False
    function = _python_function(frame.f_globals.get(code.co_name)) if code.co_name in frame.f_globals else None
    return function is not None and function is not frame.f_globals.get(code.co_name) and \
        function.__name__ == code.co_name and function.__code__.co_filename == code.co_filename


def _triton_folder() -> str:
    """The folder of the triton package this process runs (loaded: it ran the kernel), with its separator."""
    file = getattr(sys.modules.get("triton"), "__file__", None)
    return os.path.dirname(os.path.abspath(file)) + os.sep if file else ""


def _prefix(arch: str | None) -> str:
    return f"ttinspect capture --as {arch}" if arch else "ttinspect capture"


def reset() -> None:
    """For tests: nothing failed in this process yet (an installed hook stays)."""
    _kept.clear()
    _said.clear()
    _count[0] = 0
