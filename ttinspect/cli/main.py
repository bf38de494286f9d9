"""The command line: each command parses its options, calls one library function and renders the result.

Imports are lazy: `ttinspect --help` and a warm `dump` must not pay for triton, torch, rich or pygments
unless they need them. One module per command group; this package only assembles them.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import stat
import sys

from ttinspect.cli import reader_left
from ttinspect.cli.app import cli
from ttinspect.cli.common import import_timeout_option, takes_user_files, terminal_options
from ttinspect.cli.completion import attach as _attach_completion
from ttinspect.cli.help_text import describe as _describe
from ttinspect.cli.lazy_commands import LazyCommands
from ttinspect.errors import Terminated
from ttinspect.refs.leftover_children import end_left_children
from ttinspect.refs.leftover_threads import exit_without_waiting, own_process

# Which module registers each command on `cli`: it is imported when its command is looked up, so a command
# imports its own module only, and `--help` none (tests/test_warm_imports.py holds both, and this table).
COMMAND_MODULES = {
    **dict.fromkeys(("list", "dump", "report", "diff"), "ttinspect.cli.inspect_cmds"),
    "check": "ttinspect.cli.check_cmd",
    "passes": "ttinspect.cli.passes_cmd",
    "html": "ttinspect.cli.html_cmd",
    "sweep": "ttinspect.cli.sweep_cmd",
    "predict": "ttinspect.cli.predict_cmd",
    "calibrate": "ttinspect.cli.calibrate_cmd",
    "snapshot": "ttinspect.cli.snapshot_cmd",
    "targets": "ttinspect.cli.targets_cmd",
    **dict.fromkeys(("toolchains", "versions"), "ttinspect.cli.toolchains_cmd"),
    "capture": "ttinspect.cli.capture_cmd",
    "repro": "ttinspect.cli.repro_cmd",
    "translate": "ttinspect.cli.translate_cmd",
    "mcp": "ttinspect.cli.mcp_cmd",
    **dict.fromkeys(("cache", "cache-info"), "ttinspect.cli.cache_cmd"),
    **dict.fromkeys(("bench", "profile", "ladder", "autotune"), "ttinspect.cli.gpu_cmds"),
}


def _prepare(name: str, command) -> None:
    """What every command gets as it is loaded: its one-liner and examples, completion of its values,
    --width/--color (after its own options in --help), and --import-timeout where it may import a user's file."""
    _describe(name, command)
    _attach_completion(command)
    terminal_options(command)
    if takes_user_files(command):
        import_timeout_option(command)


cli.commands = LazyCommands(COMMAND_MODULES, _prepare)
terminal_options(cli)  # the group takes them too

__all__ = ["cli", "main"]


def main() -> None:
    """A reader that leaves early (`ttinspect dump ... | head`) is not an error: exit 0, say nothing —
    whether the pipe closed while click wrote (click then exits 1), while rich wrote (rich points stdout
    at /dev/null and exits 1), or at the final flush."""
    if sys.stdout is None or sys.stderr is None:  # started with a standard stream closed (`>&-`)
        _reopen_closed_streams()
    _stop_like_ctrl_c_on(signal.SIGTERM, signal.SIGHUP)
    own_process()  # a user's file imported here is bounded in time, and its threads never hold the exit
    atexit.register(_quiet_binding_teardown)  # the first registered: it runs after every other handler
    to_pipe = _is_pipe()
    reader_left.install()  # a reader that leaves silences the output, never the verdict
    code: int | str | None = 0
    try:
        cli(prog_name="ttinspect")
    except SystemExit as done:
        code = done.code
    # click wraps stdout in its PacifyFlushWrapper once a write hit a closed pipe (by class name: click 8.5
    # deprecates the public alias)
    closed = type(sys.stdout).__name__.endswith("PacifyFlushWrapper") or (to_pipe and _is_devnull())
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        closed = True
    except OSError as error:  # a full disk behind stdout: said once (the command may have said it already)
        code = _output_lost(error, code)
    end_left_children(lambda line: sys.stderr.write(f"ttinspect: warning: {line}\n"))
    if reader_left.happened():  # the command ran to its end: its exit code is its verdict
        exit_without_waiting(code)
        sys.exit(code)
    if closed:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        code = 0 if code in (0, 1, None) else code
    exit_without_waiting(code)  # a thread the user's file left running does not hold the answer's exit
    sys.exit(code)


def _output_lost(error: OSError, code: int | str | None) -> int | str | None:
    """What stdout still held could not be written: the rest goes to /dev/null (so the interpreter's own
    flush at exit says nothing more), and a command that had succeeded fails with one line."""
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, sys.stdout.fileno())
    os.close(null)
    with contextlib.suppress(OSError):
        sys.stdout.flush()
    if code not in (0, None):
        return code
    sys.stderr.write(f"ttinspect: error: cannot write the output: {error.strerror or error}\n")
    return 1


def _quiet_binding_teardown() -> None:
    """After a Gluon compile, Triton's Gluon builder objects outlive the interpreter's teardown and nanobind
    prints a 30-line leak report to stderr once the command has finished: noise about Triton's bindings, not
    the kernel. Then, and only in the CLI, stderr is closed once everything else has been said."""
    jit = sys.modules.get("ttinspect.compile.jit")  # looked up, not imported: a warm command never loads it
    if jit is not None and jit.gluon_compiled():
        with contextlib.suppress(Exception):
            sys.stderr.flush()
            os.dup2(os.open(os.devnull, os.O_WRONLY), 2)


def _stop_like_ctrl_c_on(*signals: int) -> None:
    """SIGTERM and SIGHUP stop a command the way Ctrl-C does (workers ended, what finished kept, no orphan),
    then exit 128 + the signal: they raise errors.Terminated, a KeyboardInterrupt, in the main thread."""
    def stop(signum, frame):
        raise Terminated(signum)

    for number in signals:
        try:
            if signal.getsignal(number) is signal.SIG_DFL:  # SIG_IGN (nohup) stays ignored
                signal.signal(number, stop)
        except (OSError, ValueError):  # not the main thread, or a platform without it
            pass


def _reopen_closed_streams() -> None:
    """Python gives None for a standard stream that was closed at start; point it at /dev/null so that
    what would go there is dropped, while the exit code still tells the outcome."""
    for name, fd in (("stdout", 1), ("stderr", 2)):
        if getattr(sys, name) is None:
            try:
                os.fstat(fd)
            except OSError:  # free descriptor: occupy it with /dev/null so a file opened later cannot take it
                null = os.open(os.devnull, os.O_WRONLY)
                if null != fd:
                    os.dup2(null, fd)
                    os.close(null)
            setattr(sys, name, open(fd, "w", closefd=False))


def _is_pipe() -> bool:
    try:
        return stat.S_ISFIFO(os.fstat(sys.stdout.fileno()).st_mode)
    except (OSError, ValueError):
        return False


def _is_devnull() -> bool:
    try:
        here, null = os.fstat(sys.stdout.fileno()), os.stat(os.devnull)
    except (OSError, ValueError):
        return False
    return (here.st_dev, here.st_ino) == (null.st_dev, null.st_ino)


if __name__ == "__main__":
    main()
