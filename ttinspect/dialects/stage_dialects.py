"""One dialect object per text stage (TTIR, TTGIR, LLIR, PTX, SASS, AMDGCN), registered in the stage
table (`stages.STAGES[name].dialect`). Each offers what the layers above ask of a stage's text:

    parse(text)                the parsed module (`mlir`, `llir`, `ptx`, `sass`, `amdgcn`)
    source_lines(text)         per-line code / location chain (`source_lines`); named_files(text)
    strip(text)                lines without locations and comments; normalize(text): for a diff
    main_loop(text, strict)    the kernel's main loop (`loop_slice`)
    code_families(text, loop)  (line, opcode family) of each instruction, as `by_line` counts them
    lexer                      the pygments lexer's class name in `ttinspect.render.lexers`

Pure: nothing here imports triton or pygments, and a parser is loaded only when its stage is parsed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from ttinspect.dialects import locations
from ttinspect.dialects.loop_slice import LoopSlice, NoMainLoop, slice_of_function, slice_of_mlir
from ttinspect.dialects.normalize import renumbered, stripped
from ttinspect.dialects.source_lines import (CONTAINER_OPS, LocatedText, amdgcn_files, amdgcn_lines, llir_files,
                                             llir_lines, mlir_files, mlir_lines, ptx_files, ptx_lines, sass_files,
                                             sass_lines)

Families = list[tuple[int, str]]  # (line, opcode family)


@dataclass(frozen=True)
class Dialect:
    stage: str
    lexer: str  # the class name in ttinspect.render.lexers
    location_lines: re.Pattern[str] | None = None  # lines that only say where (or comment): strip drops them
    trailing: re.Pattern[str] | None = None  # a trailing location or comment: strip cuts it
    names: str | None = "ssa"  # what normalize renumbers: "ssa" values, "ptx" registers, None (SASS's stay)
    no_locations: str = ""  # why a text of this stage has no source location at all

    def parse(self, text: str) -> Any:
        raise NotImplementedError

    def source_lines(self, text: str) -> LocatedText:
        raise NotImplementedError

    def named_files(self, text: str) -> list[str]:
        """The source files the text names, as it names them, in order, once each."""
        raise NotImplementedError

    def main_loop(self, text: str, *, strict: bool = False) -> LoopSlice | NoMainLoop:
        raise NotImplementedError

    def code_families(self, text: str, loop_only: bool) -> Families | None:
        """(line, family) of every instruction (op) of the text, or with `loop_only` of the main loop's
        (None when there is none)."""
        raise NotImplementedError

    def strip(self, text: str) -> list[str]:
        return stripped(text, self.location_lines, self.trailing)

    def normalize(self, text: str) -> list[str]:
        """`strip`, then labels and registers / SSA values renumbered in order of first appearance."""
        return renumbered(self.strip(text), self.names)


@dataclass(frozen=True)
class MlirDialect(Dialect):
    def parse(self, text: str) -> Any:
        from ttinspect.dialects.mlir import parse_mlir  # loaded when an MLIR stage is parsed, not with the table

        return parse_mlir(text, stage=self.stage)

    def source_lines(self, text: str) -> LocatedText:
        return mlir_lines(text, self.parse(text))

    def named_files(self, text: str) -> list[str]:
        return mlir_files(text)

    def main_loop(self, text: str, *, strict: bool = False) -> LoopSlice | NoMainLoop:
        return slice_of_mlir(self.stage, self.parse(text), strict)

    def code_families(self, text: str, loop_only: bool) -> Families | None:
        module = self.parse(text)
        ops = [op for op in module.ops if op.name not in CONTAINER_OPS]
        if loop_only:
            found = slice_of_mlir(self.stage, module, False)
            if found.start_line is None:
                return None
            ops = [op for op in ops if found.start_line < op.line <= found.end_line]
        return [(op.line, op.name) for op in ops]


@dataclass(frozen=True)
class AssemblyDialect(Dialect):
    """A stage parsed into functions with a control-flow graph (LLIR, PTX, SASS, AMDGCN)."""

    no_function: str = ""  # what main_loop says of a text without a function
    parser: Callable[[str], Any] | None = None
    lines_of: Callable[[str, Any], LocatedText] | None = None
    files_of: Callable[[str], list[str]] | None = None

    def parse(self, text: str) -> Any:
        assert self.parser is not None
        return self.parser(text)

    def source_lines(self, text: str) -> LocatedText:
        assert self.lines_of is not None
        return self.lines_of(text, self.parse(text))

    def named_files(self, text: str) -> list[str]:
        assert self.files_of is not None
        return self.files_of(text)

    def main_loop(self, text: str, *, strict: bool = False) -> LoopSlice | NoMainLoop:
        function = self.parse(text).kernel
        if function is None:
            return NoMainLoop(self.no_function, self.stage)
        return slice_of_function(self.stage, function, strict)

    def family(self, instruction: Any) -> str:
        raise NotImplementedError

    def code_families(self, text: str, loop_only: bool) -> Families | None:
        module = self.parse(text)
        if loop_only:
            kernel = module.kernel
            main = kernel.main_loop if kernel is not None else None
            if main is None:
                return None
            picked = kernel.loop_instructions(main.loop)
        else:
            picked = [ins for f in module.functions for ins in f.instructions]
        return [(ins.line, self.family(ins)) for ins in picked]


# The parsers, each loaded on first use: the stage table is on every command's path, most parse nothing.

def _parse_llir(text: str) -> Any:
    from ttinspect.dialects.llir import parse_llir  # loaded when LLVM IR is parsed, not with the table

    return parse_llir(text)


def _parse_ptx(text: str) -> Any:
    from ttinspect.dialects.ptx import parse_ptx  # loaded when PTX is parsed, not with the table

    return parse_ptx(text)


def _parse_sass(text: str) -> Any:
    from ttinspect.dialects.sass import parse_sass  # loaded when SASS is parsed, not with the table

    return parse_sass(text)


def _parse_amdgcn(text: str) -> Any:
    from ttinspect.dialects.amdgcn import parse_amdgcn  # loaded when AMDGCN is parsed, not with the table

    return parse_amdgcn(text)


@dataclass(frozen=True)
class LlirDialect(AssemblyDialect):
    def family(self, instruction: Any) -> str:
        from ttinspect.dialects.families import llir_family  # loads the LLVM IR parser: only counting needs it

        return llir_family(instruction.opcode, instruction.text)


@dataclass(frozen=True)
class PtxDialect(AssemblyDialect):
    def family(self, instruction: Any) -> str:
        from ttinspect.dialects.families import ptx_family  # loads the LLVM IR parser: only counting needs it

        return ptx_family(instruction.opcode, instruction.modifiers)


@dataclass(frozen=True)
class SassDialect(AssemblyDialect):
    def family(self, instruction: Any) -> str:
        return instruction.opcode


@dataclass(frozen=True)
class AmdgcnDialect(AssemblyDialect):
    def family(self, instruction: Any) -> str:
        return instruction.mnemonic


_NO_LINE_INFO = "compiled with TRITON_DISABLE_LINE_INFO=1?"

TTIR = MlirDialect(
    "ttir", "TritonMLIRLexer", locations.MLIR_LOC_LINE_RE, locations.MLIR_TRAILING_LOC_RE,
    no_locations=f"no op of this TTIR has a file location (only loc(unknown) and bare names): {_NO_LINE_INFO}")
TTGIR = MlirDialect(
    "ttgir", "TritonMLIRLexer", locations.MLIR_LOC_LINE_RE, locations.MLIR_TRAILING_LOC_RE,
    no_locations=f"no op of this TTGIR has a file location (only loc(unknown) and bare names): {_NO_LINE_INFO}")
LLIR = LlirDialect(
    "llir", "TritonLlvmLexer", locations.LLIR_COMMENT_LINE_RE, locations.LLIR_DBG_ATTACHMENT_RE, "ssa",
    no_locations=f"no instruction of this LLVM IR has !dbg debug info: {_NO_LINE_INFO}",
    no_function="no function definition in this LLVM IR", parser=_parse_llir, lines_of=llir_lines,
    files_of=llir_files)
PTX = PtxDialect(
    "ptx", "TritonPtxLexer", locations.PTX_LOCATION_LINE_RE, locations.PTX_TRAILING_COMMENT_RE, "ptx",
    no_locations=f"this PTX has no .loc directives: {_NO_LINE_INFO}",
    no_function="no .entry function in this PTX", parser=_parse_ptx, lines_of=ptx_lines, files_of=ptx_files)
SASS = SassDialect(
    "sass", "SassLexer", locations.SASS_MARK_LINE_RE, locations.SASS_ADDRESS_RE, None,
    no_locations="this SASS has no //## File line marks: a cubin without line info (TRITON_DISABLE_LINE_INFO=1), "
                 "or disassembled by cuobjdump or by nvdisasm without -g",
    no_function="no function in this SASS", parser=_parse_sass, lines_of=sass_lines, files_of=sass_files)
AMDGCN = AmdgcnDialect(
    "amdgcn", "AmdgcnLexer", None, None, "ssa",
    no_locations=f"this AMDGCN assembly has no .loc directives: {_NO_LINE_INFO}",
    no_function="no function in this AMDGCN assembly", parser=_parse_amdgcn, lines_of=amdgcn_lines,
    files_of=amdgcn_files)
