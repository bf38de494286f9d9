"""A Helion kernel's example arguments, as text or as the file gives them.

A Helion kernel (`@helion.kernel`) takes torch tensors and Python scalars, and specializes its generated
Triton on their shapes, strides and dtypes — so a pointer's type (`*fp16`) says too little. A tensor is
written as its dtype and shape, `fp16[1024, 1024]` (contiguous), optionally with its strides,
`fp16[1024, 1024]:strides[1, 1024]`; dtypes by Triton's short names (`fp16 bf16 fp32 i32 ...`) or torch's
(`float16`); a scalar is a value (`4096`, `0.5`, `true`). `--signature` lists them in the kernel's order;
`--arg NAME=VALUE` gives scalars by name, and tensors as `--arg` writes a pointer with its shape
(`--arg 'x=*fp16[1024,1024]'`, contiguous); a file's `TTINSPECT_EXAMPLES` entry may give tensors themselves
(made on the virtual device: `torch.empty(1024, 1024, device="cuda", dtype=torch.float16)`) or this text.
The tensors are made on the target's virtual device (metadata only, no values).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ttinspect.dialects.operands import split_operands
from ttinspect.errors import UsageError
from ttinspect.kernel.argument_types import Pointer, Scalar
from ttinspect.kernel.overrides import parse_value

# Triton's short names -> torch's (the dtypes a Helion kernel's tensors take)
DTYPES = {"i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
          "u16": "uint16", "u32": "uint32", "u64": "uint64", "fp16": "float16", "bf16": "bfloat16",
          "fp32": "float32", "fp64": "float64", "fp8e4nv": "float8_e4m3fn", "fp8e5": "float8_e5m2"}
_TENSOR = re.compile(r"^(?P<dtype>\w+)\s*\[(?P<shape>[\d\s,]*)\](?:\s*:\s*strides\s*\[(?P<strides>[\d\s,]*)\])?$")
EXAMPLE = "fp16[1024, 1024]"


@dataclass(frozen=True)
class TensorSpec:
    """A tensor described by text: made on the virtual device when the kernel is bound."""

    dtype: str  # torch's name
    shape: tuple[int, ...]
    strides: tuple[int, ...] | None = None

    def make(self) -> Any:
        import torch  # the kernel's file imported it already (Helion needs it)

        dtype = getattr(torch, self.dtype)
        if self.strides is None:
            return torch.empty(self.shape, dtype=dtype, device="cuda")
        return torch.empty_strided(self.shape, self.strides, dtype=dtype, device="cuda")


def _numbers(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.replace(" ", "").split(",") if part)


def parse_entry(text: str, where: str) -> Any:
    """One argument: a TensorSpec, or a scalar value."""
    entry = text.strip()
    match = _TENSOR.match(entry)
    if match is not None:
        name = DTYPES.get(match["dtype"], match["dtype"])
        if name not in DTYPES.values():
            raise UsageError(f"{where}: unknown dtype {match['dtype']!r} in {entry!r}; dtypes: "
                             f"{', '.join(DTYPES)} (or torch's names: float16, ...)")
        shape = _numbers(match["shape"])
        strides = _numbers(match["strides"]) if match["strides"] is not None else None
        if strides is not None and len(strides) != len(shape):
            raise UsageError(f"{where}: {entry!r} has {len(shape)} dimensions but {len(strides)} strides")
        return TensorSpec(name, shape, strides)
    if entry.startswith("*"):
        raise UsageError(f"{where}: {entry!r} gives no shape, and a Helion kernel is generated for its tensors' "
                         f"shapes: write a tensor as {EXAMPLE} (dtype and shape)")
    value = parse_value(entry)
    if isinstance(value, str):
        raise UsageError(f"{where}: {entry!r} is neither a tensor ({EXAMPLE}) nor a value (4096, 0.5, true)")
    return value


def from_signature(text: str, params: Sequence[str], kernel: str) -> dict[str, Any]:
    parts = split_operands(text)
    if not text.strip():
        raise UsageError(f"--signature is empty; a Helion kernel takes e.g. \"{EXAMPLE}, {EXAMPLE}\"")
    if len(parts) > len(params):
        raise UsageError(f"--signature has {len(parts)} entries but {kernel} has {len(params)} parameters "
                         f"({', '.join(params)})")
    return {name: parse_entry(part, f"--signature entry {i + 1} ({name})")
            for i, (name, part) in enumerate(zip(params, parts, strict=False))}


def from_mapping(values: Mapping[str, Any], where: str) -> dict[str, Any]:
    """`--arg` entries (already parsed) or an example's `args`: text is parsed here; a pointer given with its
    shape (`--arg 'x=*fp16[1024,1024]'`) is that contiguous tensor; a pointer without one or a scalar given by
    type says too little (no shape, no value)."""
    out: dict[str, Any] = {}
    for name, value in values.items():
        if isinstance(value, str):
            value = parse_entry(value, f"{where} {name}")
        elif isinstance(value, Pointer) and value.shape is not None and value.dtype in DTYPES:
            value = TensorSpec(DTYPES[value.dtype], value.shape)
        elif isinstance(value, (Pointer, Scalar)):
            raise UsageError(f"{where} {name}: a Helion kernel needs a tensor's shape ({EXAMPLE}, or "
                             f"--arg '{name}=*fp16[1024,1024]') or a scalar's value, not a type")
        out[name] = value
    return out


def bound_values(params: Sequence[str], given: Mapping[str, Any], defaults: Mapping[str, Any],
                 kernel: str) -> list[Any]:
    """The arguments in the kernel's order (tensors made now: call under the virtual device); a parameter
    with neither a value nor a default is named, all at once."""
    missing = [p for p in params if p not in given and p not in defaults]
    if missing:
        raise UsageError(f"{kernel} needs {', '.join(missing)}: give every argument in order with --signature "
                         f"(a tensor as {EXAMPLE}, a scalar as its value), e.g. --signature "
                         f"\"{', '.join(EXAMPLE if i < 2 else '4096' for i, _ in enumerate(params))}\"")
    unknown = [name for name in given if name not in params]
    if unknown:
        raise UsageError(f"{kernel} has no parameter {', '.join(unknown)} (parameters: {', '.join(params)})")
    values = [given[p] if p in given else defaults[p] for p in params]
    return [v.make() if isinstance(v, TensorSpec) else v for v in values]
