"""Source attribution: which line of the kernel's Python file each line of a stage comes from.

Every stage names its source locations its own way; `attribution` reads them all and reduces each to
one line of the kernel file (`line_map`, `source_info`), so that a stage can be shown `objdump -S`-style
(`interleaving`: `interleave`, `strip_interleaved`) and its instructions counted per Python line
(`counting`: `by_line`; the opcode families, `ptx_family` among them, are the dialects').

Everything here is pure: no subprocess, no triton, no file reading. The caller reads the kernel's
Python source and passes it as text to `interleave`.
"""

from ttinspect.source.attribution import SOURCE_STAGES, LineAttribution, SourceInfo, line_map, source_info
from ttinspect.dialects.families import ptx_family
from ttinspect.source.counting import LineCount, by_line
from ttinspect.source.interleaving import MARK, interleave, strip_interleaved

__all__ = ["SOURCE_STAGES", "MARK", "LineAttribution", "SourceInfo", "LineCount", "line_map", "source_info",
           "interleave", "strip_interleaved", "by_line", "ptx_family"]
