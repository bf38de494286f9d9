"""Opcode families: what `by_line` counts an instruction as, per dialect. PTX (and the PTX inside LLVM IR's
inline asm) by `ptx_family`, LLVM IR by its opcode, inline-asm family or intrinsic (`llir_family`), SASS
by its opcode, AMDGCN by its mnemonic, MLIR by the op name.
"""

from __future__ import annotations

import re
from typing import Sequence

from ttinspect.dialects.llir import ASM_RE

PTX_SPACES = frozenset({"global", "shared", "local", "param", "const", "tex", "surf"})
# opcodes whose first modifier names a different instruction: wgmma.fence vs wgmma.mma_async
PTX_GROUPED = frozenset({"wgmma", "tcgen05", "mbarrier", "fence", "bar", "barrier", "elect",
                         "griddepcontrol", "cp", "membar", "redux", "vote", "match", "activemask",
                         "setmaxnreg", "clusterlaunchcontrol"})
PTX_CP_TAILS = frozenset({"commit_group", "wait_group", "wait_all", "bulk", "tensor", "mbarrier"})
# LLVM intrinsic name parts where the family stops: llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3
INTRINSIC_STOP_RE = re.compile(r"^(?:sync|aligned|shared\w*|global\w*|[a-z]{1,2}\d[\w]*|v\d+\w*)$")
# %5 = call float @llvm.nvvm.fmax.f(float %3, float %4)
INTRINSIC_CALL_RE = re.compile(r"@(llvm\.[\w.]+)\s*\(")
# st.global.v4.b32     (an opcode with its modifiers, as inline asm writes it)
PTX_OPCODE_RE = re.compile(r"^[a-z][\w.:]*$")


def ptx_family(opcode: str, modifiers: Sequence[str] = ()) -> str:
    """`mma`, `ldmatrix`, `cp.async`, `cp.async.wait_group`, `wgmma.mma_async`, `ld.global`,
    `st.shared`, `bar.sync`, `mov`, ... from a PTX opcode and its modifiers."""
    if opcode == "cp" and modifiers:
        parts = [opcode]
        for m in modifiers:
            if m in ("async", "reduce") or m in PTX_CP_TAILS:
                parts.append(m)
            else:
                break
        return ".".join(parts)
    if opcode in PTX_GROUPED and modifiers:
        return f"{opcode}.{modifiers[0]}"
    if opcode in ("ld", "st", "atom", "red", "ldu", "prefetch", "cvta", "isspacep"):
        for m in modifiers:
            space = m.split("::", 1)[0]
            if space in PTX_SPACES:
                return f"{opcode}.{space}"
    return opcode


def ptx_text_family(text: str) -> str | None:
    """The family of one PTX instruction written as text (`@$5 st.global.v4.b32 [...]`), or None."""
    s = text.strip()
    if s.startswith("@"):
        s = s.split(None, 1)[1] if " " in s else ""
    if not s or s[0] in "{}.$/" or s.endswith(":"):
        return None
    token = s.split(None, 1)[0].rstrip(";")
    if not PTX_OPCODE_RE.match(token):
        return None
    parts = token.split(".")
    return ptx_family(parts[0], parts[1:])


def llir_family(opcode: str, text: str) -> str:
    """The opcode; `asm <ptx family>` for inline asm; the intrinsic up to its type suffixes
    (`llvm.nvvm.ldmatrix`); `call` for any other call."""
    if opcode not in ("call", "invoke", "callbr"):
        return opcode
    if " asm " in text or "asm sideeffect" in text:
        m = ASM_RE.search(text)
        if m is None:
            return "asm"
        body = m[1].replace("\\0A", "\n").replace("\\09", "\t")
        found = [f for f in (ptx_text_family(p) for p in re.split(r"[;\n]", body)) if f]
        main = next((f for f in found if f not in ("mov", "setp", "selp")), found[0] if found else None)
        return f"asm {main}" if main else "asm"
    m = INTRINSIC_CALL_RE.search(text)
    if m:
        parts = m[1].split(".")
        keep = parts[:2]
        for part in parts[2:]:
            if INTRINSIC_STOP_RE.match(part):
                break
            keep.append(part)
        return ".".join(keep)
    return "call"
