"""Programs that read the real GPU (`nvidia-smi`, `rocm-smi`, `amd-smi`, `rocminfo`) started while the virtual
device is active. What the device knows is answered in the program's own format (smi_answers.py: `nvidia-smi
--query-gpu=name,clocks.max.sm --format=csv`, `nvidia-smi -L`): the program started is this Python, printing
that text and exiting as the tool would, so every way of starting it (run, check_output, Popen and its pipes)
works unchanged. The other vendor's tool is not installed on a machine of the target (FileNotFoundError, as
Popen raises it). Anything else is refused in one line naming the line that ran it. The refusal is also
remembered: a library may swallow it (flag-gems runs nvidia-smi in a thread under a bare `except`) and then fail
for want of a GPU, and that failure's message must name the program, not only the library's own raise helper
(`ran_gpu_programs`)."""

from __future__ import annotations

import errno
import os
import shlex
import subprocess
import sys
from typing import Any, Callable

from ttinspect.virtual import smi_answers, state
from ttinspect.virtual.refusal import refuse

GPU_PROGRAMS = frozenset({"nvidia-smi", "rocm-smi", "amd-smi", "rocminfo", "rocm_agent_enumerator"})
_RAN: list[str] = []  # "nvidia-smi (flag_gems/runtime/backend/device.py:118)", since the outermost block began


def program_of(args: Any, shell: bool = False) -> str | None:
    """The GPU program a Popen call starts, or None (any other program runs as it would)."""
    first: Any = args
    if not isinstance(args, (str, bytes, os.PathLike)):
        first = next(iter(args), None) if args is not None else None
    if isinstance(first, bytes):
        first = first.decode(errors="replace")
    if first is None:
        return None
    text = os.fspath(first)
    if shell or isinstance(args, str):
        try:
            text = (shlex.split(text) or [""])[0]
        except ValueError:
            text = text.split()[0] if text.split() else ""
    name = os.path.basename(text)
    return name if name in GPU_PROGRAMS else None


def guard(patch: Callable[[Any, str, Any], None]) -> None:
    """Installs the refusal on `subprocess.Popen` (run, check_output and call go through it)."""
    _RAN.clear()  # kept after the block: the import's error is told once the device is gone
    original = subprocess.Popen.__init__

    def __init__(self, args, *more, **kwargs):  # noqa: N807 - Popen's own method, wrapped
        if not isinstance(args, (str, bytes, os.PathLike)) and args is not None:
            args = list(args)  # a generator is read once: by the check, then by Popen from this list
        program = program_of(args, bool(kwargs.get("shell")))
        if program is not None:
            args, kwargs = answered(program, args, kwargs)
        original(self, args, *more, **kwargs)

    patch(subprocess.Popen, "__init__", __init__)


def _words(args: Any, shell: bool) -> list[str] | None:
    """The program's arguments after its name; None for a shell line that does more than run it."""
    if isinstance(args, (str, bytes, os.PathLike)):
        text = os.fsdecode(args) if not isinstance(args, str) else args
        if shell and any(mark in text for mark in "|;&<>`$()\n"):
            return None
        try:
            return shlex.split(text)[1:]
        except ValueError:
            return None
    return [os.fsdecode(a) if isinstance(a, bytes) else str(os.fspath(a)) for a in args[1:]]


def answered(program: str, args: Any, kwargs: dict) -> tuple[Any, dict]:
    """Popen's arguments that print the device's answer instead (this Python, isolated, no site: it starts in
    milliseconds and is not captured); FileNotFoundError for the other vendor's tool; else the refusal."""
    numbers = state.current()
    if smi_answers.absent_on_target(program, numbers):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)
    words = _words(args, bool(kwargs.get("shell")))
    why = "cannot answer: only a real GPU's driver can"
    if program in smi_answers.NVIDIA_PROGRAMS and words is not None:
        try:
            text, code = smi_answers.nvidia_smi(words, numbers)
        except smi_answers.Unknown as unknown:
            why = f"cannot answer ({unknown.what}: {unknown.why})"
        else:
            printer = [sys.executable, "-I", "-S", "-c",
                       f"import sys; sys.stdout.write({text!r}); sys.stdout.flush(); sys.exit({code})"]
            kwargs = {k: v for k, v in kwargs.items() if k != "executable"}
            return (shlex.join(printer) if kwargs.get("shell") else printer), kwargs
    elif program in smi_answers.NVIDIA_PROGRAMS:
        why = "cannot answer (a shell line that does more than run it)"
    error = refuse(f"the program {program} (run through subprocess)", numbers.label, why,
                   also=(subprocess.__file__,))
    _RAN.append(f"{program} ({error.where or 'its code'})")
    raise error


def ran_gpu_programs() -> list[str]:
    """The GPU programs the code tried to start under the virtual device (refused), with their lines."""
    return list(dict.fromkeys(_RAN))
