"""One root exception. Each subclass carries what the user needs to act on it; the CLI turns any of
them into one line on stderr and a non-zero exit code, never a traceback."""

from __future__ import annotations

# Exit codes, one meaning each (docs/engine.md's table). TTInspectError subclasses carry theirs.
EXIT_OK = 0
EXIT_FAILED = 1  # ran, and what it was asked to fail on happened (check --fail-on; every row/point failed);
#                  or the system refused a file (permissions, a full disk)
EXIT_USAGE = 2  # bad input: a reference, an option, a file, a cache path, an output path
EXIT_COMPILE = 3  # Triton rejected the kernel or config
EXIT_TOOL = 4  # a tool failed (nvdisasm, cuobjdump, ptxas, another Triton's toolchain)
EXIT_NO_GPU = 5  # a command that needs a CUDA GPU, without one
EXIT_NOTHING_TO_CHECK = 5  # a gate with nothing in it (pytest's "no tests collected"); never a GPU command's
EXIT_PARSE = 6  # stage text that could not be parsed
EXIT_INTERNAL = 70  # a bug in ttinspect (sysexits' EX_SOFTWARE)
EXIT_INTERRUPTED = 130  # SIGINT; SIGTERM 143 and SIGHUP 129: 128 + the signal's number, as shells report


class TTInspectError(Exception):
    """Anything ttinspect reports to the user as a clear message."""

    exit_code = EXIT_FAILED


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised in the main thread (cli.main installs the handler) so that every command
    stops the way Ctrl-C stops it — workers ended, what finished kept — and exits 128 + the signal."""

    def __init__(self, signum: int):
        self.signum = signum
        super().__init__(signum)


def interrupted_exit_code(error: BaseException) -> int:
    """128 + the signal that stopped us (2 for Ctrl-C)."""
    return 128 + error.signum if isinstance(error, Terminated) else EXIT_INTERRUPTED


def failures_exit_code(codes: list[int]) -> int:
    """The exit code of a table whose every row failed (`--config all`, a sweep): the rows' own code when
    they all share one (every config rejected by Triton: 3), else EXIT_FAILED."""
    return codes[0] if codes and all(code == codes[0] for code in codes) else EXIT_FAILED


class UsageError(TTInspectError):
    """Bad input: an unknown variant, stage, arch or --set key; a malformed option."""

    exit_code = EXIT_USAGE


class CompileError(TTInspectError):
    """Triton rejected the kernel/config. Carries Triton's reason and the kernel source line."""

    exit_code = EXIT_COMPILE

    def __init__(self, reason: str, *, file: str | None = None, line: int | None = None,
                 source_line: str | None = None):
        self.reason, self.file, self.line, self.source_line = reason, file, line, source_line
        where = f"{file}:{line}: " if file and line else ""
        text = f"{where}{reason}"
        if source_line:
            text += f"\n    {source_line.strip()}"
        super().__init__(text)


class ToolError(TTInspectError):
    """A tool Triton ships (nvdisasm, cuobjdump, ptxas) is missing or failed."""

    exit_code = EXIT_TOOL


class NoGPUError(TTInspectError):
    """A command that needs a CUDA GPU ran on a machine without one."""

    exit_code = EXIT_NO_GPU


class ParseError(TTInspectError):
    """Stage text that a parser could not read; carries the line number."""

    exit_code = EXIT_PARSE

    def __init__(self, message: str, *, line: int | None = None, stage: str | None = None):
        self.line, self.stage = line, stage
        where = f"{stage or 'input'} line {line}: " if line else ""
        super().__init__(where + message)


class NothingToGate(TTInspectError):
    """A gate with nothing in it (`snapshot --check` over kernel files that declare no example) is refused, as
    pytest refuses a run that collected no test: a gate that checks nothing must not pass."""

    exit_code = EXIT_NOTHING_TO_CHECK  # `snapshot` needs no GPU, so 5 means only this there


def cause_chain(error: BaseException | None) -> list[BaseException]:
    """The error and what it was raised from or while handling (`__cause__`, else `__context__`), outermost
    first, each once (a chain may loop back)."""
    chain: list[BaseException] = []
    while isinstance(error, BaseException) and all(error is not seen for seen in chain):
        chain.append(error)
        error = error.__cause__ or error.__context__
    return chain
