"""Golden files for the parser tests, and the captured stage texts they are computed from.

`pytest --update-golden` rewrites tests/golden/*.json from the current parsers instead of comparing
(TTINSPECT_UPDATE_GOLDEN=1 does the same where the option is not registered). tests/conftest.py turns
the option on with:

    from golden_option import pytest_addoption  # noqa: F401
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data"
GOLDEN = TESTS / "golden"


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/*.json from the current parsers instead of comparing")


def updating(config) -> bool:
    return bool(config.getoption("--update-golden", default=False)) or \
        os.environ.get("TTINSPECT_UPDATE_GOLDEN") == "1"


def captured(*extensions: str) -> list[Path]:
    """Every captured stage text with one of these extensions, over all Triton versions present."""
    return sorted(p for p in DATA.glob("triton-*/*") if p.suffix.lstrip(".") in extensions)


def params(*extensions: str) -> list:
    return [pytest.param(p, id=f"{p.parent.name}/{p.name}") for p in captured(*extensions)]


def version_of(path: Path) -> tuple[int, int]:
    major, minor = path.parent.name.removeprefix("triton-").split(".")[:2]
    return int(major), int(minor)


FLAT_LIST = re.compile(r"\[\s+([-\d\s,]*?)\s+\]")  # [\n 345,\n 477\n] -> [345, 477]


def check_golden(config, name: str, actual: dict) -> None:
    """Compare `actual` with tests/golden/<name>.json (or write it when updating)."""
    path = GOLDEN / f"{name}.json"
    text = FLAT_LIST.sub(lambda m: "[" + ", ".join(x.strip() for x in m[1].split(",")) + "]",
                         json.dumps(actual, indent=1, sort_keys=True)) + "\n"
    if updating(config):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return
    if not path.is_file():
        pytest.fail(f"no golden file {path.relative_to(TESTS)}; run pytest --update-golden to create it")
    expected = json.loads(path.read_text())
    assert json.loads(text) == expected, f"parser output differs from {path.relative_to(TESTS)}"


def golden_name(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


# Summaries: the parts of a parse a golden file pins down (small, stable, readable in a diff).

def _loops(function) -> list[dict]:
    out = []
    for loop in function.loops:
        span = function.cfg.span(loop)
        out.append({"header": function.blocks[loop.header].label, "depth": loop.depth,
                    "blocks": len(loop.blocks), "span": [span.start_line, span.end_line],
                    "gaps": [list(g) for g in span.gaps]})
    return out


def _main(main) -> dict | None:
    if main is None:
        return None
    return {"span": [main.start_line, main.end_line], "rule": main.rule, "tensor_ops": main.tensor_ops,
            "instructions": main.instructions, "depth": main.depth}


def summarize_ptx(module) -> dict:
    kernel = module.kernel
    out = {"kernel": module.kernel_name, "target": module.target, "files": len(module.files),
           "functions": len(module.functions)}
    if kernel is None:
        return out
    main = kernel.main_loop
    out.update(instructions=len(kernel), blocks=len(kernel.blocks), loops=_loops(kernel),
               llvm_loop_headers=list(kernel.llvm_loop_headers()), main_loop=_main(main))
    if main is not None:
        mnemonics = Counter(i.mnemonic for i in kernel.loop_instructions(main.loop))
        out["main_loop_ops"] = {k: v for k, v in sorted(mnemonics.items())
                                if k.startswith(("mma", "wgmma", "tcgen05.mma", "cp.async", "ldmatrix",
                                                 "mbarrier.try_wait", "bar.sync"))}
    return out


def summarize_sass(module) -> dict:
    kernel = module.kernel
    out = {"kernel": module.kernel_name, "format": module.format,
           "functions": [f.name for f in module.functions]}
    if kernel is not None:
        out.update(_cfg_summary(kernel, lambda i: i.is_tensor_core
                                or i.opcode in ("DEPBAR", "LDGSTS", "LDSM", "SYNCS", "BAR")))
    return out


def _cfg_summary(kernel, keep=None) -> dict:
    """The CFG-level summary every assembly shares; `keep`: which main-loop instructions to count."""
    main = kernel.main_loop
    out = {"instructions": len(kernel.instructions), "blocks": len(kernel.blocks), "loops": _loops(kernel),
           "main_loop": _main(main)}
    if keep is not None and main is not None:
        ops = Counter(i.mnemonic for i in kernel.loop_instructions(main.loop) if keep(i))
        out["main_loop_ops"] = dict(sorted(ops.items()))
    return out


def summarize_llir(module) -> dict:
    kernel = module.kernel
    out = {"kernel": module.kernel_name, "functions": len(module.functions)}
    if kernel is not None:
        out.update(_cfg_summary(kernel))
    return out


def summarize_mlir(module) -> dict:
    main = module.main_loop
    loc = module.resolve(main.op) if main else None
    return {
        "kernel": module.kernel_name, "ops": len(module.ops),
        "dialects": dict(sorted(module.dialect_counts().items())),
        "layouts": {name: layout.kind for name, layout in sorted(module.layouts.items())},
        "loc_aliases": len(module.loc_aliases),
        "loops": [{"op": loop.op.name, "span": [loop.start_line, loop.end_line], "depth": loop.depth,
                   "dots": loop.dots, "ops": loop.ops} for loop in module.loops],
        "main_loop": None if main is None else {
            "span": [main.start_line, main.end_line], "dots": main.dots,
            "dot_ops": dict(sorted(Counter(op.name for op in module.ops
                                           if main.op.line < op.line <= main.op.end_line
                                           and op.name.endswith(("dot", "mma"))).items())),
            "loc": None if loc is None else [Path(loc.kernel_site.file).name, loc.kernel_site.line]},
    }


def summarize_amdgcn(module) -> dict:
    kernel = module.kernel
    out = {"kernel": module.kernel_name, "target": module.target, "functions": len(module.functions),
           "report": {k: module.report.get(k) for k in ("NumVgprs", "NumAgprs", "TotalNumVgprs", "TotalNumSgprs",
                                                          "ScratchSize", "Occupancy")},
           "notes": {k: module.notes.get(k) for k in ("vgpr_count", "agpr_count", "sgpr_count", "vgpr_spill_count",
                                                      "sgpr_spill_count", "private_segment_fixed_size",
                                                      "wavefront_size")}}
    if kernel is not None:
        out.update(_cfg_summary(kernel, lambda i: i.is_tensor_core or i.mnemonic.startswith(
            ("s_waitcnt", "global_load", "buffer_load", "ds_read", "ds_write"))))
    return out
