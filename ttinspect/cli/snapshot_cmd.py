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
  ttinspect snapshot --check --update                  # accept every change, write the snapshot
  ttinspect snapshot --check --update 'mylib/ops/mm.py:big@*'   # accept these entries only

\b
Exit status: 0 no guarded regression; 1 a guarded regression, or a kernel that no longer compiles;
2 bad input (the configuration, a missing or damaged snapshot); 5 no entry to gate (no kernel file
declares TTINSPECT_EXAMPLES: a gate that checks nothing is refused, as pytest's "no tests collected")."""



@cli.command("snapshot", epilog=SNAPSHOT_HELP)
@click.argument("files", nargs=-1, metavar="[FILE | ENTRY]...")
@click.option("--check", "check_mode", is_flag=True,
              help="Compare with the committed snapshot instead of writing it.")
@click.option("--update", is_flag=True,
              help="With --check: accept the changes (all, or the ENTRY keys given) and write the snapshot; exit 0 "
                   "unless a kernel no longer compiles.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="How --check reports.")
@click.option("-o", "--out", default=None, metavar="FILE", help="Write the --check report here instead of stdout.")
@click.option("--force", is_flag=True, help="Overwrite -o FILE if it exists.")
@click.option("--neutral", is_flag=True,
              help="Markdown: list the neutral changes (facts not guarded) in the tables too, not only in the details.")
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
                     neutral: bool, triton: str | None, kernels: tuple[str, ...], targets: str | None,
                     fail_on: str | None, snapshot_path: str | None, jobs: int | None, executor: str,
                     ray_address: str | None) -> None:
    """Every kernel × example × target of a library, its facts and findings, in one reviewable JSON file;
    --check is the CI gate: each change explained and classed improved / regressed / neutral (docs/ci.md).
    FILEs (a pre-commit hook passes those a commit touches): only their entries; others are left as they are.
    With --check --update, ENTRY keys (FILE:EXAMPLE@TARGET, globs allowed) accept only those entries."""
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.errors import TTInspectError, UsageError

    selectors = tuple(f for f in files if "@" in f)  # an entry key has an `@`; a file path given here has none
    files = tuple(f for f in files if "@" not in f)
    if update and not check_mode:
        raise UsageError("--update goes with --check (plain `ttinspect snapshot` always writes)")
    if selectors and not update:
        raise UsageError(f"{selectors[0][:60]!r} is an entry key (FILE:EXAMPLE@TARGET): entries are accepted with "
                         "--check --update ENTRY...; FILE arguments are kernel files")
    if not check_mode and (out or fmt != "text" or neutral):
        raise UsageError("--format, -o and --neutral are for --check's report")
    if check_mode:
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.ci.write import check_format_and_output

        check_format_and_output(fmt if fmt != "text" else "json", out, force)  # before anything compiles
    try:
        _snapshot(files, selectors, check_mode, update, fmt, out, force, neutral, triton, kernels, targets, fail_on,
                  snapshot_path, jobs, executor, ray_address)
    except TTInspectError as error:
        if check_mode and fmt in ("sarif", "markdown", "junit"):  # the CI step still gets a report naming why
            _stopped_report(error, fmt, out)
        raise


def _stopped_report(error, fmt: str, out: str | None) -> None:
    """A report of a run that stopped on bad input (exit 2): valid in its format, its one result the problem, at
    the file:line the message names (else pyproject.toml's), so a SARIF upload that follows does not fail too."""
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.ci.from_check import find_repo_root, relative_file, ttinspect_version
    from ttinspect.ci.model import ERROR, CIReport, Result, Rule
    from ttinspect.ci.write import emit

    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    path, line = _named_place(text)
    root = find_repo_root()
    file = relative_file(path, root) if path else None
    rule = Rule("ttinspect/stopped", "gate-stopped", "The gate stopped before checking: bad input",
                "Fix what the message names (the configuration, the snapshot), then run the gate again.")
    result = Result(rule.id, "error", ERROR, "snapshot --check", text, fix=rule.help, file=file, line=line)
    report = CIReport("snapshot --check", (), (result,) if file else (), (rule,) if file else (),
                      ttinspect_version=ttinspect_version(), stopped=text)
    try:
        emit(report, fmt, out, True, repo_root=root)
    except Exception:  # the report is a courtesy: the error itself is what the run says, exit 2
        pass


def _named_place(text: str) -> tuple[str | None, int | None]:
    """The `FILE:LINE` (or `FILE`) a one-line error starts with, when it is a file here; else pyproject.toml's
    place above the working directory, else nothing."""
    import os

    head = text.split(": ", 1)[0]
    path, _, line = head.rpartition(":")
    if line.isdigit() and os.path.isfile(path):
        return path, int(line)
    if os.path.isfile(head):
        return head, None
    folder = os.getcwd()
    while True:
        if os.path.isfile(os.path.join(folder, "pyproject.toml")):
            return os.path.join(folder, "pyproject.toml"), None
        parent = os.path.dirname(folder)
        if parent == folder:
            return None, None
        folder = parent


def _snapshot(files, selectors, check_mode, update, fmt, out, force, neutral, triton, kernels, targets, fail_on,
              snapshot_path, jobs, executor, ray_address) -> None:
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.errors import UsageError
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.snapshot import config as snapshot_config
    from ttinspect.snapshot import run  # loaded when the command runs: every command module is imported at start-up
    from ttinspect.snapshot import store  # loaded when the command runs: every command module is imported at start-up

    if triton:
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.toolchains.registry import check_format

        check_format(triton)
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.sweep.executors import check_executor

    check_executor(executor, ray_address)
    names = tuple(t.strip() for t in targets.split(",") if t.strip()) if targets else ()
    from pathlib import Path

    bad = next((f for f in files + selectors if not f.strip() or any(ord(c) < 32 or ord(c) == 127 for c in f)),
               None)
    if bad is not None:
        raise UsageError(f"FILE {bad[:60]!r}: empty, or has control characters in it")
    # a hook runs from the repository's root: the library's pyproject.toml is found from the files it passes
    start = Path(files[0]).resolve().parent if files else None
    config = snapshot_config.load(start, kernels=kernels, targets=names, fail_on=fail_on, snapshot=snapshot_path)
    committed: dict | None
    if check_mode:
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
    report = run.check(config, run.only_files(run.of_release(committed, release), only), computed,
                       upgrade=bool(triton))
    if update:  # accepted: what compiled is written (what failed kept as committed), and the report says so
        from ttinspect.snapshot.accept import accepted, selected_keys  # only when accepting
        from ttinspect.snapshot.strictness import RELEASE_KEY  # only when accepting

        chosen = selected_keys(report, selectors)
        count = _write(config, computed, release, only, chosen)
        report = accepted(report, chosen)
        keys = sorted(k for k in chosen if k in {e.key for e in report.entries if e.status not in ("ok", "failed")})
        keys += [e.kernel for e in report.entries if e.key == RELEASE_KEY and not e.failed]  # "Triton 3.8.0 → 3.9.0"
        click.echo(shown(f"updated {config.snapshot}: accepted {len(keys)} change{'s' * (len(keys) != 1)}"
                         f"{': ' + ', '.join(keys[:20]) if keys else ''}{' …' if len(keys) > 20 else ''}; it holds "
                         f"{_entries(count)}"), err=True)
    if fmt == "text":
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.ci.snapshot_text import snapshot_text

        snapshot_text(report, computed.seconds)
    else:
        from dataclasses import replace

        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.ci.from_check import find_repo_root
        # loaded when the command runs: every command module is imported at start-up
        from ttinspect.ci.write import emit

        repo_root = find_repo_root(config.root)
        if fmt == "sarif":  # code scanning: what fails or warns, each kernel file named from the repository root
            report = run.for_code_scanning(report, config.root, config.kernels_at)
        else:
            report = replace(run.repository_relative(report, config.root, repo_root), all_rows=neutral)
        emit(report, fmt, out, force, repo_root=repo_root)
    if report.failed:
        raise click.exceptions.Exit(1)


def _write(config, computed, release: str | None, only: set[str] | None, chosen: set[str] | None = None) -> int:
    """This run's entries merged into the snapshot as it is when written (read again under its lock: a run
    that wrote meanwhile keeps its entries); the number of entries the file now holds."""
    # loaded when the command runs: every command module is imported at start-up
    from ttinspect.snapshot import run, store

    written = [0]

    def text_for(current: dict | None) -> str:
        entries = run.merged(computed, current, release, only)
        if chosen is not None:  # `--update ENTRY...`: only those entries take what compiled now
            entries = run.only_chosen(entries, current, chosen, release)
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
