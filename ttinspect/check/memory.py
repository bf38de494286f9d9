"""TTI005 narrow-global-access: a global load or store moves fewer bits per thread than its tile allows,
and the argument responsible — from the specialization the build recorded (`metadata["ttinspect"]
["signature"]`: `*fp16 D` = 16-byte aligned, `i32 D` = divisible by 16, `=1` = a stride folded to 1) or,
for a Triton cache entry, the `tt.divisibility` attributes of the TTIR's arguments.

Wider is judged possible only where the tile gives each thread enough elements along the layout's
fastest dimension: min(elements per thread, extent of that dimension) × element bits, capped at 128.
A scalar load, a tile smaller than the CTA, and loads whose address comes from another load (gathers)
are legitimately narrow and stay silent. Where no argument lacks a hint the finding says the
responsible argument is unknown (or names the runtime strides that would have to be 1). An index
that steps by a constant > 1 along the fastest dimension (`X + 2 * i`: interleaved pairs) is strided by
the kernel's own indexing: said so at INFO, with the stride, and no argument blamed; so is an index with a
constant term that is not a multiple of the vector width (`X + i - 1`): misaligned by construction.
"""

from __future__ import annotations

from ttinspect.backends import backend_for
from ttinspect.check.context import element_bits, stages_of, tensor_types
from ttinspect.check.model import Evidence, Finding
from ttinspect.check.launch_strides import launch_stride_cause
from ttinspect.check.access_shape import broadcast_along, constant_offset, constant_steps, offset_arguments
from ttinspect.check.ssa import Chains

ID, SLUG = "TTI005", "narrow-global-access"
_KINDS = {"tt.load": "load", "ttg.async_copy_global_to_local": "load", "tt.store": "store"}


def narrow_global_access(report, build) -> list[Finding]:
    if build is None:
        return []
    stages = stages_of(build)
    ttgir, ttir, warps = stages.ttgir, stages.ttir, stages.num_warps
    if ttgir is None or ttir is None or not warps:
        return []
    widths = backend_for(build.target).access_widths(stages)  # the PTX's, or the AMDGCN's
    if not widths:
        return []  # no assembly line attributed to Python: nothing can be matched
    threads = build.target.warp_size * warps
    potential: dict[tuple[int, str], tuple[int, int, str, object]] = {}  # (line, kind) -> (bits, elem bits, ...)
    for op in ttgir.ops:
        kind = _KINDS.get(op.name)
        if kind is None:
            continue
        line = stages.python_line("ttgir", op.line)
        wider = _possible_bits(ttgir, op, threads)
        if line is None or wider is None:
            continue
        key = (line, kind)
        if key in potential and potential[key][0] <= wider[0]:
            continue  # two accesses on one line: judge by the one that allows less
        potential[key] = (*wider, op)
    findings = []
    for (line, kind), (bits, element, dtype, op) in sorted(potential.items(), key=lambda kv: kv[0]):
        seen = widths.get((line, kind))
        if not seen:
            continue
        width, ptx_line = max(seen)  # the widest access of the line: never flag a line that has a wide one
        if width >= bits:
            continue
        finding = _finding(report, build, stages, ttir, line, kind, width, ptx_line, bits, element, dtype, op)
        if finding is not None:
            findings.append(finding)
    return findings


def _possible_bits(module, op, threads: int) -> tuple[int, int, str] | None:
    """(bits per thread the tile allows, element bits, element type) for a tensor access; None for a scalar
    or a tile with fewer than 2 elements per thread."""
    pointer = next((t for t in tensor_types(module.text(op)) if t.pointer), None)
    if pointer is None or not pointer.shape:
        return None
    found = module.layouts.get(pointer.layout) if pointer.layout else None
    if found is not None and any(word in found.kind for word in ("mma", "mfma", "wmma", "dot_op")):
        # an access in a matrix instruction's register layout (AMD's epilogue stores straight from the MFMA
        # accumulator): each lane's contiguous elements are fixed by the instruction, not by a vector choice
        return None
    bits = element_bits(pointer.element)
    per_thread = pointer.elements // threads
    if bits is None or per_thread < 2:
        return None
    order = _order(module, pointer.layout)
    fastest = pointer.shape[order[0]] if order and order[0] < len(pointer.shape) else pointer.shape[-1]
    return min(128, bits * min(per_thread, fastest)), bits, pointer.element


def _order(module, layout: str | None) -> list[int] | None:
    found = module.layouts.get(layout) if layout else None
    if found is None:
        return None
    value = dict(found.params).get("order", "")
    try:
        return [int(v) for v in value.strip("[]").split(",") if v.strip()]
    except ValueError:
        return None


def _finding(report, build, stages, ttir, line, kind, width, ptx_line, bits, element, dtype, ttgir_op):
    chains = Chains(ttir)
    ops = [op for op in ttir.ops if op.name == ("tt.store" if kind == "store" else "tt.load")
           and stages.python_line("ttir", op.line) == line]
    if not ops:
        return None
    arguments: set[str] = set()
    strided_by: set[str] = set()
    stride_shapes: dict[str, set[tuple[int, ...]]] = {}
    mask_only: set[str] = set()
    fastest = _fastest_dim(stages.ttgir, ttgir_op)
    padded: dict[str, int] = {}  # argument -> the constant added to it on the way to the address (n + 1)
    steps: list[int | None] = []  # each access's constant step along the fastest dimension, when not 1
    shifts: list[int | None] = []  # each access's constant term, in elements (`X + i - 1`: -1)
    for op in ops:
        operands = chains.load_operands(op)
        if not operands:
            return None
        pointer_args, pointer_ops = chains.sources(operands[0])
        if "tt.load" in pointer_ops:
            return None  # a gather: the address comes from loaded data, narrow by nature
        if fastest is not None and broadcast_along(chains, operands[0], fastest):
            return None  # neighbouring elements read one address (`absmax[offs // 32]`): nothing to widen
        padded.update(offset_arguments(chains, operands[0]))
        steps.append(_stride_along(chains, operands[0], fastest))
        shifts.append(constant_offset(chains, operands[0]))
        mask = operands[2] if kind == "store" and len(operands) > 2 else operands[1] if kind == "load" and \
            len(operands) > 1 else None
        mask_args, mask_ops = chains.sources(mask) if mask else (set(), set())
        if "tt.load" in mask_ops:
            return None
        strided_by |= chains.multipliers(operands[0])
        for name, shapes in chains.stride_dims(operands[0]).items():
            stride_shapes.setdefault(name, set()).update(shapes)
        arguments |= pointer_args | mask_args
        mask_only |= mask_args - pointer_args
    known_steps = [step for step in steps if step is not None]
    if steps and len(known_steps) == len(steps) and fastest is not None:
        in_loop = kind == "load" and width < 32 and _in_loop(ttir, ops)
        return _strided(build, stages, kind, line, width, ptx_line, element, ttgir_op, min(known_steps, key=abs),
                        _other_dimension_strides(stride_shapes, fastest),
                        backend_for(build.target).narrow_blocks_pipelining(report, in_loop))
    vector = bits // element  # the elements one widest access moves: the alignment it needs, in elements
    if shifts and all(shift is not None and shift % vector for shift in shifts):
        return _shifted(build, stages, kind, line, width, ptx_line, ttgir_op, shifts[0], vector, element)
    hints = _hints(stages, chains)
    missing = sorted(a for a in arguments if hints.get(a, (None, True))[1] is False)
    strides = sorted(a for a in strided_by if hints.get(a, ("", True))[0] == "int"
                     and hints[a][1] is True)
    descriptors = _descriptors(stages, missing)
    missing = [a for a in missing if _descriptor_of(a, descriptors) is None]
    target = build.target
    backend = backend_for(target)
    evidence = [stages.evidence(backend.assembly_stage, ptx_line), stages.mlir_evidence("ttgir", ttgir_op)]
    source = "metadata" if stages.signature else "ttir"
    evidence += [Evidence(source, None, f"{d}: a tensor descriptor ({(stages.signature or {}).get(d)})")
                 for d in descriptors]
    evidence += [Evidence(source, None, _describe(a, hints)) for a in missing]
    now, could = f"{width}-bit", f"{bits}-bit"
    per_access = f"{bits // element} × {dtype}"
    unit = backend.thread_word
    title = (f"{kind}s on line {line} move {width // 8} bytes per {unit} per access where the tile allows "
             f"{bits // 8} ({per_access})")
    narrow_in_loop = kind == "load" and width < 32 and _in_loop(ttir, ops)
    blocks_pipelining, consequence = backend.narrow_blocks_pipelining(report, narrow_in_loop)
    why = (f"Each {unit} issues {bits // width}× more {kind} instructions than needed ({now} instead of {could}): "
           "more instructions and more memory transactions" + (consequence if blocks_pipelining else "")
           + ". Triton vectorizes only what the specialization proves aligned and contiguous. ")
    if descriptors and not backend.has_tma(target):
        lowered, fix_tail = backend.descriptor_lowering(target)
        why += (f"Responsible: {', '.join(descriptors)} — tensor descriptors, which on {target.name} lower to plain "
                f"loads and stores whose alignment Triton cannot prove ({lowered}).")
        fix = (f"On {target.name} pass pointers instead of descriptors (`*{dtype_name(dtype)}:16`, the unit stride "
               "passed as 1)" + fix_tail)
        return Finding(ID, SLUG, "warning", title, tuple(evidence), why, fix)
    if missing:
        # Runtime strides scaling different dimensions: Triton knows none is 1, so its layout's order is
        # its own guess (3.6 and 3.9 guess differently) and says nothing about which one is 1 at launch.
        scaled = {a: {i for shape in stride_shapes.get(a, ()) for i, n in enumerate(shape) if n != 1}
                  for a in missing}
        unsure = len({frozenset(d) for d in scaled.values() if d}) > 1
        advice = [_pitch_advice(a, padded[a]) if a in padded else
                  _advice(a, hints, stages, stride_shapes, None if unsure else fastest, a in mask_only,
                          unsure and bool(scaled[a])) for a in missing]
        declare = [text for text, declarable in advice if declarable]
        why += "Responsible: " + "; ".join(
            f"{a.lstrip('%')}, which enters the address as {a.lstrip('%')} + {padded[a]}" if a in padded
            else _describe(a, hints) for a in missing) + "."
        fix = " ".join(text for text, _ in advice) + (
            f" Then each {unit} can move {bits // 8} bytes per access." if declare else "")
        severity = "warning" if declare or blocks_pipelining else "info"
        return Finding(ID, SLUG, severity, title, tuple(evidence), why, fix)
    if padded:
        text, _ = _pitch_advice(*next(iter(sorted(padded.items()))))
        why += "Responsible: the address itself, not a missing hint. " + text
        return Finding(ID, SLUG, "info", title, tuple(evidence), why,
                       "Nothing to declare. Widening this access takes a data layout whose rows start 16-aligned; "
                       "whether the layout can change is unknown to ttinspect.")
    given = launch_stride_cause(stages, strides, stride_shapes, fastest)
    if given is not None:  # every runtime stride has the value the launches gave: what the access is
        cause, fix = given
        return Finding(ID, SLUG, "info", title, tuple(evidence), why + cause, fix)
    if strides:
        names = ", ".join(a.lstrip("%") for a in strides)
        why += (f"Responsible argument unknown: every argument has its hints; the address uses the runtime "
                f"stride(s) {names} — if the one along the contiguous dimension is 1 at launch it is not "
                "specialized to 1 here, so the elements are not known to be contiguous.")
        fix = (f"Pass the unit stride as 1 (the JIT then folds it to a constant), e.g. `1` in --signature for that "
               f"stride; then each {unit} can move {bits // 8} bytes per access.")
        return Finding(ID, SLUG, "info", title, tuple(evidence), why, fix)
    why += "Responsible argument unknown: no argument of the address or the mask lacks a hint."
    return Finding(ID, SLUG, "info", title, tuple(evidence), why,
                   "Check the access pattern with `ttinspect dump REF --stage ttgir` (the load's #blocked "
                   "sizePerThread along `order[0]` is the vector the compiler chose).")


def _stride_along(chains, pointer: str, fastest: int | None) -> int | None:
    """The constant step (in elements) of the address along the layout's fastest dimension when it is not
    ±1 or 0: the kernel's own indexing (`X + 2 * i`) keeps a thread's elements apart. None otherwise."""
    if fastest is None:
        return None
    steps = constant_steps(chains, pointer)
    step = steps[fastest] if steps and fastest < len(steps) else None
    return step if step is not None and abs(step) > 1 else None


def _other_dimension_strides(stride_shapes, fastest: int) -> list[str]:
    """The runtime strides that scale a dimension other than the fastest (`r[:, None] * stride_r`): one of
    them equal to 1 at launch would make that dimension the contiguous one. A stride scaling a scalar
    (`pid * stride_b`) only moves the whole tile and is not one of them."""
    return sorted(a for a, shapes in stride_shapes.items()
                  if any(i != fastest and n != 1 for shape in shapes for i, n in enumerate(shape)))


def _strided(build, stages, kind, line, width, ptx_line, element, ttgir_op, stride, runtime, blocking):
    """A narrow access whose index steps by a constant > 1 along the fastest dimension: said as what it is,
    at INFO, with no argument blamed (no hint makes non-adjacent elements one vector)."""
    backend = backend_for(build.target)
    unit, apart = backend.thread_word, abs(stride)
    evidence = (stages.evidence(backend.assembly_stage, ptx_line), stages.mlir_evidence("ttgir", ttgir_op))
    title = (f"{kind}s on line {line} are strided: the tile's neighbouring elements lie {apart} elements "
             f"({apart * element // 8} bytes) apart, so each {unit} moves {width // 8} bytes per access")
    blocks_pipelining, consequence = blocking
    consequence = consequence if blocks_pipelining else ""
    why = (f"The index steps by {stride} elements along the tile's fastest dimension (the kernel's own indexing, "
           f"as in `{stride} * offs`), so the elements a {unit} holds are never next to each other in memory and "
           f"each is its own {width}-bit {kind}{consequence}. This is the access's shape, not a missing hint: no "
           "argument's alignment or divisibility makes it wider.")
    if runtime:
        names = ", ".join(a.lstrip("%") for a in runtime)
        why += (f" The address also uses the runtime stride(s) {names}: if the one of another dimension is 1 at "
                "launch, passing it as 1 (`1` in --signature) lets Triton vectorize along that dimension instead.")
    group = (f"load them as one contiguous tile, {apart} neighbouring elements per row (`base + {apart} * offs[:, "
             f"None] + tl.arange(0, {apart})[None, :]`), and take it apart in registers "
             f"({'`tl.split`' if apart == 2 else 'tl.reshape and tl.split'})" if apart & (apart - 1) == 0 else
             f"pad each group to a power of two ({1 << apart.bit_length()} elements) so it loads as one contiguous "
             "tile (tl.arange needs a power of two), and take it apart in registers")
    fix = (f"Nothing to declare. If the kernel reads the elements in between too (interleaved pairs, or groups of "
           f"{apart}), {group}; otherwise the stride is the data's layout, and only a layout that stores these "
           "elements next to each other widens the access (whether it can change is unknown to ttinspect).")
    return Finding(ID, SLUG, "info", title, evidence, why, fix)


def _shifted(build, stages, kind, line, width, ptx_line, ttgir_op, shift, vector, element):
    """A narrow access whose index adds a constant that is not a multiple of the vector width: misaligned by
    construction, said at INFO with the offset, no argument blamed (no hint aligns `X + i - 1`)."""
    backend = backend_for(build.target)
    unit = backend.thread_word
    evidence = (stages.evidence(backend.assembly_stage, ptx_line), stages.mlir_evidence("ttgir", ttgir_op))
    title = (f"{kind}s on line {line} are offset by {shift} element(s) ({shift * element // 8:+d} bytes), not a "
             f"multiple of the {vector}-element vector: each {unit} moves {width // 8} bytes per access")
    sign = "-" if shift < 0 else "+"
    why = (f"The index adds the constant {shift} (the kernel's own indexing, as in `ptr + offs {sign} {abs(shift)}`), "
           f"so the first element of every {vector}-element group sits {shift % vector} element(s) past a "
           f"{vector * element // 8}-byte boundary whatever the base pointer's alignment: Triton cannot prove a "
           f"wider access aligned. This is the address's construction, not a missing hint: no argument's alignment "
           "or divisibility widens it.")
    fix = (f"Nothing to declare. Only an index whose constant term is a multiple of {vector} lets this access widen; "
           "whether the kernel can read these elements another way is unknown to ttinspect.")
    return Finding(ID, SLUG, "info", title, evidence, why, fix)


def dtype_name(element: str) -> str:
    """f16 -> fp16, bf16 -> bf16, i8 -> i8 (the --signature spelling)."""
    return "fp" + element[1:] if element[:1] == "f" and element[1:].isdigit() else element


def _fastest_dim(module, op) -> int | None:
    pointer = next((t for t in tensor_types(module.text(op)) if t.pointer), None)
    if pointer is None:
        return None
    order = _order(module, pointer.layout)
    return order[0] if order else len(pointer.shape) - 1


def _in_loop(module, ops) -> bool:
    return any(module.in_loop(op) for op in ops)


def _descriptors(stages, names) -> list[str]:
    """The tensor-descriptor arguments (`tensordesc<fp16[128, 64]>` in the recorded signature) that the
    pointer / shape / stride arguments in `names` were expanded from (`%a_desc`, `%a_desc.shape.0`)."""
    signature = stages.signature or {}
    found = {d for d, kind in signature.items() if kind.startswith("tensordesc")}
    return sorted({d for name in names for d in [_descriptor_of(name, found)] if d})


def _descriptor_of(name: str, descriptors) -> str | None:
    plain = name.lstrip("%")
    head = plain.split(".", 1)[0]
    return head if head in descriptors else None


def _advice(name: str, hints, stages, stride_shapes, fastest, mask_only,
            one_of_strides: bool = False) -> tuple[str, bool]:
    """(what to do about one argument without its hint, whether declaring a hint is the fix).
    `one_of_strides`: several runtime strides scale this access's dimensions and none is known to be 1."""
    plain = name.lstrip("%")
    kind = hints.get(name, ("",))[0]
    declared = _suggest(name, hints, stages.signature)
    if kind == "ptr":
        return (f"Launch {plain} 16-byte aligned (torch allocations are) and say so: {declared} "
                "in --signature (through the API: `Pointer(dtype)`).", True)
    if one_of_strides:
        return (f"{plain}: if it is 1 at launch (the contiguous dimension), pass it as 1 (the JIT specializes an "
                f"integer equal to 1 to a constant; `1` in --signature); otherwise launch it divisible by 16 "
                f"({declared}).", True)
    shapes = stride_shapes.get(name, set())
    along = {i for shape in shapes for i, n in enumerate(shape) if n != 1}
    if shapes and fastest is not None and along == {fastest}:
        return (f"{plain} is the stride of the contiguous dimension: if it is 1 at launch, pass it as 1 (the JIT "
                "specializes an integer equal to 1 to a constant; `1` in --signature), so the elements are known "
                "to be contiguous.", True)
    value = stages.launch_args.get(plain)
    if shapes and isinstance(value, int) and not isinstance(value, bool) and value % 16:
        return (f"{plain} = {value} at launch, not a multiple of 16: the rows it steps over are not 16-element "
                "aligned, a pitch the data's layout sets (an extra column packed beside the data, say), so there is "
                "no hint to declare; only a layout with a pitch that is a multiple of 16 would widen the access "
                "(whether the layout can change is unknown to ttinspect).", False)
    if not shapes and mask_only:
        if isinstance(value, int) and not isinstance(value, bool) and value % 16:
            return (f"{plain} = {value} bounds the mask and is not a multiple of 16: a mask on a size that is not a "
                    "multiple of the vector width keeps the access narrow whatever the hints. Pad the data to a "
                    "multiple of 16 elements, or split off the tail (full blocks without the mask, the last "
                    "partial block masked).", False)
        return (f"{plain} bounds the mask: if it is a multiple of 16 at launch, say so ({declared} "
                "in --signature, or pass its real value); if it is not, the mask on a size that is not a multiple "
                "of the vector width keeps the access narrow: pad it, or split off the tail.", True)
    return (f"If {plain} is divisible by 16 at launch, say so: {declared} in --signature (through the API: the "
            "real integer value). If the layout's pitch is not a multiple of 16 by design (an extra column packed "
            "beside the data, say), no hint is true and nothing in the kernel widens this access.", True)


def _pitch_advice(name: str, added: int) -> tuple[str, bool]:
    """An argument that enters the address plus a constant (`row * (n_cols + 1)`): no hint on it is the fix."""
    plain = name.lstrip("%")
    return (f"{plain} enters the address as {plain} + {added}: a pitch that is not a multiple of 16 whatever "
            f"{plain} is (a layout that packs an extra column by design), so declaring {plain} divisible by 16 "
            "would not widen the access; only a layout whose rows start 16-aligned would (whether it can change is "
            "unknown to ttinspect).", False)


def _hints(stages, chains) -> dict[str, tuple[str, bool | None]]:
    """%arg -> ("ptr" | "int" | "other", has the divisibility-16 hint)."""
    out: dict[str, tuple[str, bool | None]] = {}
    signature = stages.signature
    for name, (type_text, attributes) in chains.argument_attrs.items():
        plain = name.lstrip("%")
        recorded = signature.get(plain) if signature else None
        kind = "ptr" if "ptr" in type_text else "int" if type_text[:1] in ("i", "u") and type_text != "i1" else "other"
        if recorded is not None:
            hinted = recorded.endswith(" D") or recorded.startswith("=")
        else:
            hinted = "tt.divisibility" in attributes
        out[name] = (kind, hinted if kind != "other" else None)
    return out


def _describe(name: str, hints) -> str:
    kind = hints.get(name, ("", None))[0]
    plain = name.lstrip("%")
    if kind == "ptr":
        return f"{plain}: a pointer without the 16-byte alignment hint (`*T`, not `*T:16`)"
    return f"{plain}: an integer without divisibility by 16 (`i32`, not `i32:16`)"


def _suggest(name: str, hints, signature) -> str:
    plain = name.lstrip("%")
    recorded = (signature or {}).get(plain)
    if recorded:
        base = recorded[:-2] if recorded.endswith(" D") else recorded  # the type, whole: `tensordesc<fp16[128, 64]>`
        return f"{plain} `{base}:16`"
    return f"{plain} `{'*T' if hints.get(name, ('',))[0] == 'ptr' else 'i32'}:16`"
