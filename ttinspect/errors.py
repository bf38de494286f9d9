"""One root exception. Each subclass carries what the user needs to act on it; the CLI turns any of
them into one line on stderr and a non-zero exit code, never a traceback."""

from __future__ import annotations


class TTInspectError(Exception):
    """Anything ttinspect reports to the user as a clear message."""

    exit_code = 1


class UsageError(TTInspectError):
    """Bad input: an unknown variant, stage, arch or --set key; a malformed option."""

    exit_code = 2


class CompileError(TTInspectError):
    """Triton rejected the kernel/config. Carries Triton's reason and the kernel source line."""

    exit_code = 3

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

    exit_code = 4


class NoGPUError(TTInspectError):
    """A command that needs a CUDA GPU ran on a machine without one."""

    exit_code = 5


class ParseError(TTInspectError):
    """Stage text that a parser could not read; carries the line number."""

    exit_code = 6

    def __init__(self, message: str, *, line: int | None = None, stage: str | None = None):
        self.line, self.stage = line, stage
        where = f"{stage or 'input'} line {line}: " if line else ""
        super().__init__(where + message)
