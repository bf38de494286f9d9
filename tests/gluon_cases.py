"""The Gluon kernels written for the tests (tests/data/gluon/), each with the offline compile its file's
`COMPILE` table names: as ttinspect references with `--signature` text, and as Triton's own compile."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GLUON = Path(__file__).parent / "data" / "gluon"
FILES = ("gluon_copy", "hopper_matmul", "blackwell_matmul", "warp_specialized", "serialized_ring", "amd_copy")


@dataclass(frozen=True)
class Case:
    file: str
    kernel: str
    arch: str  # sm_90, gfx950
    entry: dict  # the file's COMPILE entry

    @property
    def id(self) -> str:
        return f"{self.file}:{self.kernel}@{self.arch}"

    @property
    def ref(self) -> str:
        return f"{GLUON / self.file}.py:{self.kernel}"

    def signature(self, launched: bool = False, **constexprs: Any) -> str:
        """ttinspect's --signature text: a pointer or integer with tt.divisibility is `:16`, a descriptor is
        Gluon's own type text, a constexpr its value. `launched`: as a launch whose integers are all multiples
        of 16 specializes it (every runtime integer `:16`)."""
        attrs = self.entry.get("attrs", {})
        out = []
        for index, (name, kind) in enumerate(self.entry["signature"].items()):
            if kind == "constexpr":
                out.append(str(constexprs.get(name, self.entry["constexprs"][name])))
            elif kind.startswith("tensordesc"):
                out.append(kind)
            else:
                aligned = ["tt.divisibility", 16] in attrs.get((index,), []) or (launched and kind[0] in "iu")
                out.append(f"{kind}:16" if aligned else kind)
        return ", ".join(out)

    @property
    def gpu_target(self) -> tuple[str, Any, int]:
        """(backend, arch, warp size) as triton.compile's GPUTarget takes them."""
        return ("hip", self.arch, 64) if self.arch.startswith("gfx") else ("cuda", int(self.arch[3:]), 32)

    def settings(self) -> list[str]:
        return [f"{k}={v}" for k, v in self.entry.get("options", {}).items()]


def load(file: str) -> Any:
    """The kernel file as a module of its own, by path (its folder never goes on sys.path)."""
    spec = importlib.util.spec_from_file_location(f"gluon_case_{file}", GLUON / f"{file}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cases() -> list[Case]:
    out = []
    for file in FILES:
        for kernel, entry in load(file).COMPILE.items():
            out.extend(Case(file, kernel, arch if isinstance(arch, str) else f"sm_{arch}", entry)
                       for arch in entry["arch"])
    return out
