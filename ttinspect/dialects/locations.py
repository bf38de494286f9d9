"""The source-location syntax of every stage, in one place: how each dialect says which line of which file
an op or instruction comes from. Only `ttinspect.dialects` reads it; everything above asks a dialect
object (`stage_dialects`) for a line's location chain instead.

    ttir, ttgir  `op ... loc(#loc42)` with `#loc42 = loc(callsite(#loc7 at #loc30))` chains
    llir         `!dbg !N` -> `!DILocation(line:, column:, scope:, inlinedAt: !M)` chains, `!DIFile`
    ptx          `.loc FILE LINE COL` in effect (text order) and the `.file N "path"` table; Triton 3.9
                 adds `, inlined_at F L C`, 3.6 writes the chain only in LLVM's comment (`@[ k.py:9:4 ]`)
    sass         nvdisasm's `//## File "path", line N [inlined at "path", line M]` marks
    amdgcn       `.loc FILE LINE COL` with the chain in the comment; `.file N "dir" "name"`
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# --- MLIR (TTIR, TTGIR) ------------------------------------------------------------------------------

# ... loc(#loc118)     /   loc("a_ptr"(#loc))    (the last one on the line)
MLIR_TRAILING_LOC = " loc("
# "/work/main/kernels/doc003.py":84:15   (an MLIR file location)
MLIR_FILE_RE = re.compile(r'loc\("((?:[^"\\]|\\.)*)":\d+:\d+')
# #loc12 = loc("/tmp/k.py":5:24)     (a line of the location table)
MLIR_LOC_LINE_RE = re.compile(r"^\s*(//|#loc)")
# loc(#loc43)     (a location to the end of the line, as a piece of a larger pattern)
MLIR_LOC_TEXT = r"loc\(.*\)"
# tt.load %p : tensor<...> loc(#loc3)     (the location to the end of the line)
MLIR_TRAILING_LOC_RE = re.compile(r"\s*" + MLIR_LOC_TEXT + r"\s*$")
# loc(#loc3)   loc("a_ptr"(#loc))   loc(callsite(#loc3 at #loc33)): nested parentheses, three deep.
MLIR_LOC_RE = re.compile(r" loc\((?:[^()\n]|\((?:[^()\n]|\([^()\n]*\))*\))*\)")
# #loc3 = loc(callsite(#loc1 at #loc2))    (the whole line, as a multi-line pattern)
MLIR_LOC_ALIAS_RE = re.compile(r"^[ \t]*#loc.*\n?", re.M)


def without_mlir_location(body: str) -> str:
    """`%x = tt.load %p : tensor<...> loc(#loc3)` -> the op without its trailing location."""
    return body.split(MLIR_TRAILING_LOC)[0]


# --- LLVM IR ------------------------------------------------------------------------------------------

# !1 = !DIFile(filename: "doc003.py", directory: "/work/main/kernels")
DIFILE_RE = re.compile(r'!DIFile\(filename:\s*"([^"]*)",\s*directory:\s*"([^"]*)"')
# ; comment     /   #dbg_value(...)    (a line that is only a comment or a debug record)
LLIR_COMMENT_LINE_RE = re.compile(r"^\s*(;|#dbg)")
# %5 = load i32, ptr %4, align 4, !dbg !12      (the attachment)
LLIR_DBG_ATTACHMENT_RE = re.compile(r",?\s*!dbg !\d+")

# --- PTX ----------------------------------------------------------------------------------------------

# 	.loc	2 43 17                         // standard.py:43:17 @[ doc003.py:63:27 @[ k.py:9:4 ] ]
# 	.loc	2 43 13, function_name $L__info_string0, inlined_at 1 33 23 // standard.py:43:13
PTX_LOC_RE = re.compile(r"\.loc\s+(\d+)\s+(\d+)\s+(\d+)(?:[^/]*?inlined_at\s+(\d+)\s+(\d+)\s+(\d+))?")
# 	.file	1 "/tmp/t/k.py"      (3.9 may add `, timestamp, size`)
PTX_FILE_RE = re.compile(r'\.file\s+(\d+)\s+"((?:[^"\\]|\\.)*)"')
# 	.loc	1 21 20                         // k.py:21:20
# 	.loc	2 43 13, function_name $L__info_string0, inlined_at 1 33 23 // standard.py:43:13
# (the parser's: `inlined_at` anywhere on the line; PTX_LOC_RE, the line map's, stops at a `/`)
PTX_LOC_DIRECTIVE_RE = re.compile(r"\.loc\s+(\d+)\s+(\d+)\s+(\d+)(?:.*?inlined_at\s+(\d+)\s+(\d+)\s+(\d+))?")
# 	.file	1 "/tmp/t/k.py"      (each of the table, as a multi-line pattern)
PTX_FILE_TABLE_RE = re.compile(r'^\s*\.file\s+\d+\s+"((?:[^"\\]|\\.)*)"', re.M)
# 	.loc ...     /   // comment     /   $L__tmp3:     (lines that say where, not what)
PTX_LOCATION_LINE_RE = re.compile(r"^\s*(\.loc|//|\$L__tmp\d+:)")
# 	mov.b32 	%r1, 0;  // k.py:3      (a trailing comment)
PTX_TRAILING_COMMENT_RE = re.compile(r"\s*//.*$")



@dataclass(frozen=True)
class SourcePos:
    """A PTX `.loc FILE LINE COL`; `inlined_at` is the call site when 3.9 prints one on the directive."""

    file: int
    line: int
    col: int
    inlined_at: tuple[int, int, int] | None = None


def ptx_source_pos(line: str) -> SourcePos | None:
    """The `.loc` directive on `line`, None when it holds none."""
    m = PTX_LOC_DIRECTIVE_RE.search(line)
    inlined = (int(m[4]), int(m[5]), int(m[6])) if m and m[4] else None
    return SourcePos(int(m[1]), int(m[2]), int(m[3]), inlined) if m else None


# --- SASS ---------------------------------------------------------------------------------------------

# 	//## File "/work/venv39/.../standard.py", line 43 inlined at "/work/main/kernels/doc003.py", line 64
SASS_MARK_RE = re.compile(r'//##\s*File\s+"([^"]*)",\s*line\s+(\d+)')
SASS_INLINED_RE = re.compile(r'inlined at\s+"([^"]*)",\s*line\s+(\d+)')
# 	//## File ...     /   (a blank line)
SASS_MARK_LINE_RE = re.compile(r"^\s*(//##|$)")
#         /*0080*/   CS2R R40, SRZ ;   /* 0x0000000000287805 */     (the address and the encoding)
SASS_ADDRESS_RE = re.compile(r"/\*[0-9a-f]{4,}\*/\s*|\s*/\*\s*0x[0-9a-f]+\s*\*/")

# --- AMDGCN -------------------------------------------------------------------------------------------

# 	.file	1 "/work/main/kernels" "doc003.py"       (also the one-path form: .file 1 "/k/doc003.py")
AMDGCN_FILE_RE = re.compile(r'^\s*\.file\s+(\d+)\s+"((?:[^"\\]|\\.)*)"(?:\s+"((?:[^"\\]|\\.)*)")?', re.M)
# 	.loc	1 83 13 is_stmt 0               ; doc003.py:83:13
AMDGCN_LOC_RE = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)")

# --- the call chain in LLVM's comment after a `.loc` (PTX of Triton 3.6, AMDGCN) ---------------------

# ; standard.py:43:13 @[ doc003.py:64:17 @[ k.py:9:4 ] ]
CALLER_RE = re.compile(r"@\[\s*([^\s@\]]+?):(\d+):(\d+)")
