"""Pygments lexers for the stages pygments cannot read as shipped: Triton's MLIR (TTIR and TTGIR) and
SASS as nvdisasm / cuobjdump print it. PTX and LLVM IR use pygments' own lexers, patched below for the
constructs of recent PTX / LLVM that they reject (each such miss would print as an underlined red
Error token).

This module imports pygments at import time; only `highlight.py` imports it, and only when it colors,
so that the CLI's plain-text path never pays for pygments.

Token choices, shared by both lexers so that a theme reads the same on every stage:
  Keyword          op names (tt.load, scf.for) and SASS opcodes (HMMA.16816.F32)
  Keyword.Type     MLIR types (tensor<...>, !tt.ptr, f16, the 128x32x shape prefix)
  Keyword.Pseudo   SASS directives (.section, .headerflags)
  Name.Variable    SSA values (%12, %arg3) and SASS registers (R12, UR4, P3)
  Name.Attribute   MLIR attribute names (tt.divisibility =) and SASS operand suffixes (.reuse)
  Name.Builtin     MLIR dialect attributes (#ttg.blocked) and SASS special registers (SR_TID.X)
  Name.Constant    MLIR attribute aliases (#blocked1) and SASS constant banks (c[0x0][0x210])
  Name.Function    MLIR symbols (@matmul_kernel) and SASS function labels (matmul_kernel:)
  Name.Label       MLIR block labels (^bb0) and SASS labels (.L_x_12)
  Operator.Word    SASS predicate guards (@P0, @!PT): whether the instruction runs at all
  Comment          MLIR locations loc(...) and #locN = loc(...) lines: noise for a reader of the IR
  Comment.Preproc  SASS `//## File "...", line N` marks: the source line of what follows
  Comment.Special  SASS instruction addresses /*0080*/
"""

from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups, include, inherit, words
from pygments.lexers import LlvmLexer, PtxLexer
from pygments.token import (Comment, Keyword, Name, Number, Operator, Punctuation, String, Text,
                            Whitespace)

from ttinspect.render.lexer_amdgcn import AmdgcnLexer

__all__ = ["TritonMLIRLexer", "SassLexer", "TritonPtxLexer", "TritonLlvmLexer", "AmdgcnLexer"]


def _pop_silently(lexer, match):
    """Callback for a zero-width rule that only changes state: yields no (empty) token."""
    return iter(())


# An MLIR bare identifier, after its sigil: %acc_34, %c-1_i32 (Triton names constants with a minus),
# @matmul_kernel, ^bb0, #blocked1.
_SUFFIX_ID = r"[\w$.-]+"
# A quoted MLIR string with escapes: "mov.b32 $0, $1;", "/tmp/k.py".
_STRING = r'"(?:[^"\\\n]|\\.)*"'


class TritonMLIRLexer(RegexLexer):
    """Triton's TTIR and TTGIR: MLIR in its pretty form, with Triton's dialects (tt, ttg, ttng, ...)."""

    name = "Triton MLIR"
    aliases = ["ttir", "ttgir", "triton-mlir"]
    filenames = ["*.ttir", "*.ttgir"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            # // comment (mlir-opt output, hand-written tests)
            (r"//[^\n]*", Comment.Single),
            # The location table: `#loc12 = loc("/tmp/k.py":5:24)` -- all of it is location noise.
            (r"#loc\d*\s*=\s*(?=loc\()", Comment),
            # A trailing location: `... : i32 loc(#loc3)`, `loc(callsite(#loc1 at #loc35))`.
            (r"\bloc\(", Comment, "loc"),
            # A dialect attribute: `#ttg.blocked<{...}>`, `#ttng.tensor_memory`, `#ttg.slice<{dim = 1, ...}>`.
            (r"#[A-Za-z_]\w*\.[\w.$]+", Name.Builtin),
            # An attribute alias, where defined (`#blocked = ...`) and used (`tensor<128xi32, #blocked>`).
            (r"#" + _SUFFIX_ID, Name.Constant),
            # An SSA value, with an optional result number: %12, %arg3, %acc_99#10, %c-1_i32.
            (r"%" + _SUFFIX_ID + r"(?:#\d+)?", Name.Variable),
            # A symbol: `tt.func public @matmul_kernel(`, `tt.call @"weird name"(`.
            (r"@(?:" + _SUFFIX_ID + "|" + _STRING + ")", Name.Function),
            # A block label: `^bb0(%x_18: f32 ...):`.
            (r"\^" + _SUFFIX_ID, Name.Label),
            # A dialect type: `!tt.ptr<f16>`, `!ttg.memdesc<3x128x32xf16, ...>`, `!tt.tensordesc<...>`.
            (r"![A-Za-z_][\w.$]*", Keyword.Type),
            # An op in generic form: `%x_11 = "tt.reduce"(%x_10) <{axis = 0 : i32}> ({`.
            (r'"[A-Za-z_]\w*(?:\.\w+)+"(?=\()', Keyword),
            # A quoted attribute name: `module attributes {"ttg.num-warps" = 4 : i32, ...}`.
            (_STRING + r"(?=\s*=(?!=))", Name.Attribute),
            (_STRING, String.Double),
            # An attribute name: `{tt.divisibility = 16 : i32}`, `<{sizePerThread = [1, 8], ...}>`.
            (r"[A-Za-z_][\w$.]*(?=\s*=(?!=))", Name.Attribute),
            # An op name: `arith.addi`, `tt.reduce.return`, `ttng.tc_gen5_mma`.
            (r"[A-Za-z_]\w*(?:\.[\w$]+)+", Keyword),
            include("types"),
            # Words that structure ops: `scf.for %k = %c0 to %1 step %c1 iter_args(...)`,
            # `module attributes {...}`, `ttg.async_copy_global_to_local %p, %d mask %m other %o`.
            (words(("module", "attributes", "to", "step", "iter_args", "dense", "public", "private",
                    "nested", "tokens", "mask", "other", "deps", "default", "mutable", "unit"),
                   suffix=r"\b"), Keyword),
            (words(("true", "false"), suffix=r"\b"), Keyword.Constant),
            include("numbers"),
            # Any other bare word: `arith.cmpi slt, ...`, `tt.get_program_id x`, `{is_async}`.
            (r"[A-Za-z_][\w$]*", Name),
            # `->` between function types: `tt.splat %a : i32 -> tensor<128xi32>`.
            (r"->", Punctuation),
            # `<{axis = 0 : i32}> ({`, `%a[%c0_i32]`, `!ttg.memdesc<128x64xf16> * !ttg.memdesc<...>`
            (r"[{}()\[\]<>,:=*?|+-]", Punctuation),
        ],
        "types": [
            # The shape prefix of a shaped type: the `128x32x` of `tensor<128x32xf16>`, `3x128x32x` of a
            # memdesc, `?x` of a dynamic one. After hex (0x7F800000), which it would otherwise eat.
            (r"0x[0-9a-fA-F]+\b", Number.Hex),
            (r"(?:\d+|\?)(?:x(?:\d+|\?))*x(?=[A-Za-z!])", Keyword.Type),
            # Builtin types: i32, i1, ui8, f16, bf16, tf32, f8E4M3FN, f8E5M2FNUZ, index, tensor, none.
            (r"(?:[su]?i\d+|f\d+(?:E\d+M\d+\w*)?|bf16|tf32|index|none|tensor|memref|vector|tuple|"
             r"complex|array)\b", Keyword.Type),
        ],
        "numbers": [
            # 0.000000e+00, 5.000000e-01, 1.0, -2.5
            (r"-?\d+\.\d*(?:[eE][-+]?\d+)?", Number.Float),
            # 16, -1, 0 (hex was taken in "types")
            (r"-?\d+", Number.Integer),
        ],
        "loc": [
            # Inside loc(...): strings whole (a path may hold parentheses), nested parentheses counted.
            (r"\(", Comment, "#push"),
            (r"\)", Comment, "#pop"),
            (_STRING, Comment),
            # `#loc3 at #loc28`, `"/tmp/k.py":5:24`, `unknown`, `fused[#loc1, #loc2]`
            (r'[^()"\n]+', Comment),
            # A loc(...) never spans lines; if one were left open, end it at the line's end rather
            # than swallow the rest of the module.
            (r"(?=\n)", _pop_silently, "#pop"),
            (r'"', Comment),  # an unterminated string: keep it a comment, let the newline end the loc
        ],
    }

    def analyse_text(text):
        return 0.5 if ("tt.func" in text and "loc(" in text) else 0.0


# A SASS register, general (R12, RZ), uniform (UR4, URZ), predicate (P3, PT, UP0, UPT), barrier (B1),
# scoreboard (SB0), with the special zero/true registers and the predicate-register file PR.
_REGISTER = r"(?:U?R\d+|U?RZ|U?P\d+|U?PT|SRZ|PR|B\d+|SB\d+)"


class SassLexer(RegexLexer):
    """SASS as `nvdisasm -c -g` and `cuobjdump -sass` print it."""

    name = "SASS"
    aliases = ["sass"]
    filenames = ["*.sass"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            # `        /*0080*/                   CS2R R40, SRZ ;` -- the address starts an instruction.
            (r"/\*[0-9a-fA-F]{4,}\*/", Comment.Special, "insn"),
            # `//## File "/tmp/k.py", line 5` (and `... inlined at "...", line N` with nvdisasm -gi)
            (r"//##[^\n]*", Comment.Preproc),
            # `//--------------------- .text.matmul_kernel       --------------------------`
            (r"//[^\n]*", Comment.Single),
            # cuobjdump's encoding column: `/* 0x000fe20000000800 */`
            (r"/\*.*?\*/", Comment.Multiline),
            # cuobjdump's header: `code for sm_90a`, `Function : matmul_kernel`, `..........`.
            (r"(code for)(\s+)(sm_\w+)", bygroups(Keyword.Pseudo, Whitespace, Name.Builtin)),
            (r"(Function)(\s*)(:)(\s*)(\S+)",
             bygroups(Keyword.Pseudo, Whitespace, Punctuation, Whitespace, Name.Function)),
            (r"\.{3,}", Punctuation),
            # `.L_x_12:` -- a branch target.
            (r"\.L\w*:", Name.Label),
            # `.text.matmul_kernel:` -- a section's start.
            (r"\.[\w.$]*:", Name.Label),
            # `matmul_kernel:`, `$__internal_0_$__cuda_sm10x_tcgen05_guardrail_trap_..._alloc:`
            (r"[\w$][\w.$]*:", Name.Function),
            # `.section	.text.matmul_kernel,"ax",@progbits`, `.align 128`, `.headerflags @"EF_..."`
            (r"\.\w+", Keyword.Pseudo, "directive"),
            # The closing brace of a dual-issue pair (cuobjdump, sm_5x): `S2R R0, SR_LANEID; }`.
            (r"[{}]", Punctuation),
            # Anything else cuobjdump may print around the code: `arch = sm_90a`, `code version = [1,8]`.
            (r"[A-Za-z_$][\w$.]*", Text),
            (r"\d+", Number.Integer),
            (r"[=,\[\]():]", Punctuation),
        ],
        "directive": [
            # The rest of a directive's line: `.size matmul_kernel,(.L_x_3 - matmul_kernel)`.
            (r"\n", Whitespace, "#pop"),
            (r"[ \t]+", Whitespace),
            (r"@" + _STRING, Name.Attribute),  # @"STO_CUDA_ENTRY STV_DEFAULT"
            (r"@\w+", Name.Attribute),  # @progbits, @function
            (_STRING, String.Double),  # "ax"
            (r"0x[0-9a-fA-F]+|\d+", Number),  # 0x4, 128
            (r"\.L\w*", Name.Label),  # .L_x_3
            (r"[\w.$]+", Name),  # .text.matmul_kernel, matmul_kernel, sm_90a, .nv.reservedSmem.cap
            (r"[-+,()]", Punctuation),
            (r"//[^\n]*", Comment.Single),
        ],
        "insn": [
            # After the address: the optional dual-issue brace and predicate guard, then the opcode.
            (r"[ \t]+", Whitespace),
            (r"\{", Punctuation),
            # `@P0`, `@!PT`, `@UP1`, `@!UP0`
            (r"@!?U?P(?:\d+|T)", Operator.Word),
            # `HMMA.16816.F32`, `LDGSTS.E.BYPASS.LTC128B.128`, `HGMMA.64x128x16.F32`, `LDTM.x32`, `NOP`
            (r"[A-Z][A-Z0-9_]*(?:\.\w+)*", Keyword, ("#pop", "operands")),
            # An address with nothing after it (a truncated listing): back to the top level.
            (r"(?=\n)", _pop_silently, "#pop"),
        ],
        "operands": [
            (r"[ \t]+", Whitespace),
            # `;` ends the instruction; the encoding comment or a dual-issue `}` may follow in root.
            (r";", Punctuation, "#pop"),
            (r"(?=\n)", _pop_silently, "#pop"),  # nvdisasm always ends with `;`; be lenient anyway
            # `c[0x0][0x210]`, `c[0x3][R2+0x10]` -- a constant bank, read as one operand.
            (r"c\[0x[0-9a-fA-F]+\]\[[^\]\n]*\]", Name.Constant),
            # `SR_TID.X`, `SR_CTAID.Y`, `SR_LANEID`, `SR_CgaCtaId` -- special registers.
            (r"SR_\w+(?:\.[XYZ])?", Name.Builtin),
            # `R4.reuse`, `R10.64`, `UR4`, `P3`, `!PT`, `-R10`, `R2.F16x2.HI_LO`, `[R2.X4]`
            (r"(" + _REGISTER + r")(\.\w+(?:\.\w+)*)?\b", bygroups(Name.Variable, Name.Attribute)),
            # Descriptor operands: `desc[UR4][R2.64]`, `gdesc[UR12].tnspB`, `tmem[UR5]`, `idesc[UR4]`.
            (r"[gi]?desc|tmem", Name.Builtin),
            (r"\.\w+", Name.Attribute),  # the `.tnspB` after `gdesc[UR12]`
            # `` `(.L_x_12) `` -- a branch target; `` `(matmul_kernel) ``, `` `($__internal_0_$...) `` -- a
            # function (CALL, RET).
            (r"(`\()(\.[\w.$]*)(\))", bygroups(Punctuation, Name.Label, Punctuation)),
            (r"(`\()([\w$][\w.$]*)(\))", bygroups(Punctuation, Name.Function, Punctuation)),
            # Immediates: 0x1f, -0x20, 1.4426950216293334961, 1e+30, +INF, -QNAN, 5
            (r"0x[0-9a-fA-F]+", Number.Hex),
            (r"\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+", Number.Float),
            (r"\d+", Number.Integer),
            (r"(?:INF|QNAN|NAN)\b", Number.Float),
            # Scoreboard names of HGMMA (`gsb0`) and other lower-case operand keywords.
            (r"[a-z_]\w*", Name.Builtin),
            # `DEPBAR {5,4,3,2,1,0}` takes a set; `|R2|` is an absolute value; `!P0`, `-R3`, `~R1`.
            (r"[\[\]{}(),+|!~-]", Punctuation),
            (r"[A-Z_]\w*", Name),  # an operand word not known above (new architectures add some)
        ],
    }

    def analyse_text(text):
        return 0.4 if "/*0000*/" in text else 0.0


class TritonPtxLexer(PtxLexer):
    """pygments' PtxLexer plus what Triton's PTX holds and it rejects: predicate guards
    (`@%p1 bra $L__BB0_2;`, `@!%p31 bra ...`), `::` qualifiers (`tcgen05.alloc.cta_group::1`,
    `mbarrier.try_wait.parity.shared::cta.b64`) and `elect.sync %r89|%p13, -1;`."""

    name = "PTX (Triton)"
    aliases: list[str] = []

    tokens = {
        "root": [
            # `@%p1 bra`, `@!%p31 bra`, `@!complete bra.uni` (a named predicate inside inline asm)
            (r"@!?%?[\w$]+", Operator.Word),
            # The parent would read `shared:` of `st.shared::cta.b32` as a label: take the words on
            # either side of `::` here. `tcgen05.wait::st`, `mbarrier.init.shared::cta`, `cta_group::1`
            (r"[A-Za-z_.$][\w.$]*(?=::)", Keyword),
            (r"::[\w$]+", Keyword),
            (r"\|", Operator),
            inherit,
        ],
        "whitespace": [
            # `// end inline asm` on the last line, without the newline the parent's rule requires.
            (r"//[^\n]*$", Comment.Single),
            inherit,
        ],
    }


class TritonLlvmLexer(LlvmLexer):
    """pygments' LlvmLexer plus the attribute words of newer LLVM it lacks: `captures(none)`,
    `memory(none)`, `range(i32 0, 1024)`, `nofree`, ..."""

    name = "LLVM (Triton)"
    aliases: list[str] = []

    tokens = {
        "root": [
            # `spFlags: DISPFlagDefinition | DISPFlagOptimized` in the debug metadata
            (r"\|", Operator),
            inherit,
            # After every rule of the parent: a bare word it does not know, e.g. `captures` in
            # `ptr addrspace(1) readnone captures(none) %9`.
            (r"[A-Za-z_][\w.$]*", Keyword),
        ],
    }
