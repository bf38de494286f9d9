"""What the rules read, parsed once per build: stage texts, parsed modules, Python line maps, the
specialization. Every accessor degrades to None (a missing stage, no line info, no signature) so a rule
whose evidence is absent stays silent — it never guesses and never crashes.

Rules are pure functions of (report, build); `stages_of(build)` only memoizes the parsing they share.
"""

from __future__ import annotations

import posixpath
import re
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ttinspect.backends import backend_for
from ttinspect.check.model import Evidence
from ttinspect.errors import TTInspectError

# !ttg.memdesc<3x128x64xf16, #shared, #smem, mutable>
MEMDESC_RE = re.compile(r"!ttg\.memdesc<((?:\d+x)+)([a-zA-Z]+\d*)")
# tensor<64x32x!tt.ptr<f16>, #blocked>   /   tensor<64x32xf16, #ttg.dot_op<...>>
TENSOR_RE = re.compile(r"tensor<((?:\d+x)*)(!tt\.ptr<([\w]+)>|[a-zA-Z]+\d*)(?:,\s*#([\w.]+))?")
_BITS_RE = re.compile(r"(\d+)")

_CACHE: OrderedDict[int, tuple[Any, "Stages"]] = OrderedDict()


def stages_of(build) -> "Stages":
    """The build's parsed stages, shared by every rule of one `check` (a few builds are kept)."""
    key = id(build)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is build:
        return hit[1]
    stages = Stages(build)
    _CACHE[key] = (build, stages)  # the build is kept alive with its entry, so its id is not reused
    while len(_CACHE) > 8:
        _CACHE.popitem(last=False)
    return stages


def element_bits(element: str) -> int | None:
    """f16 -> 16, bf16 -> 16, f8E4M3FN -> 8, i1 -> 8 (bytes in memory), f32 -> 32."""
    m = _BITS_RE.search(element)
    if not m:
        return None
    bits = int(m[1])
    return 8 if bits == 1 else bits


@dataclass(frozen=True)
class TensorType:
    shape: tuple[int, ...]
    element: str  # "f16", or the pointee of a pointer tensor
    pointer: bool
    layout: str | None  # "blocked", "mma", ... (the alias name)

    @property
    def elements(self) -> int:
        total = 1
        for n in self.shape:
            total *= n
        return total


def tensor_types(text: str) -> list[TensorType]:
    out = []
    for m in TENSOR_RE.finditer(text):
        shape = tuple(int(n) for n in m[1].split("x") if n)
        pointer = m[3] is not None
        out.append(TensorType(shape, m[3] if pointer else m[2], pointer, m[4]))
    return out


class Stages:
    def __init__(self, build):
        self.build = build
        # the launch's own argument values where the command was given them (`--arg n=4097`): set by
        # `check(report, args=...)`; a rule reads them to tell "not a multiple of 16" from "not declared"
        self.launch_args: dict[str, Any] = {}

    # --- texts and parsed modules --------------------------------------------------------------
    def text(self, stage: str) -> str | None:
        return self._texts.get(stage) if stage in self._texts else self._load(stage)

    @cached_property
    def _texts(self) -> dict[str, str | None]:
        return {}

    def _load(self, stage: str) -> str | None:
        try:
            text = self.build.artifacts.text(stage)
        except (TTInspectError, OSError, KeyError):  # a missing stage, no nvdisasm: the evidence is absent
            text = None
        self._texts[stage] = text
        return text

    def lines(self, stage: str) -> list[str]:
        text = self.text(stage)
        return text.split("\n") if text else []

    @cached_property
    def ttir(self):
        return self._mlir("ttir")

    @cached_property
    def ttgir(self):
        return self._mlir("ttgir")

    def _mlir(self, stage: str):
        from ttinspect.dialects.mlir import parse_mlir  # a parser: only for a rule that needs the stage

        text = self.text(stage)
        if not text:
            return None
        try:
            return parse_mlir(text, stage=stage)
        except TTInspectError:
            return None

    @cached_property
    def ptx(self):
        """(PtxModule, PtxView) or None."""
        from ttinspect.dialects.ptx import parse_ptx  # a parser: only for a rule that needs the stage
        from ttinspect.facts.ptx import PtxView  # likewise

        text = self.text("ptx")
        if not text:
            return None
        try:
            module = parse_ptx(text)
            return module, PtxView.of(module)
        except TTInspectError:
            return None

    @cached_property
    def sass(self):
        """facts.sass.SassView (main loop split out) or None; parsed only by a rule that needs it."""
        from ttinspect.dialects.sass import parse_sass  # a parser: only for a rule that needs the stage
        from ttinspect.facts.sass import SassView  # likewise

        text = self.text("sass")
        if not text:
            return None
        try:
            return SassView.of(parse_sass(text))
        except TTInspectError:
            return None

    @cached_property
    def amdgcn(self):
        """parse.amdgcn.AmdgcnModule of an AMD build, or None (an NVIDIA build, no text, unreadable)."""
        from ttinspect.dialects.amdgcn import parse_amdgcn  # a big parser: only for a rule that needs it

        if backend_for(self.build.target).assembly_stage != "amdgcn":
            return None
        text = self.text("amdgcn")
        if not text:
            return None
        try:
            return parse_amdgcn(text)
        except TTInspectError:
            return None

    # --- what the build was compiled with -----------------------------------------------------
    @property
    def config(self) -> dict[str, Any] | None:
        """The config the engine recorded (constexprs and options the user set); None for a Triton cache
        entry, where what was set and what was defaulted cannot be told apart."""
        recorded = (self.metadata.get("ttinspect") or {}).get("config")
        return recorded if isinstance(recorded, dict) else None

    @property
    def metadata(self) -> dict[str, Any]:
        try:
            return self.build.metadata or {}
        except (TTInspectError, OSError):
            return {}

    @property
    def signature(self) -> dict[str, str] | None:
        """`{"a_ptr": "*fp16 D", "stride_ak": "=1", "K": "i32 D"}` as the engine recorded it; None for a
        Triton cache entry (see `divisibility_from_ttir` for what its IR still says)."""
        return (self.metadata.get("ttinspect") or {}).get("signature") or None

    @property
    def num_warps(self) -> int | None:
        value = self.metadata.get("num_warps")
        return value if isinstance(value, int) else None

    @property
    def kernel_file(self) -> str | None:
        return self.build.source_file or (self.metadata.get("ttinspect") or {}).get("source_file")

    # --- Python lines ---------------------------------------------------------------------------
    def python_line(self, stage: str, line: int | None) -> int | None:
        if line is None:
            return None
        attributions = self._line_maps.get(stage, ...)
        if attributions is ...:
            attributions = self._line_map(stage)
            self._line_maps[stage] = attributions
        if not attributions or line - 1 >= len(attributions):
            return None
        return attributions[line - 1]

    @cached_property
    def _line_maps(self) -> dict[str, Any]:
        return {}

    def _line_map(self, stage: str):
        """A list indexed by line - 1 of Python lines (or None). MLIR stages resolve only the op's own
        location chain and SASS reads nvdisasm's marks directly: both are what `ttinspect.source` does for
        every line, at a fraction of the cost (a warm `check` must stay fast)."""
        text, kernel_file = self.text(stage), self.kernel_file
        if not text or not kernel_file:
            return None
        if stage in ("ttir", "ttgir"):
            return self._mlir_lines(stage, kernel_file)
        if stage == "sass":
            return _sass_lines(text, kernel_file)
        from ttinspect.source import line_map  # source attribution: only for a rule that needs Python lines

        try:
            return [a.source_line for a in line_map(stage, text, kernel_file)]
        except TTInspectError:
            return None

    def _mlir_lines(self, stage: str, kernel_file: str):
        module = self.ttir if stage == "ttir" else self.ttgir
        if module is None:
            return None
        base = posixpath.basename(kernel_file)
        out: list[int | None] = [None] * (len(module._lines) + 1)
        for op in module.ops:
            found = module.resolve(op) if op.loc else None
            if found is None:
                continue
            for site in (*reversed(found.callers), found.site):  # the outermost frame in the kernel file
                if posixpath.basename(site.file) == base:
                    out[op.line - 1] = site.line
                    break
        return out

    def evidence(self, stage: str, line: int, text: str | None = None) -> Evidence:
        """The stage's line as evidence, with its Python line where attribution can tell."""
        lines = self.lines(stage)
        shown = text if text is not None else (lines[line - 1].strip() if 0 < line <= len(lines) else "")
        return Evidence(stage, line, _short(shown), self.python_line(stage, line))

    def mlir_evidence(self, stage: str, op) -> Evidence:
        return self.evidence(stage, op.line)


def _short(text: str, limit: int = 200) -> str:
    """An op's line without its trailing location, cut to a readable length."""
    text = text.strip()
    at = text.rfind(" loc(")
    if at > 0:
        text = text[:at]
    return text if len(text) <= limit else text[:limit - 1] + "…"


def fact_evidence(report, key: str) -> Evidence | None:
    """A known fact of the report as evidence ("registers = 255"), None when unknown."""
    try:
        fact = report.fact(key)
    except KeyError:
        return None
    if fact.value is None:
        return None
    return Evidence(fact.source, None, f"{fact.title} = {fact.display()}")


def fact_value(report, key: str) -> Any:
    try:
        return report.fact(key).value
    except KeyError:
        return None


def _sass_lines(text: str, kernel_file: str) -> list[int | None]:
    """nvdisasm's `//## File "k.py", line N [inlined at "k.py", line M]` marks in effect at each line, kept
    where they name the kernel file (the call site for code inlined into it)."""
    from ttinspect.dialects.locations import SASS_INLINED_RE, SASS_MARK_RE  # likewise: SASS lines only

    base = posixpath.basename(kernel_file)
    out: list[int | None] = []
    current: int | None = None
    for line in text.split("\n"):
        if "//##" in line:
            mark = SASS_MARK_RE.search(line)
            current = None
            if mark:
                inlined = SASS_INLINED_RE.search(line)
                if inlined and posixpath.basename(inlined[1]) == base:
                    current = int(inlined[2])
                elif posixpath.basename(mark[1]) == base:
                    current = int(mark[2])
            out.append(None)
            continue
        out.append(current if "/*" in line else None)
    return out
