"""The click group: one clear line and an exit code for every error, never a traceback."""

from __future__ import annotations

import os
import sys

import click

from ttinspect.errors import (EXIT_FAILED, EXIT_INTERNAL, CompileError, TTInspectError, Terminated, ToolError,
                              interrupted_exit_code)
from ttinspect.files.terminal_text import shown, shown_block, tolerate_any_encoding
from ttinspect.cli.help_text import SHORT

def _fail(error: TTInspectError) -> None:
    if os.environ.get("TTINSPECT_DEBUG") and error.__cause__ is not None:  # what the user's code raised, in full
        import traceback  # only on request

        click.echo("".join(traceback.format_exception(error.__cause__)).rstrip(), err=True)
    # one line, its control characters quoted; a compile or tool error also quotes the lines it names
    text = shown_block(error) if isinstance(error, (CompileError, ToolError)) else shown(error)
    click.echo(f"ttinspect: error: {text}", err=True)
    sys.exit(error.exit_code)


class _Group(click.Group):
    """Maps our exceptions to one clear line and an exit code; never a traceback."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        """Click's usage errors in one line too (click prints usage, a hint and the error on three)."""
        from ttinspect.render import term  # loaded when a command line runs, not when `cli` is imported

        term.reset()  # one process may run several commands (the API, CliRunner in tests)
        tolerate_any_encoding()  # PYTHONIOENCODING=ascii: what the encoding lacks is escaped, never a crash
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as error:  # bare `ttinspect`: the help, as click does
            error.show()
            sys.exit(error.exit_code)
        except click.UsageError as error:
            where = f" (`{error.ctx.command_path} --help`)" if error.ctx is not None else ""
            message = " ".join(error.format_message().split())
            click.echo(f"ttinspect: error: {shown(message)}{where}", err=True)
            sys.exit(error.exit_code)
        except click.ClickException as error:
            click.echo(f"ttinspect: error: {shown(' '.join(error.format_message().split()))}", err=True)
            sys.exit(error.exit_code)
        except OSError as error:  # writing --help or --version to a full disk, a closed descriptor
            if isinstance(error, BrokenPipeError):
                raise
            click.echo(f"ttinspect: error: {_os_error_text(error)}", err=True)
            sys.exit(EXIT_FAILED)
        except click.Abort as error:  # click's wrapping of Ctrl-C (and of SIGTERM/SIGHUP, errors.Terminated)
            _interrupted(error.__context__ or error)
        sys.exit(code if isinstance(code, int) else 0)

    def format_commands(self, ctx, formatter):
        """The list `--help` ends with, from each command's one-liner (cli/help_text.py), whole: no command's
        module is imported to list it (cli/lazy_commands.py)."""
        rows = [(name, SHORT.get(name) or self._loaded_short_help(ctx, name)) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def _loaded_short_help(self, ctx, name: str) -> str:
        command = self.get_command(ctx, name)  # a command help_text.py lacks (a test says so): its own words
        return command.get_short_help_str(limit=10_000) if command is not None else ""

    def shell_complete(self, ctx, incomplete):
        """Command names from the one-liners too: a Tab on a command name imports no command's module."""
        from click.shell_completion import CompletionItem  # only while completing

        names = [name for name in self.list_commands(ctx) if name.startswith(incomplete)]
        return [CompletionItem(name, help=SHORT.get(name)) for name in names] \
            + click.Command.shell_complete(self, ctx, incomplete)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except TTInspectError as error:
            _fail(error)
        except (click.exceptions.Exit, click.ClickException, click.Abort, BrokenPipeError):
            raise  # a closed pipe: click exits 1, and cli.main() turns that into 0
        except OSError as error:  # a path the user gave (--out, TTINSPECT_CACHE_DIR) that cannot be used
            click.echo(f"ttinspect: error: {_os_error_text(error)}", err=True)
            sys.exit(EXIT_FAILED)
        except KeyboardInterrupt as error:
            _interrupted(error)
        except Exception as error:  # a bug in ttinspect: still one line, traceback on request
            if os.environ.get("TTINSPECT_DEBUG"):
                raise
            click.echo(f"ttinspect: internal error: {type(error).__name__}: {shown(error)} "
                       "(set TTINSPECT_DEBUG=1 for the traceback)", err=True)
            sys.exit(EXIT_INTERNAL)


def _os_error_text(error: OSError) -> str:
    """The system's reason and the path it refused; an unnamed write failure (a full disk, an I/O error)
    is the output's: every file ttinspect writes itself is named where it is written."""
    import errno

    if error.filename:
        return shown(f"{error.strerror or error}: {error.filename}")
    if error.errno in (errno.ENOSPC, errno.EIO, errno.EFBIG, errno.EDQUOT):
        return f"cannot write the output: {error.strerror or error}"
    return shown(error.strerror or error)


def _interrupted(error: BaseException) -> None:
    if isinstance(error, Terminated):
        import signal

        click.echo(f"ttinspect: terminated ({signal.Signals(error.signum).name})", err=True)
    else:
        click.echo("ttinspect: interrupted", err=True)
    sys.exit(interrupted_exit_code(error))


def _offline(ctx, param, value):
    if value:  # seen by the toolchains package wherever a reference names another Triton
        os.environ["TTINSPECT_OFFLINE"] = "1"
    return value


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="ttinspect")
@click.option("--offline", is_flag=True, expose_value=False, callback=_offline,
              help="Never prepare a Triton toolchain (REF@triton=X.Y.Z uses only those already there).")
def cli() -> None:
    """Inspect what the Triton compiler did with a kernel: every IR stage (TTIR, TTGIR, LLIR, PTX,
    SASS) for any NVIDIA target, without a GPU.

    \b
    Examples:
      ttinspect list
      ttinspect dump matmul_opt --stage ptx
      ttinspect dump naive --stage ttgir --arch sm_90
      ttinspect dump opt --stage ptx --set num_stages=3 --set BLOCK_SIZE_N=64
      ttinspect dump opt --all --out build/opt-sm90/ --arch sm_90
    """

