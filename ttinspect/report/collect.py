"""`inspect(...)`: a compiled variant reduced to facts — the public, typed API tests assert on.

    from ttinspect import inspect
    r = inspect("opt", arch="sm_90", num_stages=3)
    assert r.pipeline_depth == 3
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Mapping

from ttinspect.engine.builds import Build, build
from ttinspect.errors import TTInspectError, UsageError
from ttinspect.facts.model import GROUPS, Fact, _jsonable as _jsonable_value, known, unknown
from ttinspect.report.store import decode_report, encode_report, facts_file_name
from ttinspect.kernel.variants import OPTION_KEYS, parse_ref

if TYPE_CHECKING:
    from ttinspect.dialects.cfg import KernelModule

# The parsers and fact extractors are imported where facts are computed: a warm report reads them
# back from the entry (`kernel.facts-*.json`), and a warm `diff` need not import them at all.


SASS_GROUP = "sass (what runs)"

@dataclass(frozen=True)
class Report:
    label: str  # "opt:num_stages=3"
    kernel: str  # "ttinspect_kernels.doc003:matmul_opt_kernel"
    target: str  # "sm_90"
    triton_version: str
    config: Mapping[str, Any]
    facts: tuple[Fact, ...]
    main_loop_ptx: str | None = field(default=None, repr=False)  # the loop's PTX lines, for messages
    build: Build | None = field(default=None, repr=False, compare=False)

    def __repr__(self) -> str:  # short: pytest prints it in every failing assert's "where" line
        return f"Report({self.label}@{self.target}, Triton {self.triton_version}, {len(self.facts)} facts)"

    def fact(self, key: str) -> Fact:
        for fact in self.facts:
            if fact.key == key:
                return fact
        raise KeyError(f"no fact {key!r}; known: {', '.join(f.key for f in self.facts)}")

    def __getitem__(self, key: str) -> Any:
        return self.fact(key).value

    def __contains__(self, key: object) -> bool:  # `key in report`: whether the facts include it
        return any(fact.key == key for fact in self.facts)

    # Typed shortcuts for what tests assert most. Each is the fact's value (None when unknown).
    @property
    def pipeline_depth(self) -> int | None:
        return self["pipeline_depth"]

    @property
    def shared_memory(self) -> int:
        return self["shared_memory"]

    @property
    def tensor_core_path(self) -> str:
        return self["tensor_core_path"]

    @property
    def tensor_core_ops_per_iteration(self) -> int | None:
        return self["loop_tensor_core_ops"]

    @property
    def wait_group(self) -> tuple[int, ...] | None:
        return self["loop_wait_group"]

    @property
    def group_size_m(self) -> int | None:
        return self["group_size_m"]

    @property
    def num_warps(self) -> int:
        return self["num_warps"]

    @property
    def registers(self) -> int | None:
        return self["registers"]

    @property
    def spills(self) -> int | None:
        return self["spills"]

    @property
    def blocks_per_sm(self) -> int | None:
        return self["blocks_per_sm"]

    @cached_property
    def findings(self) -> tuple:
        """What `ttinspect check` finds in this kernel: a tuple of `ttinspect.check.Finding`, errors first
        (computed on first use; rules whose facts are unknown stay silent)."""
        from ttinspect.check import check

        return check(self)

    def by_group(self) -> list[tuple[str, list[Fact]]]:
        """The kernel's groups in GROUPS order, then one group per loop (facts/loops.py), in loop order."""
        groups = [(group, [f for f in self.facts if f.group == group]) for group in GROUPS
                  if any(f.group == group for f in self.facts)]
        loops: dict[str, list[Fact]] = {}
        for f in self.facts:
            if f.group not in GROUPS:
                loops.setdefault(f.group, []).append(f)
        return groups + list(loops.items())

    @property
    def loop_depths(self) -> tuple[int | None, ...]:
        """Every loop's pipeline depth, in loop order (None where a loop's is unknown or n/a): what a
        test of a kernel with several loops asserts, e.g. `assert r.loop_depths == (3, 2)`."""
        return tuple(loop["facts"]["pipeline_depth"].value for loop in self.loops
                     if "pipeline_depth" in loop["facts"])

    @property
    def loops(self) -> list[dict[str, Any]]:
        """Every loop of the kernel (nested ones included) with its own facts: `{"index", "group",
        "facts": {name: Fact}}`, in the TTGIR's order. Empty where the facts have no loops (AMD, no TTGIR)."""
        out: dict[int, dict[str, Any]] = {}
        for f in self.facts:
            head, dot, name = f.key.partition(".")
            if dot and head.startswith("loop") and head[4:].isdigit():
                entry = out.setdefault(int(head[4:]), {"index": int(head[4:]), "group": f.group, "facts": {}})
                entry["facts"][name] = f
        return [out[i] for i in sorted(out)]

    def as_dict(self) -> dict[str, Any]:
        loops = self.loops
        in_loops = {f.key for loop in loops for f in loop["facts"].values()}
        return {"label": self.label, "kernel": self.kernel, "target": self.target,
                "triton_version": self.triton_version,
                "config": {k: getattr(v, "name", v) for k, v in self.config.items()},
                "facts": {f.key: f.as_dict() for f in self.facts if f.key not in in_loops},
                "loops": [{"index": loop["index"], "title": loop["group"],
                           **{name: _jsonable_value(f.value) for name, f in loop["facts"].items()
                              if name in ("line", "role", "parent", "partition")},
                           "facts": {name: f.as_dict() for name, f in loop["facts"].items()}} for loop in loops]}

    def summary(self) -> str:
        """Plain text: every fact and the main loop's PTX (what a failing test should print)."""
        lines = [f"ttinspect report: {self.label} on {self.target} (Triton {self.triton_version})"]
        lines += [f"  {f.key} = {f.display()}" for f in self.facts]
        if self.main_loop_ptx:
            lines += ["main loop PTX:", self.main_loop_ptx]
        return "\n".join(lines)


def _config_facts(result: Build) -> list[Fact]:
    meta = result.metadata
    config = result.config
    blocks = tuple((k, v) for k, v in config.items() if k not in OPTION_KEYS and isinstance(v, int))
    warps = meta.get("num_warps", config.get("num_warps"))
    constexprs = (known("block_sizes", "block sizes / constexprs", "configuration", blocks,
                        "the tile and group constexprs the kernel was compiled with", "config")
                  if "ttinspect" in meta else
                  unknown("block_sizes", "block sizes / constexprs", "configuration",
                          "Triton's cache does not record a kernel's constexpr values (they are folded into "
                          "its IR)", "the tile and group constexprs the kernel was compiled with", "config"))
    return [
        constexprs,
        known("num_warps", "num_warps", "configuration", warps,
              "warps per program (CTA); threads = 32 × num_warps", "metadata"),
        known("threads", "threads per CTA", "configuration", warps * meta.get("warp_size", 32),
              "threads in one program", "metadata"),
        known("num_stages", "num_stages (configured)", "configuration", meta.get("num_stages"),
              "the software-pipelining depth asked for; `pipeline depth` below is what the PTX shows",
              "metadata"),
        known("shared_memory", "shared memory (bytes)", "configuration", meta.get("shared"),
              "dynamic shared memory per CTA from the compiled metadata (the PTX declares an unsized "
              "global_smem[])", "metadata"),
    ]


def _main_loop_text(text: str, module: KernelModule) -> str | None:
    loop = module.main_loop
    if loop is None:
        return None
    return "\n".join(text.split("\n")[loop.start_line - 1:loop.end_line])


def _sass_facts(result: Build) -> list[Fact]:
    """SASS facts, in one group of their own; a missing nvdisasm/cuobjdump makes them unknown."""
    from ttinspect.facts.sass import SassView, sass_facts
    from ttinspect.dialects.sass import parse_sass

    try:
        view = SassView.of(parse_sass(result.artifacts.text("sass")))
    except TTInspectError as error:
        return [unknown("sass_instructions", "SASS instructions (kernel)", SASS_GROUP, str(error),
                        "the disassembled cubin", "sass")]
    return [dataclasses.replace(fact, group=SASS_GROUP) for fact in sass_facts(view)]


def _resource_facts(result: Build) -> list[Fact]:
    from ttinspect.facts.resources import parse_ptxas_log, parse_resource_usage, resource_facts

    usage, usage_reason = None, ""
    try:
        usage = parse_resource_usage(result.artifacts.resource_usage(), result.metadata.get("name"))
        usage_reason = "cuobjdump listed no resources for the kernel" if usage is None else ""
    except TTInspectError as error:  # no cuobjdump: degrade, never crash
        usage_reason = str(error)
    log = result.artifacts.extra("ptxas_log")
    ptxas = parse_ptxas_log(log) if log else None
    ptxas_reason = ((result.metadata.get("ttinspect") or {}).get("no_ptxas_log")
                    or "the ptxas -v log was not kept for this cache entry" if log is None
                    else "the ptxas -v log has no spill line" if ptxas is None else "")
    return resource_facts(result.target, usage, usage_reason, ptxas, ptxas_reason,
                          shared=result.metadata.get("shared") or 0,
                          num_warps=result.metadata.get("num_warps") or 4)


def _stage_text(result: Build, stage: str) -> tuple[str, str | None]:
    """The stage's text, or "" and why it is missing (a Triton cache entry may lack stages)."""
    from ttinspect.engine.artifacts import MissingStage

    try:
        return result.artifacts.text(stage), None
    except MissingStage as error:
        return "", f"{error}, so facts read from it are unknown"


def _all_unknown(facts: list[Fact], reason: str | None) -> list[Fact]:
    """The facts a missing stage would have given, each unknown with the reason (never a guess)."""
    if reason is None:
        return facts
    return [dataclasses.replace(f, value=None, unknown=reason) for f in facts]


def report_from_build(result: Build, *, sass: bool = True) -> Report:
    """`sass=False` leaves out the SASS group (an nvdisasm run per kernel), for tables that show none
    of its facts. The facts of one of ttinspect's own entries are kept beside its artifacts (a derived
    file, digest-checked like the SASS, named by the fact code's digest): a warm report reads them back."""
    if not result.artifacts.verified:
        return _computed_report(result, sass)
    # The stages the facts come from are still read (digest-checked), so a damaged entry is found and
    # compiled again exactly as when the facts are computed; only parsing them is saved.
    for stage in ("ttir", "ttgir", "ptx", "amdgcn"):
        if result.artifacts.has(stage):
            result.artifacts.data(stage)
    result.artifacts.extra("ptxas_log")
    fresh: list[Report] = []

    def derive() -> bytes:
        fresh.append(_computed_report(result, sass))
        encoded = encode_report(fresh[0])
        return encoded if encoded is not None else b"null"

    try:
        data = result.artifacts.derived_file(facts_file_name(sass), derive)
    except OSError:
        data = b"null"
    if fresh:
        return fresh[0]
    decoded = decode_report(data, result)
    return decoded if decoded is not None else _computed_report(result, sass)


def _release(version: Any) -> tuple[int, int] | None:
    from ttinspect.targets.releases import release

    try:
        return release(str(version))
    except ValueError:  # no version in a foreign cache entry's metadata
        return None


def _amd_facts(result: Build) -> tuple[list[Fact], str | None]:
    """An AMD target's assembly facts (facts/amd.py) and its main loop's text."""
    from ttinspect.facts.amd import amd_facts
    from ttinspect.dialects.amdgcn import parse_amdgcn

    text, missing = _stage_text(result, "amdgcn")
    module = parse_amdgcn(text)
    meta = result.metadata
    facts = amd_facts(module, _stage_text(result, "ttgir")[0], result.target, shared=meta.get("shared") or 0,
                      num_warps=meta.get("num_warps") or 4, release=_release(meta.get("triton_version")))
    from ttinspect.facts.amd import descriptor_fact

    descriptors = descriptor_fact((meta.get("ttinspect") or {}).get("signature"), result.target)
    if descriptors is not None:
        facts.append(descriptors)
    if not missing and module.kernel is None:
        missing = "the amdgcn has no function, so facts read from it are unknown"
    return _all_unknown(facts, missing), (_main_loop_text(text, module) if not missing else None)


def _computed_report(result: Build, sass: bool) -> Report:
    if result.target.amd is not None:
        return _computed_ir_report(result, *_amd_facts(result))
    from ttinspect.facts.pipeline import pipeline_depth
    from ttinspect.facts.ptx import PtxView, ptx_facts
    from ttinspect.dialects.ptx import parse_ptx

    ptx_text, ptx_missing = _stage_text(result, "ptx")
    ptx = parse_ptx(ptx_text)
    view = PtxView.of(ptx)
    ir = _IrStages.of(result)
    depth, per_loop = (pipeline_depth(view), []) if ptx_missing else _loop_facts(result, ir, ptx, view, ptx_text)
    facts = _config_facts(result) + _all_unknown([depth] + ptx_facts(view), ptx_missing)
    facts += _ir_facts(result, ir) + _resource_facts(result)
    if sass:
        facts += _sass_facts(result)
    facts += per_loop
    return Report(result.label, result.kernel, result.target.name,
                  str(result.metadata.get("triton_version")), dict(result.config), tuple(facts),
                  _main_loop_text(ptx_text, ptx) if not ptx_missing else None, result)


@dataclass(frozen=True)
class _IrStages:
    """The TTIR and TTGIR, parsed once for the IR facts and the per-loop facts; `*_missing` says why a
    stage is absent (its module is then the parse of an empty text)."""

    ttir: Any
    ttir_missing: str | None
    ttgir: Any
    ttgir_missing: str | None

    @classmethod
    def of(cls, result: Build) -> "_IrStages":
        from ttinspect.dialects.mlir import parse_mlir

        ttir, ttir_missing = _stage_text(result, "ttir")
        ttgir, ttgir_missing = _stage_text(result, "ttgir")
        return cls(parse_mlir(ttir, stage="ttir"), ttir_missing, parse_mlir(ttgir, stage="ttgir"), ttgir_missing)


def _loop_facts(result: Build, ir: _IrStages, ptx: Any, view: Any, ptx_text: str) -> tuple[Fact, list[Fact]]:
    """The kernel's pipeline depth from two witnesses and every loop's own facts (facts/loops.py).
    Without a TTGIR the depth is the PTX's alone."""
    from ttinspect.facts.loops import kernel_loop_facts
    from ttinspect.facts.pipeline import pipeline_depth

    if ir.ttgir_missing:
        return pipeline_depth(view), []
    return kernel_loop_facts(ir.ttgir, None if ir.ttir_missing else ir.ttir, ptx, view, ptx_text,
                             result.metadata.get("num_stages"))


def _ir_facts(result: Build, ir: _IrStages) -> list[Fact]:
    """The TTIR and TTGIR facts: the same for every vendor."""
    from ttinspect.facts.ir import ttgir_facts, ttir_facts

    # Triton 3.3 names the kernel's arguments %arg0, %arg1, ... in the IR; later versions by the
    # Python parameter names. The signature recorded at compile time gives the names back.
    signature = (result.metadata.get("ttinspect") or {}).get("signature") or {}
    arg_names = [name for name, ty in signature.items() if not str(ty).startswith("=")]
    facts = _all_unknown(ttir_facts(ir.ttir, arg_names), ir.ttir_missing)
    return facts + _all_unknown(ttgir_facts(ir.ttgir), ir.ttgir_missing)


def _computed_ir_report(result: Build, own: list[Fact], loop_text: str | None) -> Report:
    facts = _config_facts(result) + own + _ir_facts(result, _IrStages.of(result))
    return Report(result.label, result.kernel, result.target.name, str(result.metadata.get("triton_version")),
                  dict(result.config), tuple(facts), loop_text, result)


def inspect(kernel: Any, arch: str | None = None, *, args: Mapping[str, Any] | None = None,
            config: Mapping[str, Any] | int | str | None = None, signature: str | None = None,
            triton: str | None = None, **overrides: Any) -> Report:
    """Compile (or load from the cache) and reduce to facts. `kernel` is any reference ttinspect takes:
    a shipped variant (`"opt:num_stages=3@sm_90"`), `"my_mm.py:matmul"` or a declared example
    (`"my_mm.py:small"`), a Triton cache entry (`"cache:3fa9c2"`), or a kernel object — a @triton.jit
    function, an @triton.autotune'd or @triton.heuristics kernel.

    `args`: the runtime arguments by name as a launch passes them (torch tensors, `Pointer("fp16")`,
    ints, or the `--arg` text: `"*fp16"`, `"i32:16"`); `signature`: all of them in order, as text
    (`"*fp16:16, i32:16, 64"`). `config`: constexprs and options (`{"BLOCK_M": 128, "num_warps": 8}`),
    or the number of an @triton.autotune config (1-based). Keyword overrides are the same as `config`
    entries and win over it. `triton`: compile with that Triton release instead of the installed one
    (`"3.5.1"`, in a toolchain of its own: `ttinspect toolchains`); `kernel` must then be a reference.
    """
    from ttinspect.refs.resolver import RefOptions, kind_of, resolve_one

    if triton is not None:
        if not isinstance(kernel, str):
            raise UsageError("inspect(triton=...): give a reference (a variant, \"my.py:kern\"), "
                             "not a kernel object")
        if "@triton=" in kernel:
            raise UsageError(f"inspect({kernel!r}, triton={triton!r}): name the release once")
        kernel = f"{kernel}@triton={triton}"
    plain_variant = (kind_of(kernel) == "variant" and "@triton=" not in kernel and args is None
                     and signature is None)
    if triton is None and plain_variant and not isinstance(config, (int, str)):
        return _inspect_variant(kernel, arch, {**(config or {}), **overrides})
    settings = dict(config) if isinstance(config, Mapping) else {}
    settings.update(overrides)
    which = None if isinstance(config, Mapping) else config
    options = RefOptions(settings, dict(args or {}), signature, which, arch)
    return report_from_build(resolve_one(kernel, options))


def _inspect_variant(variant: str, arch: str | None, overrides: Mapping[str, Any]) -> Report:
    ref = parse_ref(variant)
    merged = {**ref.resolved.config, **ref.resolved.problem}
    unknown_keys = [k for k in overrides if k not in merged and k not in OPTION_KEYS]
    if unknown_keys:
        valid = ", ".join(list(merged) + [k for k in OPTION_KEYS if k not in merged])
        raise UsageError(f"unknown override(s) {', '.join(unknown_keys)} for {ref.resolved.variant.name}; "
                         f"valid: {valid}")
    from ttinspect.kernel.variants import resolve

    changed = {k: v for k, v in merged.items()
               if ref.resolved.variant.config.get(k, ref.resolved.variant.problem.get(k)) != v}
    resolved = resolve(ref.resolved.variant, {**changed, **overrides})
    return report_from_build(build(resolved, arch=arch or ref.arch))
