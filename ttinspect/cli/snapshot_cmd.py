"""`ttinspect snapshot`: a library's kernels' facts in one committed file, and the CI gate that compares
with it (logic in ttinspect/snapshot/)."""

from __future__ import annotations

import sys

import click

from ttinspect.ci.model import FORMATS
from ttinspect.cli.app import cli
from ttinspect.cli.common import VALUE
from ttinspect.files.terminal_text import shown

SNAPSHOT_HELP = """
\b
Examples:
  ttinspect snapshot                                   # writes ttinspect.snapshot.json ([tool.ttinspect])
  ttinspect snapshot --check                           # CI: exit 1 on a guarded regression
  ttinspect snapshot --check --format sarif -o ttinspect.sarif
  ttinspect snapshot --check --format markdown >> $GITHUB_STEP_SUMMARY
  ttinspect snapshot --check --triton 3.9.0            # what the next Triton would change
  ttinspect snapshot --check --update                  # accept the changes (the verdict on them stands)

\b
Exit status: 0 no guarded regression; 1 a guarded regression, or a kernel that no longer compiles;
2 bad input (the configuration, a missing or damaged snapshot); 5 no entry to gate (no kernel file
declares TTINSPECT_EXAMPLES: a gate that checks nothing is refused, as pytest's "no tests collected")."""



@cli.command("snapshot", epilog=SNAPSHOT_HELP)
@click.argument("files", nargs=-1, metavar="[FILE]...")
@click.option("--check", "check_mode", is_flag=True,
              help="Compare with the committed snapshot instead of writing it.")
@click.option("--update", is_flag=True,
              help="With --check: write the snapshot afterwards, accepting the changes; the exit status is --check's.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="How --check reports.")
@click.option("-o", "--out", default=None, metavar="FILE", help="Write the --check report here instead of stdout.")
@click.option("--force", is_flag=True, help="Overwrite -o FILE if it exists.")
@click.option("--triton", default=None, metavar="X.Y.Z", type=VALUE,
              help="Compile with another Triton release (the upgrade gate; `ttinspect toolchains`).")
@click.option("--kernels", multiple=True, metavar="GLOB", type=VALUE,
              help="Kernel files (repeatable), instead of [tool.ttinspect] kernels.")
@click.option("--arch", "targets", default=None, metavar="A,B", type=VALUE,
              help="Targets, comma-separated, instead of [tool.ttinspect] targets.")
@click.option("--fail-on", type=click.Choice(["info", "warning", "error"]), default=None,
              help="New findings at or above this fail the gate (default: [tool.ttinspect] fail-on, else error).")
@click.option("--snapshot", "snapshot_path", default=None, metavar="FILE", type=VALUE,
              help="The snapshot file (default: [tool.ttinspect] snapshot, else ttinspect.snapshot.json).")
@click.option("-j", "--jobs", type=click.IntRange(1, 1024), default=None, help="Parallel compiles (default: CPUs).")
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="local: a process pool here; ray: Ray tasks for a big matrix (as `ttinspect sweep`).")
@click.option("--ray-address", default=None, metavar="ADDR", type=VALUE,
              help="An existing Ray cluster (ray://host:10001, host:6379, auto); default: $RAY_ADDRESS, else local.")
def snapshot_command(files: tuple[str, ...], check_mode: bool, update: bool, fmt: str, out: str | None, force: bool,
                     triton: str | None, kernels: tuple[str, ...], targets: str | None, fail_on: str | None,
                     snapshot_path: str | None, jobs: int | None, executor: str, ray_address: str | None) -> None:
    """Every kernel × example × target of a library, its facts and findings, in one reviewable JSON file;
    --check is the CI gate: each change explained and classed improved / regressed / neutral (docs/ci.md).
    FILEs (a pre-commit hook passes those a commit touches): only their entries; others are left as they are."""
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.errors import UsageError
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.snapshot import config as snapshot_config
    from ttinspect.snapshot import run  # loaded when the command runs: every command module is imported at start-up
    from ttinspect.snapshot import store  # loaded when the command runs: every command module is imported at start-up

    if update and not check_mode:
        raise UsageError("--update goes with --check (plain `ttinspect snapshot` always writes)")
    if not check_mode and (out or fmt != "text"):
        raise UsageError("--format and -o are for --check's report")
    if triton:
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.toolchains.registry import check_format

        check_format(triton)
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.sweep.executors import check_executor

    check_executor(executor, ray_address)
    names = tuple(t.strip() for t in targets.split(",") if t.strip()) if targets else ()
    from pathlib import Path

    bad = next((f for f in files if not f.strip() or any(ord(c) < 32 or ord(c) == 127 for c in f)), None)
    if bad is not None:
        raise UsageError(f"FILE {bad[:60]!r}: empty, or has control characters in it")
    # a hook runs from the repository's root: the library's pyproject.toml is found from the files it passes
    start = Path(files[0]).resolve().parent if files else None
    config = snapshot_config.load(start, kernels=kernels, targets=names, fail_on=fail_on, snapshot=snapshot_path)
    committed: dict | None
    if check_mode:
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.ci.write import check_format_and_output

        check_format_and_output(fmt if fmt != "text" else "json", out, force)  # before anything compiles
        committed = store.load(config.snapshot)
    else:
        store.existing(config.snapshot)  # refuses what it may not replace before compiling; read again to write
    only = run.limited(config, files, bool(kernels))
    computed = run.compute(config, triton=triton, jobs=jobs, only=only, executor=executor, ray_address=ray_address,
                           announce=lambda line: click.echo(shown(f"ttinspect: {line}"), err=True))
    run.require_entries(config, computed, files, writing=not check_mode)
    if not check_mode:  # `--triton X` writes entries keyed by X, beside the snapshot's own
        _say_written(config, computed, _write(config, computed, triton, only))
        if computed.failed:
            raise click.exceptions.Exit(1)
        return
    assert committed is not None  # --check loaded it
    release = run.compared_release(committed, triton)
    report = run.check(config, run.only_files(run.of_release(committed, release), only), computed)
    if fmt == "text":
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.ci.snapshot_text import snapshot_text

        snapshot_text(report, computed.seconds)
    else:
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.ci.from_check import find_repo_root
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.ci.write import emit

        if fmt == "sarif":  # code scanning: what fails or warns, each kernel file named from the repository root
            report = run.for_code_scanning(report, config.root)
        emit(report, fmt, out, force, repo_root=find_repo_root(config.root))
    if update:  # what compiled is written, what failed kept as committed: the verdict stands either way
        count = _write(config, computed, release, only)
        click.echo(shown(f"updated {config.snapshot}: {_entries(count)}"), err=True)
    if report.failed:
        raise click.exceptions.Exit(1)


def _write(config, computed, release: str | None, only: set[str] | None) -> int:
    """This run's entries merged into the snapshot as it is when written (read again under its lock: a run
    that wrote meanwhile keeps its entries); the number of entries the file now holds."""
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.snapshot import run, store

    written = [0]

    def text_for(current: dict | None) -> str:
        entries = run.merged(computed, current, release, only)
        written[0] = len(entries)
        return store.dumps(entries, _own_version(current, release, computed), config.targets)

    store.write_merged(config.snapshot, text_for)
    return written[0]


def _own_version(committed, release: str | None, computed) -> str:
    """The snapshot's own Triton: what its unkeyed entries were made with (unchanged by a release's entries)."""
    if release and committed and committed.get("triton_version"):
        return str(committed["triton_version"])
    return computed.triton_version


def _entries(count: int) -> str:
    return f"{count} entr{'y' if count == 1 else 'ies'}"


def _say_written(config, computed, count: int) -> None:
    """What the file now holds (a failing entry is not written: its committed one is kept), then what failed.
    Names and errors come from the kernel files: quoted, never sent raw to the terminal."""
    failed = computed.failed
    kept = f"; {len(failed)} failed: not written, any committed entry of theirs kept" if failed else ""
    click.echo(shown(f"wrote {config.snapshot}: {_entries(count)} ({', '.join(config.targets)}; Triton "
                     f"{computed.triton_version}) in {computed.seconds:.1f} s{kept}"))
    for note in computed.notes:
        click.echo(shown(f"  note: {note}"))
    for key, error in failed.items():
        click.echo(shown(f"  failed: {key}: {error}"), err=True)
    sys.stdout.flush()


__all__ = ["snapshot_command"]
