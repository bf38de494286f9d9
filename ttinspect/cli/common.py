"""What the commands share: the reference options, JSON output, stage checks, the kernel's source."""

from __future__ import annotations

import click

from ttinspect.errors import UsageError
from ttinspect.files.import_limit import DEFAULT_SECONDS, ENV, parse_seconds, set_option

# the text stages (stages.TEXT_STAGES), and `asm`: the target's assembly (ptx or amdgcn)
STAGE_NAMES = ("ttir", "glir", "ttgir", "llir", "ptx", "sass", "amdgcn", "asm")

REF_HELP = """REF is a shipped variant (naive, opt:num_stages=3@sm_90), a kernel or declared example in your
file (my_mm.py:matmul, path/to/file.py:small) or in a module (liger_kernel.ops.rms_norm:_rms_norm_forward_kernel),
a Triton cache entry (cache:3fa9c2, from `ttinspect cache`), or a compile a run captured (step.ttcap:matmul_kernel#2,
from `ttinspect capture`).
Add @triton=X.Y.Z to compile it with another Triton release (opt@triton=3.5.1; `ttinspect toolchains`)."""


class _Value(click.ParamType):
    """A text value that must say something: empty, blank or control characters are refused in one line
    (an empty --arch or --stage silently meaning the default would hide a typo in a script)."""

    name = "text"

    def convert(self, value, param, ctx):
        if not isinstance(value, str):
            return value
        if not value.strip():
            self.fail("must not be empty", param, ctx)
        if value != value.strip() or any(ord(c) < 32 and c != "\t" for c in value):
            self.fail(f"{value[:60]!r} has spaces or control characters around or in it", param, ctx)
        return value


VALUE = _Value()


class _Stage(_Value):
    """A text stage, checked while parsing (so `--help`-level checks, completion and the docs runner see a
    wrong stage too), refused with the same one line as before."""

    name = "stage"

    def convert(self, value, param, ctx):
        value = super().convert(value, param, ctx)
        if isinstance(value, str) and value not in STAGE_NAMES:
            self.fail(f"unknown stage {value!r}; valid: {', '.join(STAGE_NAMES)}", param, ctx)
        return value


STAGE = _Stage()


def emit_json(data) -> None:
    # loaded when the command runs: kept off start-up and `--help`
    from ttinspect.render.jsonout import dumps

    click.echo(dumps(data))


def check_stage(stage: str) -> None:
    if stage not in STAGE_NAMES:
        raise UsageError(f"unknown stage {stage!r}; valid: {', '.join(STAGE_NAMES)}")


def stage_for(stage: str, built) -> str:
    """The stage as the build's target has it: `asm` -> ptx / amdgcn; the other vendor's stage refused."""
    # loaded when the command runs: kept off start-up and `--help`
    from ttinspect.dialects.stages import for_target

    return for_target(stage, built.target.backend, built.target.name)


def settings_option(f):
    return click.option("--set", "settings", multiple=True, metavar="KEY=VALUE",
                        help="Set a constexpr, compile option or problem value (repeatable), "
                             "e.g. --set num_stages=3.")(f)


def config_option(f):
    return click.option("--config", "config", default=None, metavar="N|all|best", type=VALUE,
                        help="An @triton.autotune kernel's N-th config (1-based), or `all` (report: one row per "
                             "config); for a shipped variant also `best`, the winner `ttinspect autotune` saved. "
                             "--set still applies on top.")(f)


class _ArchOption(click.Option):
    """Its help lists the targets the installed Triton compiles for, worked out only when help is shown."""

    def get_help_record(self, ctx):
        # only when a command's --help shows it: kept off start-up
        from ttinspect.targets.releases import supported_targets

        self.help = (f"Target: {', '.join(supported_targets())} (what the installed Triton compiles for; "
                     "default sm_89), or native (the GPU here). `ttinspect targets` shows their limits.")
        return super().get_help_record(ctx)


def arch_option(f):
    return click.option("--arch", default=None, metavar="ARCH", cls=_ArchOption, type=VALUE)(f)


def args_options(f):
    f = click.option("--signature", default=None, metavar="SIG", type=VALUE,
                     help='Your kernel\'s arguments in order, as Triton\'s AOT compiler writes them: '
                          '"*fp16:16, i32:16, i32, fp32, 64" (:16 = 16-byte aligned / divisible by 16).')(f)
    return click.option("--arg", "args", multiple=True, metavar="NAME=VALUE",
                        help="One argument of your kernel by name (repeatable): --arg a_ptr=*fp16 (a tensor, "
                             "aligned like torch's), --arg M=4096, --arg K=i32:16.")(f)


def _keep_device_props(ctx, param, value):
    ctx.meta["ttinspect.device_props"] = tuple(value or ())
    return value


def device_props_option(f):
    """Kept in the click context rather than passed to every command: only `options_from` reads it."""
    return click.option("--device-props", multiple=True, metavar="KEY=VALUE", expose_value=False,
                         callback=_keep_device_props, type=VALUE,
                         help="Override a number of the target's virtual device, which your code sees while it is "
                              "imported (repeatable): --device-props num_sms=114 (docs/virtual-device.md).")(f)


def _keep_source(ctx, param, value):
    ctx.meta["ttinspect.source"] = value
    return value


def source_option(f):
    """As --device-props: kept in the click context, read by `options_from`. A command with a `--source`
    of its own (dump's interleaved Python lines) keeps its own."""
    if any("--source" in getattr(p, "opts", ()) for p in getattr(f, "__click_params__", ())):
        return f
    return click.option("--source", "source", default=None, expose_value=False, callback=_keep_source,
                        type=click.Choice(("captured", "current")),
                        help="A captured kernel (FILE.ttcap:KERNEL) whose file changed since the run: compile "
                             "the text the capture kept, or the file as it is now (default: refuse).")(f)


def ref_options(f):
    """--arch, --set, --arg, --signature, --config, --device-props, --source: everything `refs.RefOptions`
    takes."""
    for option in (config_option, args_options, settings_option, arch_option, device_props_option, source_option):
        f = option(f)
    return f


def options_from(arch, settings, args, signature, config):
    # loaded when the command runs: kept off start-up and `--help`
    from ttinspect.refs.resolver import RefOptions

    context = click.get_current_context(silent=True)
    meta = context.meta if context is not None else {}
    return RefOptions.from_cli(settings, args, signature, config, arch, meta.get("ttinspect.device_props", ()),
                               meta.get("ttinspect.source"))


def kernel_source(built) -> tuple[str, str]:
    """The kernel's Python file and its text, for source attribution."""
    from pathlib import Path

    if not built.source_file:
        raise UsageError(f"{built.label}: its Python source is not known, so lines cannot be attributed")
    path = Path(built.source_file)
    if not path.is_file():
        raise UsageError(f"{built.label}: its source file {path} is not on this machine "
                         "(the kernel was compiled elsewhere); --source / --by-line need it")
    return str(path), path.read_text()


def _set_width(ctx, param, value):
    if value is not None:
        from ttinspect.render import term  # only when --width is given: kept off start-up

        term.configure(width=value)
    return value


def _set_color(ctx, param, value):
    if value is not None:
        from ttinspect.render import term  # only when --color is given: kept off start-up

        term.configure(color=value)
    return value


def terminal_options(f):
    """--width and --color, on the group and on every command (`ttinspect report opt --width 100`)."""
    f = click.option("--color", type=click.Choice(("auto", "always", "never")), default=None, expose_value=False,
                     callback=_set_color, help="Colour: auto (a terminal, unless NO_COLOR is set; FORCE_COLOR "
                                               "forces it), always or never.")(f)
    return click.option("--width", type=click.IntRange(40, 1000), default=None, expose_value=False, metavar="N",
                        callback=_set_width, help="Columns for tables (default: the terminal's, else COLUMNS, "
                                                  "else 80). Code is never wrapped.")(f)


class _Seconds(click.ParamType):
    """0 (no limit) or a positive, finite number of seconds; refused in one line otherwise."""

    name = "seconds"

    def convert(self, value, param, ctx):
        if not isinstance(value, str):
            return value
        try:
            return parse_seconds(value, "--import-timeout")
        except UsageError as error:
            self.fail(str(error).partition(": ")[2], param, ctx)


def _keep_import_timeout(ctx, param, value):
    set_option(value)  # None (not given) too: one process may run several commands (the API, CliRunner)
    return value


def import_timeout_option(f):
    """--import-timeout, on every command that takes a reference or a file (cli/main.py adds it): how long
    importing a file of the user's may take before it is stopped and named in one line."""
    return click.option("--import-timeout", type=_Seconds(), default=None, expose_value=False, metavar="SECONDS",
                        callback=_keep_import_timeout,
                        help=f"How long importing a file of yours may take (default {DEFAULT_SECONDS:g}, or {ENV}; "
                             "0: no limit): code that loops or waits at import is stopped and its line named.")(f)


def takes_user_files(command: click.Command) -> bool:
    """A command whose arguments may name a user's file (a reference, a file, a list of them): every command
    with an argument but `cache` (a folder) and `capture` (a program it runs as it is, not imports)."""
    return command.name not in ("cache", "capture") and any(isinstance(p, click.Argument) for p in command.params)
