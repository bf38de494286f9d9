"""Shell completion through click's own mechanism (`_TTINSPECT_COMPLETE=bash_source ttinspect`, see
docs/terminal.md): commands and options come from click; this module adds the values — kernel
references (shipped variants, then files and `FILE.py:` kernels), stages, targets. Nothing heavy is
imported: a completion runs on every Tab."""

from __future__ import annotations

import os

from click.shell_completion import CompletionItem

STAGES = ("ttir", "glir", "ttgir", "llir", "ptx", "sass")


def complete_ref(ctx, param, incomplete: str) -> list[CompletionItem]:
    if ":" in incomplete and incomplete.split(":", 1)[0].endswith(".py"):
        return _kernels_in_file(incomplete)
    if "/" in incomplete or incomplete.startswith(".") or incomplete.endswith(".py"):
        return [CompletionItem(incomplete, type="file")]
    # only on a Tab that completes a reference: kept off start-up
    from ttinspect.kernel.catalog import all_variants

    names = sorted({n for v in all_variants() for n in (v.name, *v.aliases)})
    items = [CompletionItem(n) for n in names if n.startswith(incomplete)]
    items += [CompletionItem(f) for f in sorted(os.listdir(".")) if f.endswith(".py") and f.startswith(incomplete)]
    return items


def _kernels_in_file(incomplete: str) -> list[CompletionItem]:
    """`my.py:` → the kernels the file defines (Triton's, Gluon's, Helion's: every kind a reference can name),
    read from its text (never imported: Tab must not run the user's code)."""
    import re

    path, prefix = incomplete.split(":", 1)
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError:
        return []
    decorator = r"^@(?:triton\.(?:jit|autotune|heuristics)|gluon\.jit|helion\.kernel)\b"
    names = re.findall(decorator + r"[\s\S]*?^def\s+(\w+)", text, flags=re.M)
    return [CompletionItem(f"{path}:{n}") for n in dict.fromkeys(names) if n.startswith(prefix)]


def complete_stage(ctx, param, incomplete: str) -> list[CompletionItem]:
    return [CompletionItem(s) for s in STAGES if s.startswith(incomplete)]


def complete_arch(ctx, param, incomplete: str) -> list[CompletionItem]:
    # only on a Tab that completes a target: kept off start-up
    from ttinspect.targets.lookup import all_names

    return [CompletionItem(t) for t in (*all_names(), "native") if t.startswith(incomplete)]


# the completers by parameter name, so every command that takes a REF or --arch gets them
_BY_NAME = {"ref": complete_ref, "refs": complete_ref, "a": complete_ref, "b": complete_ref,
            "variants": complete_ref, "variant": complete_ref, "stage": complete_stage, "arch": complete_arch}


def attach(command) -> None:
    """Attach the completers to one command's parameters (cli/main.py calls it as each command is loaded)."""
    for param in command.params:
        completer = _BY_NAME.get(param.name or "")
        if completer is not None:
            # click keeps a parameter's completer here; its constructor argument sets the same field
            param._custom_shell_complete = completer
