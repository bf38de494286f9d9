"""`ttinspect translate REF --arch ARCH [-o FILE.py]`: Triton's own Triton→Gluon translator run on a kernel."""

from __future__ import annotations

from pathlib import Path

import click

from ttinspect.cli.app import cli

TRANSLATE_HELP = """\b
Examples:
  ttinspect translate mm.py:matmul_kernel --arch sm_100 -o mm_gluon.py
  ttinspect translate mm.py:matmul_kernel --arch sm_90
  ttinspect report mm_gluon.py:matmul_kernel --arch sm_100 --signature "*fp16:16, *fp16:16, *fp16:16, i32:16"

\b
Exit status:
  0    the Gluon source was written (or printed)
  2    the release has no translator, the target is not one of its, it could not translate, or -o exists"""


@cli.command("translate", epilog=TRANSLATE_HELP)
@click.argument("ref", metavar="REF")
@click.option("--arch", required=True, metavar="ARCH",
              help="The target the Gluon kernel is written for (its layouts are chosen for it): sm_90, sm_100, ...")
@click.option("-o", "--output", "output", metavar="FILE.py", help="Write the Gluon source here (default: stdout).")
@click.option("--force", is_flag=True, help="Replace FILE.py if it exists.")
def translate_command(ref: str, arch: str, output: str | None, force: bool) -> None:
    """The Gluon source of a @triton.jit kernel, written by the Triton→Gluon translator the installed Triton
    ships (Triton 3.6 and later): the same kernel with its layouts explicit, which inspects like a
    hand-written Gluon kernel (report, dump --stage glir, check, diff against the original)."""
    from ttinspect.compile.gluon_translate import translate_to_gluon  # imports triton: only when it runs
    from ttinspect.files.outputs import check_output, write_atomically  # as above
    from ttinspect.refs.resolver import kernel_object  # as above
    from ttinspect.engine.builds import resolve_target  # as above
    from ttinspect.files.terminal_text import shown, shown_block  # as above

    out = check_output(output, force=force, option="-o") if output else None
    target = resolve_target(arch)
    obj, name = kernel_object(ref, target.name)
    # what the source imports resolves from its folder (printed: the current one, where it would be saved)
    text = translate_to_gluon(obj, name, target, Path(out).parent if out is not None else Path.cwd())
    if out is None:
        click.echo(shown_block(text), nl=not text.endswith("\n"))  # code from the user's file: quoted controls
        return
    write_atomically(out, text, force=force)
    click.echo(shown(f"ttinspect: wrote {output}: {name} in Gluon for {target.name} "
                     f"(inspect it: ttinspect report {output}:{name} --arch {target.name} --signature ...)"), err=True)
