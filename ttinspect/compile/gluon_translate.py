"""Triton's own Triton→Gluon translator, where the release ships it: the Gluon source of a @triton.jit kernel,
with the layouts the translator chose written out, which then inspects like a hand-written Gluon kernel.

Triton 3.9 has `triton.tools.triton_to_gluon_translator` (`convert_triton_to_gluon(kernels, target)`, one
target per NVIDIA generation or AMD chip); 3.6 has it as `triton_to_gluon_translater`, without a target,
and what it writes is Blackwell code (its tl.dot becomes tcgen05); earlier releases have none. Those
differences live here, with the rest of compile/.

The translator names the kernel's own module as Python knows it (`autotune(configs=mod.CONFIGS)`); a user's
file is loaded under a private name, which the written file could never import: that module is imported
instead by the name that finds it from the output's folder, or by its path from there (`keepable`).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import triton

from ttinspect.compile.jit import is_gluon, unwrap
from ttinspect.errors import UsageError
from ttinspect.targets.nvidia import Target


def translate_to_gluon(obj: Any, name: str, target: Target, folder: Path) -> str:
    """The Gluon source of kernel `obj` for `target` (its autotune and heuristics wrappers are not translated:
    the translator takes the @triton.jit function), to be kept in `folder`: what it imports resolves there."""
    fn = unwrap(obj)[0]
    if is_gluon(fn):
        raise UsageError(f"{name} is already a Gluon kernel: translate takes a @triton.jit kernel")
    convert, translator_target = _translator(target)
    try:
        text = convert([fn], translator_target) if translator_target is not None else convert([fn])
    except Exception as error:  # the translator raises whatever its AST walk meets (NotImplementedError, ...)
        lines = str(error).strip().splitlines()
        raise UsageError(f"Triton {triton.__version__}'s Triton→Gluon translator could not translate {name}: "
                         f"{type(error).__name__}: {lines[0] if lines else ''}") from error
    return keepable(text, fn.__module__, folder)


def keepable(text: str, module_name: str, folder: Path) -> str:
    """`text` with its imports of module `module_name` made to work from `folder`: unchanged where Python finds
    the module by that name (a package's module, a variant); a file loaded under a private name is imported by
    its own name when it lies in `folder`, else loaded by its path relative to the written file."""
    module = sys.modules.get(module_name)
    file = getattr(module, "__file__", None)
    if not file or not re.search(rf"^import {re.escape(module_name)}$", text, re.MULTILINE):
        return text
    path = Path(file).resolve()
    if module_name.rpartition(".")[2] in (path.stem, path.parent.name):
        return text  # the name Python finds it by (`pkg.mod` in .../pkg/mod.py)
    used = set(re.findall(r"\b\w+\b", text))
    alias = path.stem if path.stem.isidentifier() and path.stem not in used else "original_module"
    if path.parent == folder.resolve() and alias == path.stem:
        block = f"import {alias}  # the file the kernel was translated from, beside this one"
    else:
        try:
            where = os.path.relpath(path, folder.resolve())
        except ValueError:  # another drive: only the absolute path reaches it
            where = str(path)
        block = "\n".join([
            "import importlib.util",
            "import pathlib",
            f"# {path.name}, the file the kernel was translated from (its configs, heuristics), by its path from here",
            f"_spec = importlib.util.spec_from_file_location({path.stem!r}, "
            f"pathlib.Path(__file__).resolve().parent / {Path(where).as_posix()!r})",
            f"{alias} = importlib.util.module_from_spec(_spec)",
            f"_spec.loader.exec_module({alias})"])
    text = re.sub(rf"^import {re.escape(module_name)}$", lambda _: block, text, count=1, flags=re.MULTILINE)
    return re.sub(rf"\b{re.escape(module_name)}\b", alias, text)


def _translator(target: Target) -> tuple[Any, Any]:
    try:
        from triton.tools.triton_to_gluon_translator.target import TranslatorTarget
        from triton.tools.triton_to_gluon_translator.translator import convert_triton_to_gluon
    except ImportError:
        pass
    else:
        wanted = target.name if target.backend == "hip" else f"sm{target.capability}"
        known = [t.value for t in TranslatorTarget if t.value != "generic"]
        if wanted not in known:
            raise UsageError(f"Triton {triton.__version__}'s Triton→Gluon translator targets {', '.join(known)}; "
                             f"{target.name} is not one of them")
        return convert_triton_to_gluon, TranslatorTarget(wanted)
    try:  # 3.6: one translation for every target (NVIDIA's layouts)
        from triton.tools.triton_to_gluon_translater.translator import convert_triton_to_gluon as convert
    except ImportError:
        raise UsageError(f"Triton {triton.__version__} ships no Triton→Gluon translator (Triton 3.6 and later do: "
                         "run translate where one is installed)") from None
    if target.backend == "hip" or target.capability < 100:
        # its tl.dot becomes tcgen05 wherever the shapes allow, which only Blackwell's LLVM backend can lower
        # (for sm_90 LLVM aborts the process: "Cannot select: intrinsic %llvm.nvvm.tcgen05.wait.st")
        raise UsageError(f"Triton {triton.__version__}'s Triton→Gluon translator writes Blackwell kernels "
                         f"(tcgen05): give --arch sm_100 or later, not {target.name}; Triton 3.9's translates for "
                         "sm_80, sm_90, sm_100 and AMD targets")
    return convert, None
