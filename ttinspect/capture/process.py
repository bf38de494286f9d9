"""What a capture's header says about the process that recorded it: the tool, the command, the versions."""

from __future__ import annotations

import datetime
import os
import platform
import sys
from typing import Any, Sequence

# Triton's own reading of a boolean environment variable (triton.knobs): TRITON_INTERPRET=1 runs the
# kernels in its interpreter, on the CPU.
_TRUE = ("1", "true", "yes", "on", "y")


def interpreter_on() -> bool:
    return os.environ.get("TRITON_INTERPRET", "").strip().lower() in _TRUE


def header(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """The header fields (format 1, less "format" and "type") for this process; `argv` defaults to its own.
    The device is None here: the hooks name it once they see it (Session.set_device)."""
    return {"tool": "ttinspect", "tool_version": version("ttinspect"), "created": now(),
            "argv": command_line() if argv is None else list(argv), "cwd": os.getcwd(),
            "python": platform.python_version(), "triton": version("triton"), "torch": version("torch"),
            "interpreter": interpreter_on(), "device": None, "triton_root": triton_root()}


def triton_root() -> str | None:
    """The folder of the triton package this process imports (without importing it): a reader on another
    machine tells Triton's own files (the release) from the user's by it."""
    import importlib.util  # only when a capture starts

    try:
        spec = importlib.util.find_spec("triton")
    except (ImportError, ValueError):
        return None
    locations = list(getattr(spec, "submodule_search_locations", None) or []) if spec is not None else []
    return os.path.abspath(locations[0]) if locations else None


def command_line() -> list[str]:
    """This process's command as it was typed: `python -m pytest -q` (sys.orig_argv), where sys.argv says
    `.../pytest/__main__.py -q`; a console script its shebang started (`pytest -q`: orig_argv is the venv's
    python, then the script's path) by the script's name."""
    typed = list(getattr(sys, "orig_argv", None) or sys.argv)
    if len(typed) >= 2 and sys.argv and typed[1] == sys.argv[0] and os.path.isabs(typed[1]) \
            and os.path.dirname(typed[1]) == os.path.dirname(sys.executable):
        return [os.path.basename(typed[1]), *typed[2:]]
    return typed


def run_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """The header fields a run sets for all its processes (the merge takes the versions from the processes):
    the command, where it ran, when, and whether Triton's interpreter was asked for."""
    return {k: fields[k] for k in ("tool", "tool_version", "created", "argv", "cwd", "interpreter")}


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).astimezone().isoformat(timespec="microseconds")


def version(name: str) -> str | None:
    """The version of `name` as this process has it (the loaded module's, else the installed
    distribution's), without importing it; None when it is not installed."""
    loaded = getattr(sys.modules.get(name), "__version__", None)
    if isinstance(loaded, str):
        return loaded
    import importlib.metadata  # ~10 ms, only when a capture starts

    try:
        return importlib.metadata.version(name)
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return None
