"""A pygments lexer for AMDGCN assembly as LLVM's AMDGPU backend prints it (Triton's `kernel.amdgcn`).

Imported by render/lexers.py (which imports pygments) only: the CLI's plain path never loads it.
"""

from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups
from pygments.token import Comment, Keyword, Name, Number, Punctuation, String, Text, Whitespace

_STRING = r'"(?:[^"\\\n]|\\.)*"'


class AmdgcnLexer(RegexLexer):
    """`v_mfma_f32_32x32x8_f16 v[0:15], v[16:17], v[26:27], v[0:15]`, `s_waitcnt vmcnt(0)`, `.LBB0_3:`,
    `.loc 1 83 13 ; doc003.py:83:13`, the `; NumVgprs: 62` report and the `.amdgpu_metadata` YAML."""

    name = "AMDGCN"
    aliases = ["amdgcn"]
    filenames = ["*.amdgcn", "*.s"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r";[^\n]*", Comment.Single),
            # `.LBB0_33:` -- a branch target; `matmul_opt_kernel:` -- the function
            (r"\.L[\w$.]*:", Name.Label),
            (r"[A-Za-z_$][\w$.]*:(?=\s)", Name.Function),
            # `.loc 1 83 13`, `.amdhsa_next_free_vgpr 62`, `.set .Lk.num_vgpr, 62`
            (r"\.[\w.]+", Keyword.Pseudo, "directive"),
            # `  - .agpr_count:     0` inside the metadata: YAML keys start with a dot, handled above;
            # the `- ` list marks and `---` / `...` document marks
            (r"---|\.\.\.|-", Punctuation),
            # the opcode: scalar `s_`, vector `v_`, LDS `ds_`, memory `global_`/`buffer_`/`flat_`/`scratch_`
            (r"[a-z][a-z0-9_]*", Keyword, "operands"),
            (r"[A-Za-z_][\w.]*", Text),
            (r"\d+", Number.Integer),
            (r"[,:\[\]()]", Punctuation),
        ],
        "directive": [
            (r"\n", Whitespace, "#pop"),
            (r"[ \t]+", Whitespace),
            (r";[^\n]*", Comment.Single),
            (_STRING, String.Double),
            (r"@\w+", Name.Attribute),
            (r"0x[0-9a-fA-F]+|-?\d+", Number),
            (r"\.L[\w$.]*", Name.Label),
            (r"[\w.$]+", Name),
            (r"[-+,()*/:]", Punctuation),
        ],
        "operands": [
            (r"\n", Whitespace, "#pop"),
            (r"[ \t]+", Whitespace),
            (r";[^\n]*", Comment.Single),
            # registers: v12, s[4:5], a[0:15], v[0:15], vcc, exec, m0, scc, off
            (r"(?:[vsa]\[\d+:\d+\]|[vsa]\d+|vcc(?:_lo|_hi)?|exec(?:_lo|_hi)?|m0|scc|off|null)\b", Name.Variable),
            # counters and modifiers: vmcnt(0), lgkmcnt(3), offset:64, offset0:16, glc, sc0, nt
            (r"(vmcnt|lgkmcnt|expcnt|vscnt)(\()", bygroups(Name.Builtin, Punctuation)),
            (r"(\w+)(:)", bygroups(Name.Attribute, Punctuation)),
            (r"\.L[\w$.]*", Name.Label),
            (r"0x[0-9a-fA-F]+|-?\d+\.\d*(?:e[-+]?\d+)?|-?\d+", Number),
            (r"[A-Za-z_][\w.]*", Name.Builtin),
            (r"[,\[\]()|!+-]", Punctuation),
        ],
    }

    def analyse_text(text):
        return 0.5 if ".amdgcn_target" in text else 0.0
