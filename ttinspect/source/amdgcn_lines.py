"""The AMDGCN assembly's line map (`dump --source`, `report --by-line`): LLVM's AsmPrinter writes a
`.loc FILE LINE COL` before the instructions it covers, with the inlining chain only in its comment:

	.file	2 "/venv/lib/python3.11/site-packages/triton/language" "standard.py"
	.loc	2 43 13                         ; standard.py:43:13 @[ doc003.py:64:17 ]

The `.file` directive names directory and file apart (the PTX form names one path); the callers in the
comment are named by basename, as in Triton 3.6's PTX. Pure: text in, attributions out.
"""

from __future__ import annotations

import re

from ttinspect.source.attribution import LineAttribution, _Files, walk_marked

# 	.file	1 "/work/main/kernels" "doc003.py"       (also the one-path form: .file 1 "/k/doc003.py")
FILE_RE = re.compile(r'^\s*\.file\s+(\d+)\s+"((?:[^"\\]|\\.)*)"(?:\s+"((?:[^"\\]|\\.)*)")?', re.M)
# 	.loc	1 83 13 is_stmt 0               ; doc003.py:83:13
LOC_RE = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)")
# ; standard.py:43:13 @[ doc003.py:64:17 @[ k.py:9:4 ] ]
CALLER_RE = re.compile(r"@\[\s*([^\s@\]]+?):(\d+):(\d+)")


def named_files(text: str) -> list[str]:
    out = []
    for _, first, second in FILE_RE.findall(text):
        out.append(f"{first}/{second}" if second else first)
    return list(dict.fromkeys(out))


def map_amdgcn(text: str, kernel_file: str) -> tuple[LineAttribution, ...]:
    from ttinspect.dialects.amdgcn import parse_amdgcn

    table = {int(n): (f"{a}/{b}" if b else a) for n, a, b in FILE_RE.findall(text)}

    def chain(raw: str) -> list | None:
        m = LOC_RE.match(raw)
        if m is None:
            return None
        found = [(table.get(int(m[1]), ""), int(m[2]), int(m[3]))]
        comment = raw.find(";")
        if comment >= 0:
            found.extend((f, int(ln), int(c)) for f, ln, c in CALLER_RE.findall(raw[comment:]))
        return found

    return walk_marked(text, parse_amdgcn(text), _Files(kernel_file, table.values()), chain)

def count_amdgcn(text: str, loop_only: bool) -> list[tuple[int, str]] | None:
    """(line, mnemonic) of each instruction (of the main loop with `loop_only`), as counting.py wants."""
    from ttinspect.dialects.amdgcn import parse_amdgcn
    from ttinspect.source.counting import _count_kernel

    return _count_kernel(parse_amdgcn(text), loop_only, lambda ins: ins.mnemonic)
