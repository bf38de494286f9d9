"""Split what MLIR's per-pass dumps printed into snapshots of the module, in order.

With MLIR_ENABLE_DUMP=1 Triton's pass managers print the module *before* each pass:

    // -----// IR Dump Before TritonGPUPipeline: tritongpu-pipeline{num-stages=4} ('builtin.module' operation) ...

(older MLIR: `IR Dump Before Name (argument) ('builtin.module' operation)`). A pass that runs on each
function prints the function alone (`('tt.func' operation: @name)`). Some passes print their own steps
*after* them (`// -----// SoftwarePipeliner internal IR Dump After: LowerLoops`), in a different form
(layouts inline, SSA values numbered). compile/pass_dumps.py adds two markers of its own: where each stage begins,
and the module each stage leaves (printed by no dump).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ttinspect.compile.markers import STAGE_BEGIN, STAGE_END


_HEADER = re.compile(r"^// -----// (.*?)(?: //----- //)?[ \t]*$", re.M)
# IR Dump Before TritonGPUPipeline: tritongpu-pipeline{num-stages=4} ('builtin.module' operation)
# IR Dump Before CanonicalizeLLVMIR: canonicalize-llvm-ir ('llvm.func' operation: @matmul_kernel)
_PASS = re.compile(r"^IR Dump (Before|After) (.+?) \('([^']+)' operation(?:: @(.+?))?\)$")
_NEW_STYLE = re.compile(r"^([^:\s]+): ([^\s{]+)(?:\{(.*)\})?$")
_OLD_STYLE = re.compile(r"^(\S+) \((\S+)\)$")
# SoftwarePipeliner internal IR Dump After: LowerLoops
_INTERNAL = re.compile(r"^(\w+) internal IR Dump (?:After|Before): (.+)$")
_MARKER = re.compile(rf"^({STAGE_BEGIN}|{STAGE_END}): (\w+)$")


@dataclass(frozen=True)
class Dump:
    kind: str  # "before": a pass is about to run; "step": a pass's own intermediate step; "final": a stage's result
    stage: str | None  # ttir / ttgir / llir; None when the dump carries no stage markers
    name: str  # the pass's C++ name ("TritonGPUPipeline"); a step: "SoftwarePipeliner: LowerLoops"
    argument: str  # the pass's command-line name ("tritongpu-pipeline")
    options: str  # "num-stages=4 dump-intermediate-steps=true", or ""
    scope: str  # "builtin.module", "tt.func", "llvm.func"
    symbol: str | None  # the function, for a function-scope dump
    text: str

    @property
    def whole_module(self) -> bool:
        return self.scope == "builtin.module"


def split_dump(text: str) -> list[Dump]:
    """Every dump, in order. Text before the first header (a Python warning) and headers of no known
    form are not snapshots: the latter stay part of the snapshot they interrupt."""
    out: list[Dump] = []
    stage: str | None = None
    # The header whose text runs up to the next header: a Dump's fields but its text.
    pending: tuple[str, str | None, str, str, str, str, str | None] | None = None
    start = 0
    for match in _HEADER.finditer(text):
        parsed = _parse_header(match[1])
        if parsed is None:
            continue
        if pending is not None:
            out.append(Dump(*pending, text[start:match.start()].strip("\n")))
        kind, name, argument, options, scope, symbol = parsed
        if kind == "begin":
            stage, pending = argument, None
        elif kind == "end":
            pending = ("final", argument, f"end of {argument}", argument, "", "builtin.module", None)
        elif kind == "after":  # a print-after dump (Triton asks for print-before): the snapshots suffice
            pending = None
        else:
            pending = (kind, stage, name, argument, options, scope, symbol)
        start = match.end() + 1
    if pending is not None:
        out.append(Dump(*pending, text[start:].strip("\n")))
    return out


def _parse_header(header: str) -> tuple[str, str, str, str, str, str | None] | None:
    """(kind, name, argument, options, scope, symbol); kind: begin / end (ttinspect's stage markers),
    before, after, step; None for a header of no known form."""
    m = _MARKER.match(header)
    if m:
        return ("begin" if m[1] == STAGE_BEGIN else "end"), "", m[2], "", "", None
    m = _PASS.match(header)
    if m:
        if m[1] == "After":
            return "after", "", "", "", m[3], m[4]
        new, old = _NEW_STYLE.match(m[2]), _OLD_STYLE.match(m[2])
        if new:
            name, argument, options = new[1], new[2], " ".join((new[3] or "").split())
        elif old:
            name, argument, options = old[1], old[2], ""
        else:
            name = argument = m[2]
            options = ""
        return "before", name, argument, options, m[3], m[4]
    m = _INTERNAL.match(header)
    if m:
        step = m[2].strip()
        return "step", f"{m[1]}: {step}", step, "", "builtin.module", None
    return None
