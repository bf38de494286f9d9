"""The compile engine: every variant for every target, the artifacts, the metadata, arbitrary kernels."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
from triton_features import HOST_TMA, TRITON

from ttinspect.engine.builds import build, build_jit
from ttinspect.targets.releases import triton_version
from ttinspect.errors import CompileError, UsageError
from ttinspect.targets.nvidia import TARGETS
from ttinspect.targets.releases import supported_targets
from ttinspect.kernel.catalog import all_variants
from ttinspect.kernel.argument_types import Pointer

VARIANTS = [v.name for v in all_variants()]


# Configs that do not fit a target's shared memory: the engine refuses them as the launch would.
TOO_BIG = {("opt_tma", "sm_120"), ("opt_tma", "sm_121")}  # 128x256x64, 3 TMA buffers: 163856 B > 101376 B

# Every variant on the targets the seeds are about; on the other targets the installed Triton compiles
# for (Volta/Turing, Orin, B300, DGX Spark), one kernel of each kind — the compile time of the suite
# stays in bounds on a 2-core CI machine.
MAIN_TARGETS = ("sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120")
# NVIDIA targets here; AMD's are test_amd.py's
MATRIX = [(variant, arch) for arch in supported_targets() if arch in TARGETS for variant in VARIANTS
          if arch in MAIN_TARGETS or variant in ("naive", "opt", "add", "softmax", "opt_tma")]


@pytest.mark.parametrize("variant,arch", MATRIX)
def test_every_variant_compiles_for_every_target(variant, arch):
    if variant == "opt_tma" and not HOST_TMA:
        with pytest.raises(CompileError, match=r"host-side tensor descriptors .* Triton >= 3\.4 can"):
            build(variant, arch=arch)
        return
    if TRITON < (3, 4) and arch in ("sm_70", "sm_72", "sm_75") and variant in ("naive", "opt", "opt_tma"):
        with pytest.raises(CompileError, match=r"cannot compile tl\.dot for Volta/Turing|Triton >= 3\.4 can"):
            build(variant, arch=arch)
        return
    result = build(variant, arch=arch, check=False)
    if result.metadata["shared"] > TARGETS[arch].max_shared_per_block:
        # Does not fit (opt_tma on the 99 KB targets; on sm_75 with some Tritons): refused as a launch would.
        assert (variant, arch) in TOO_BIG or arch == "sm_75", (variant, arch, result.metadata["shared"])
        with pytest.raises(CompileError, match="out of resource: shared memory"):
            build(variant, arch=arch)
        return
    assert (variant, arch) not in TOO_BIG
    meta = result.metadata
    assert meta["target"]["arch"] == TARGETS[arch].capability
    assert meta["triton_version"] == triton_version()
    assert meta["num_warps"] == result.config["num_warps"]
    for key in ("shared", "num_stages", "name", "hash"):
        assert key in meta
    ptx = result.artifacts.text("ptx")
    assert re.search(rf"^\.target sm_{TARGETS[arch].capability}a?$", ptx, re.M)
    assert f".entry {meta['name']}" in ptx
    assert result.artifacts.data("cubin")[:4] == b"\x7fELF"
    assert arch in result.header()


def test_metadata_records_what_was_compiled():
    meta = build("opt", {"num_stages": 3}, arch="sm_90").metadata["ttinspect"]
    assert meta["label"] == "opt:num_stages=3" and meta["target"] == "sm_90"
    assert meta["signature"]["a_ptr"] == "*fp16 D" and meta["signature"]["M"] == "i32 D"
    assert meta["config"]["num_stages"] == 3


def test_divisibility_specialization_gives_cp_async_pipelining():
    ptx = build("opt", arch="sm_80").artifacts.text("ptx")
    assert "cp.async.cg.shared.global" in ptx and re.search(r"cp\.async\.wait_group\s+4;", ptx)


def test_odd_problem_size_loses_divisibility():
    even = build("opt", arch="sm_80").metadata["ttinspect"]["signature"]
    odd = build("opt", {"K": 4100, "M": 4097}, arch="sm_80").metadata["ttinspect"]["signature"]
    assert even["K"] == "i32 D" and odd["K"] == "i32" and odd["M"] == "i32"


def test_doc003_shared_memory_on_its_gpu():
    """Doc 003's table (RTX 4090, sm_89): naive 16384 B, opt 30720 B."""
    assert build("naive", arch="sm_89").metadata["shared"] == 16384
    assert build("opt", arch="sm_89").metadata["shared"] == 30720


def test_second_build_is_served_from_the_cache():
    first = build("naive", arch="sm_86")
    second = build("naive", arch="sm_86")
    assert first.artifacts.directory == second.artifacts.directory


def test_sass_is_derived_lazily_and_kept():
    result = build("naive", {"num_stages": 2}, arch="sm_90")
    assert not result.artifacts.has("sass")
    sass = result.artifacts.text("sass")
    assert "HGMMA" in sass or "HMMA" in sass
    assert result.artifacts.has("sass")


def _user_kernel():
    path = Path(__file__).parent / "data" / "user_kernel.py"
    spec = importlib.util.spec_from_file_location("user_kernel", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.scale_kernel


def test_any_jit_function():
    fn = _user_kernel()
    result = build_jit(fn, {"x_ptr": Pointer("fp32"), "out_ptr": Pointer("fp32"), "n": 1 << 20, "factor": 2.0},
                       {"BLOCK": 1024, "num_warps": 4}, arch="sm_90")
    sig = result.metadata["ttinspect"]["signature"]
    assert sig == {"x_ptr": "*fp32 D", "out_ptr": "*fp32 D", "n": "i32 D", "factor": "fp32", "BLOCK": "=1024"}
    assert "ld.global.v4.b32" in result.artifacts.text("ptx")  # 16-byte loads: the divisibility took


def test_any_jit_function_errors():
    fn = _user_kernel()
    with pytest.raises(UsageError, match="no value for kernel parameter"):
        build_jit(fn, {"x_ptr": Pointer("fp32")}, {"BLOCK": 1024})
    with pytest.raises(UsageError, match="not a @triton.jit function"):
        build_jit(len, {}, {})
    with pytest.raises(CompileError, match="power of 2") as info:
        build_jit(fn, {"x_ptr": Pointer("fp32"), "out_ptr": Pointer("fp32"), "n": 64, "factor": 2.0},
                  {"BLOCK": 1000})
    assert info.value.file.endswith("user_kernel.py") and info.value.line == 9
    assert "tl.arange" in info.value.source_line


def test_a_ptx_version_this_ptxas_cannot_read_is_named_with_the_fix():
    """A capture records the PTX ISA version the run's ptxas wrote; re-made with an older ptxas, ptxas's cause
    (not its closing `Ptx assembly aborted`) is the message, with what to set."""
    with pytest.raises(CompileError, match=r"ptxas: Unsupported \.version 9\.9; current version is .* reads up to "
                                           r"[\d.]+: set TRITON_PTXAS_PATH"):
        build_jit(_user_kernel(), {"x_ptr": Pointer("fp32"), "out_ptr": Pointer("fp32"), "n": 64, "factor": 2.0},
                  {"BLOCK": 64, "ptx_version": 99}, arch="sm_90")


def test_export_metadata_is_json(tmp_path):
    build("add", arch="sm_90").artifacts.export(tmp_path)
    assert json.loads((tmp_path / "metadata.json").read_text())["name"]


def test_any_jit_function_refuses_unknown_arguments():
    fn = _user_kernel()
    with pytest.raises(UsageError, match="no parameter.*zz"):
        build_jit(fn, {"x_ptr": Pointer("fp32"), "out_ptr": Pointer("fp32"), "n": 64, "factor": 2.0, "zz": 1},
                  {"BLOCK": 64})


def test_the_compilers_own_output_is_summarized_not_dumped(monkeypatch, capfd, tmp_path):
    """A failing MLIR pass prints the whole module as a reproducer on file descriptor 2; the user gets
    one line quoting its diagnostic."""
    import os

    import triton

    from ttinspect.cli.main import cli

    def failing(*args, **kwargs):
        os.write(2, b"LLVM ERROR: unsupported load type for producer commit\nmodule {\n  tt.func ...\n}\n")
        raise RuntimeError("PassManager::run failed")

    monkeypatch.setenv("TTINSPECT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(triton, "compile", failing)
    from click.testing import CliRunner

    result = CliRunner().invoke(cli, ["dump", "add", "--arch", "sm_90", "--stage", "ttir"])
    assert result.exit_code == 3
    assert "PassManager::run failed (LLVM ERROR: unsupported load type for producer commit)" in result.stderr
    assert "module {" not in capfd.readouterr().err  # nothing reached the real stderr either


def test_cached_facts_are_keyed_by_the_code_that_computes_them():
    """The facts' cache key covers the fact code wherever it lives (facts/, dialects/, backends/), not only
    the folder of the module that stores them: a fact made right is never read back wrong from the cache."""
    from ttinspect.report.store import facts_code_files

    covered = {f"{path.parent.name}/{path.name}" for path in facts_code_files()}
    assert {"facts/sass.py", "dialects/sass.py", "backends/nvidia.py", "report/collect.py"} <= covered
    assert not any(name.startswith(("cli/", "render/", "check/")) for name in covered)
