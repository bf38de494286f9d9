"""One object per compiler stage: how each dialect is parsed, normalized, lexed, and where its loops are.

The parsers (`mlir`, `llir`, `ptx`, `sass`, `amdgcn`, over `cfg` and `operands`); the location syntax of
every stage (`locations`) and the per-line source locations read with it (`source_lines`); opcode
families (`families`); diff normalization (`normalize`); main-loop slices (`loop_slice`, looked up by
stage in `main_loop`); the dialect objects (`stage_dialects`), registered in the stage table (`stages`).
"""
