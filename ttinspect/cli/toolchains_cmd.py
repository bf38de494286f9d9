"""`ttinspect toolchains` and `ttinspect versions`: other Tritons beside the installed one (logic in
ttinspect/toolchains/)."""

from __future__ import annotations

import click

from ttinspect.errors import UsageError
from ttinspect.cli.app import cli
from ttinspect.cli.common import REF_HELP, VALUE, emit_json, ref_options, options_from


@cli.command("toolchains")
@click.option("--add", "add", multiple=True, metavar="X.Y.Z", type=VALUE,
              help="Prepare an environment with this Triton (uv if installed, else pip); repeatable.")
@click.option("--remove", "remove", multiple=True, metavar="X.Y.Z", type=VALUE,
              help="Delete a prepared environment (a registered one is only forgotten); repeatable.")
@click.option("--python", "python", default=None, metavar="PATH", type=VALUE,
              help="With one --add: register an existing environment's python instead of creating one.")
@click.option("--with", "packages", multiple=True, metavar="PACKAGE", type=VALUE,
              help="With --add: also install this package there (a name this environment has: its version "
                   "here; else as pip reads it, e.g. einops, torch==2.10.0); repeatable. A user's file "
                   "gets what it imports on first use anyway.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def toolchains_command(add: tuple[str, ...], remove: tuple[str, ...], python: str | None,
                       packages: tuple[str, ...], as_json: bool) -> None:
    """The Triton releases ttinspect can compile with besides the installed one: where, how big, how long
    preparing took, what was installed beside Triton. A reference takes one with @triton=X.Y.Z."""
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.toolchains import registry as toolchains
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.toolchains.packages import requirement_for

    if python is not None and len(add) != 1:
        raise UsageError("--python goes with exactly one --add X.Y.Z (the release that environment has)")
    if packages and not add:
        raise UsageError("--with goes with --add X.Y.Z (the toolchain to install into)")
    if packages and python is not None:
        raise UsageError(f"--with installs into a toolchain ttinspect manages; {python}'s environment is yours: "
                         f"`{python} -m pip install ...`")
    requirements = [requirement_for(p) for p in packages]
    for version in remove:
        gone = toolchains.remove(version)
        click.echo(f"removed Triton {gone.version} ({'deleted' if gone.managed else 'forgotten'})", err=True)
    for version in add:
        toolchains.check_version(version)
        existing = toolchains.find(version)
        if python is None and existing is not None and existing.problem() is None:
            click.echo(f"Triton {version}: already prepared ({existing.python})", err=True)
            if requirements:
                _install(existing, requirements)
            continue
        if python is not None:
            done = toolchains.register(version, python)
        else:
            def log(command: str) -> None:
                click.echo(f"  {command}", err=True)

            click.echo(f"preparing Triton {version} ...", err=True)
            done = toolchains.prepare(version, log=log)
        click.echo(f"Triton {done.version}: {done.python}"
                   + (f" ({done.seconds:.0f} s)" if done.seconds is not None else ""), err=True)
        if requirements:
            _install(done, requirements)
    rows = toolchains.rows()
    if as_json:
        emit_json(rows)
        return
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.render.versions_table import toolchains_table

    toolchains_table(rows)


def _install(toolchain, requirements: list[str]) -> None:
    """`--with`: the packages into a prepared toolchain, the installer's commands shown as they run."""
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.toolchains.packages import install

    def log(command: str) -> None:
        click.echo(f"  {command}", err=True)

    click.echo(f"installing {' '.join(requirements)} into the Triton {toolchain.version} toolchain ...", err=True)
    done = install(toolchain, requirements, log=log)
    click.echo(f"Triton {done.version}: with {', '.join(done.packages)}", err=True)


@cli.command("versions", epilog=REF_HELP)
@click.argument("ref", metavar="REF")
@click.option("--triton", "tritons", default=None, metavar="X.Y.Z,...", type=VALUE,
              help="The releases (default: the installed one and every prepared toolchain).")
@ref_options
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def versions_command(ref: str, tritons: str | None, arch: str | None, settings: tuple[str, ...],
                     args: tuple[str, ...], signature: str | None, config: str | None, as_json: bool) -> None:
    """One row per Triton release: REF's pipeline depth, tensor-core path, async copies / TMA, shared
    memory, registers, spills and occupancy; a cell that changed from the release above is marked."""
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.toolchains.registry import check_version
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.versions.rows import default_versions, version_rows

    if "@triton=" in ref:
        raise UsageError("versions: give REF without @triton= (--triton names the releases)")
    if ref.startswith("cache:"):
        raise UsageError("versions: a Triton cache entry is already compiled by one release; name the kernel by "
                         "its source (a variant, FILE.py:NAME)")
    versions = [check_version(v.strip()) for v in tritons.split(",")] if tritons else default_versions()
    if not versions:
        raise UsageError("no Triton release to compare: `ttinspect toolchains --add X.Y.Z`")
    rows = version_rows(ref, versions, options_from(arch, settings, args, signature, config))
    if as_json:
        emit_json([row.as_dict() for row in rows])
        if any(row.error for row in rows):
            raise SystemExit(1)
        return
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.render.versions_table import versions_table

    versions_table(ref, arch or "default target", rows)
    if any(row.error for row in rows):  # the table says which and why; a script sees it in the exit code
        raise SystemExit(1)
