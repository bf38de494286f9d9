"""Triton's own Triton→Gluon translator, where the release ships it: the Gluon source of a @triton.jit kernel,
with the layouts the translator chose written out, which then inspects like a hand-written Gluon kernel.

Triton 3.9 has `triton.tools.triton_to_gluon_translator` (`convert_triton_to_gluon(kernels, target)`, one
target per NVIDIA generation or AMD chip); 3.6 has it as `triton_to_gluon_translater`, without a target,
and what it writes is Blackwell code (its tl.dot becomes tcgen05); earlier releases have none. Those
differences live here, with the rest of compile/.
"""

from __future__ import annotations

from typing import Any

import triton

from ttinspect.compile.jit import is_gluon, unwrap
from ttinspect.errors import UsageError
from ttinspect.targets.nvidia import Target


def translate_to_gluon(obj: Any, name: str, target: Target) -> str:
    """The Gluon source of kernel `obj` for `target` (its autotune and heuristics wrappers are not translated:
    the translator takes the @triton.jit function)."""
    fn = unwrap(obj)[0]
    if is_gluon(fn):
        raise UsageError(f"{name} is already a Gluon kernel: translate takes a @triton.jit kernel")
    convert, translator_target = _translator(target)
    try:
        return convert([fn], translator_target) if translator_target is not None else convert([fn])
    except Exception as error:  # the translator raises whatever its AST walk meets (NotImplementedError, ...)
        lines = str(error).strip().splitlines()
        raise UsageError(f"Triton {triton.__version__}'s Triton→Gluon translator could not translate {name}: "
                         f"{type(error).__name__}: {lines[0] if lines else ''}") from error


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
