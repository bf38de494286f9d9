"""Programs that read the real GPU (`nvidia-smi`, `rocm-smi`, `amd-smi`, `rocminfo`): the virtual device cannot
answer them, so starting one while it is active is refused in one line naming the line that ran it. The refusal
is also remembered: a library may swallow it (flag-gems runs nvidia-smi in a thread under a bare `except`) and
then fail for want of a GPU, and that failure's message must name the program, not only the library's own
raise helper (`ran_gpu_programs`)."""

from __future__ import annotations

import os
import shlex
import subprocess
from typing import Any, Callable

from ttinspect.virtual import state
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
            error = refuse(f"the program {program} (run through subprocess)", state.current().label,
                           "cannot answer: only a real GPU's driver can", also=(subprocess.__file__,))
            _RAN.append(f"{program} ({error.where or 'its code'})")
            raise error
        original(self, args, *more, **kwargs)

    patch(subprocess.Popen, "__init__", __init__)


def ran_gpu_programs() -> list[str]:
    """The GPU programs the code tried to start under the virtual device (refused), with their lines."""
    return list(dict.fromkeys(_RAN))
