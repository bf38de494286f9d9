"""`ttinspect check` on AMD targets: the rules that apply there (loop not pipelined, spills, occupancy,
narrow accesses, LDS limit) fire with AMD's evidence — AMDGCN lines with their Python lines, LLVM's
report, the code-object notes — and stay silent where the kernel does not have the problem; the
NVIDIA-only rules (mma.sync vs wgmma, TMA) never fire; no finding cites PTX or SASS."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from test_check import KERNELS, mm
from triton_features import needs_amd

from ttinspect.check import check_reference
from ttinspect.cli.main import cli
from ttinspect.backends.amd_resources import workgroups_per_cu
from ttinspect.refs.resolver import RefOptions

pytestmark = needs_amd

MM = mm()
UNALIGNED = mm("*fp16", "*fp16")
BIG = mm(blocks=(256, 256, 64))
UNHINTED = mm(blocks=(128, 128, 64), strides=", ".join(["i32"] * 9))
SOFTMAX = "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, 32768"

# name: (kernel, arch, signature, settings)
CASES = {
    "mm": ("matmul", "gfx942", MM, {}),
    "mm_950": ("matmul", "gfx950", MM, {}),
    "mm_rdna": ("matmul", "gfx1100", MM, {}),
    "unaligned": ("matmul", "gfx942", UNALIGNED, {}),
    "unaligned_950": ("matmul", "gfx950", UNALIGNED, {}),
    "row_sums": ("row_sums", "gfx942", "*fp16:16, *fp32:16, i32:16, i32:16, 16, 128", {}),
    "big_spills": ("matmul", "gfx942", BIG, {"num_stages": 1}),
    "sgpr_spills": ("matmul", "gfx942", UNHINTED, {"num_stages": 4}),
    "softmax": ("row_softmax", "gfx942", SOFTMAX, {"num_warps": 4}),
    "softmax_rdna": ("row_softmax", "gfx1100", SOFTMAX, {"num_warps": 4}),
    "live_values": ("many_live_values", "gfx942", "*fp32:16, *fp32:16, 4096", {}),
    "add_unaligned": ("add", "gfx942", "*fp32, *fp32:16, *fp32:16, i32, 1024", {}),
    "add_aligned": ("add", "gfx942", "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024", {}),
    "lds_over": ("matmul", "gfx942", mm(blocks=(128, 256, 128)), {"num_stages": 2, "num_warps": 8}),
}
_FOUND: dict[str, tuple] = {}


def checked(case: str):
    if case not in _FOUND:
        name, arch, signature, settings = CASES[case]
        _FOUND[case] = check_reference(f"{KERNELS}:{name}", RefOptions(settings, {}, signature, None, arch))
    return _FOUND[case]


def found(case: str, rule: str):
    return [f for f in checked(case)[1] if f.id == rule]


RULES = [
    ("TTI001", ["unaligned", "row_sums", "sgpr_spills"], ["mm", "mm_950", "unaligned_950", "add_aligned"]),
    ("TTI003", ["big_spills", "softmax_rdna"], ["mm", "mm_rdna", "softmax", "add_aligned"]),
    ("TTI004", ["softmax", "big_spills", "softmax_rdna"], ["mm", "add_aligned"]),
    ("TTI005", ["unaligned", "add_unaligned"], ["mm", "mm_950", "mm_rdna", "add_aligned", "softmax"]),
    ("TTI006", ["lds_over"], ["mm", "add_aligned"]),
]


@pytest.mark.parametrize("rule, case", [(r, c) for r, fire, _ in RULES for c in fire])
def test_rule_fires_with_amd_evidence(rule, case):
    findings = found(case, rule)
    assert findings, f"{rule} silent on {case}: {[f.id for f in checked(case)[1]]}"
    for finding in findings:
        assert finding.evidence and finding.why and finding.fix
        assert not any(e.stage in ("ptx", "sass", "ptxas -v", "cubin") for e in finding.evidence), finding.text()
        assert "ptxas" not in finding.why + finding.fix and "CTA" not in finding.title + finding.why


@pytest.mark.parametrize("rule, case", [(r, c) for r, _, silent in RULES for c in silent])
def test_rule_silent(rule, case):
    assert not found(case, rule), "\n".join(f.text() for f in found(case, rule))


@pytest.mark.parametrize("case", sorted(CASES))
def test_nvidia_only_rules_never_fire(case):
    assert not found(case, "TTI002") and not found(case, "TTI007")


def test_not_pipelined_names_the_amd_cause():
    narrow = found("unaligned", "TTI001")[0]
    assert "fewer than 4 bytes per lane" in narrow.why and "cp.async" not in narrow.why
    assert any(e.stage == "amdgcn" and "global_load_ushort" in e.text and e.python_line for e in narrow.evidence)
    reduction = found("row_sums", "TTI001")[0]
    assert "feed no tl.dot" in reduction.why and "tl.range" in reduction.fix


def test_scratch_spills_are_warnings_with_python_lines():
    spill = found("big_spills", "TTI003")[0]
    assert spill.severity == "warning" and "bytes of scratch per lane" in spill.title
    assert any(e.stage == "amdgcn" and e.text.startswith("scratch_") and e.python_line for e in spill.evidence)
    assert "256×256/(64×4) = 256" in spill.fix  # a wave is 64 lanes on CDNA
    report = checked("big_spills")[0]
    assert f"{report['scratch_bytes']} bytes" in spill.title


@pytest.mark.parametrize("case", sorted(CASES))
def test_occupancy_finding_agrees_with_the_facts(case):
    """TTI004 fires exactly where an unpipelined kernel sits below half the wave slots, limited by VGPRs or
    LDS (live_values: 128 VGPRs = 4 waves on 3.9, silent; 129 = 3 waves on 3.6, fires)."""
    report, findings = checked(case)
    fired = any(f.id == "TTI004" for f in findings)
    waves, depth = report["waves_per_simd"], report.fact("pipeline_depth").value
    limit = set((report["occupancy_limit"] or "").split(", "))
    half = report.build.target.amd.max_waves_per_simd / 2
    expected = (isinstance(waves, int) and waves < half and not (isinstance(depth, int) and depth >= 2)
                and (depth is not None or "not applicable" in (report.fact("pipeline_depth").unknown or ""))
                and bool(limit) and limit <= {"VGPRs", "LDS"})
    assert fired == expected, (case, waves, depth, limit, [f.title for f in findings])


def test_register_to_register_spills_are_info():
    report = checked("sgpr_spills")[0]
    if not report["spills"] or report["scratch_bytes"]:
        pytest.skip(f"Triton {report.triton_version} does not spill between registers only here")
    spill = found("sgpr_spills", "TTI003")[0]
    assert spill.severity == "info" and "without memory traffic" in spill.title and "v_writelane" in spill.why


def test_occupancy_fix_is_computed_by_the_calculator():
    report, findings = checked("softmax")
    occupancy = next(f for f in findings if f.id == "TTI004")
    target = report.build.target
    now = workgroups_per_cu(target, vgprs=report["registers"], shared=report["shared_memory"],
                            num_warps=report["num_warps"])
    assert now.waves == report["waves_per_simd"] and f"{now.waves} of 8 waves" in occupancy.title
    cap = int(occupancy.fix.split("≤ ")[1].split()[0])
    after = workgroups_per_cu(target, vgprs=cap, shared=report["shared_memory"], num_warps=report["num_warps"])
    assert after.waves > now.waves
    more = workgroups_per_cu(target, vgprs=cap + 8, shared=report["shared_memory"], num_warps=report["num_warps"])
    assert more.waves == now.waves  # the largest VGPR count that gives one more wave
    assert f"waves_per_eu={after.waves}" in occupancy.fix


def test_a_spilling_kernel_is_not_told_to_cap_registers():
    occupancy = found("big_spills", "TTI004")[0]
    assert occupancy.fix.startswith("Not by capping VGPRs")


def test_lds_limit_in_amd_words():
    error = found("lds_over", "TTI006")[0]
    assert error.severity == "error" and "workgroup" in error.why and "LDS" in error.why


def test_check_cli_on_amd():
    result = CliRunner().invoke(cli, ["check", f"{KERNELS}:matmul", "--signature", UNALIGNED, "--arch", "gfx942",
                                      "--fail-on", "warning"])
    assert result.exit_code == 1 and "TTI001" in result.output and "amdgcn:" in result.output, result.output


def test_a_descriptor_kernel_says_tma_is_nvidia_only():
    """opt_tma (host tensor descriptors) compiles for AMD — Triton lowers the descriptors to plain loads —
    and the report says so in one line; check names the descriptors as what keeps the loads narrow."""
    from ttinspect import inspect

    report = inspect("opt_tma", arch="gfx942")
    assert report["tensor_descriptors"] == "a_desc, b_desc, c_desc → plain loads and stores"
    assert "tensor_descriptors" not in {f.key for f in inspect("opt", arch="gfx942").facts}
    result = CliRunner().invoke(cli, ["report", "opt_tma", "--arch", "gfx942", "--width", "120"])
    assert sum("no TMA on AMD" in line for line in result.output.splitlines()) == 1, result.output
    findings = check_reference("opt_tma", RefOptions({}, {}, None, None, "gfx942"))[1]
    narrow = [f for f in findings if f.id == "TTI005"]
    assert narrow and all("AMD GPUs have no TMA" in f.why for f in narrow)


def test_spill_reloads_are_not_the_kernels_loads():
    """gfx90a spills through plain buffer_load/buffer_store (`; 4-byte Folded Reload`): they count as spills,
    never as the kernel's global loads (which on opt_tma are 16-bit)."""
    from ttinspect import inspect
    from ttinspect.dialects.amdgcn import parse_amdgcn

    report, findings = check_reference("opt_tma", RefOptions({}, {}, None, None, "gfx90a"))
    module = parse_amdgcn(report.build.artifacts.text("amdgcn"))
    spills = [i for i in module.kernel.instructions if i.spill]
    assert spills and all(i.mnemonic.startswith(("buffer_", "scratch_")) for i in spills)
    assert all(not name.startswith("buffer_load_dword") for name, _ in report["gcn_global_loads"])
    for finding in findings:
        if finding.id == "TTI005":
            assert all(e.stage != "amdgcn" or "ushort" in e.text or "short" in e.text for e in finding.evidence)
    assert inspect("opt_tma", arch="gfx90a")["gcn_global_loads"] == report["gcn_global_loads"]


def test_one_wave_workgroups_share_the_simds():
    """A 1-wave workgroup takes one SIMD's slot, not one on every SIMD."""
    from ttinspect.targets.lookup import parse_arch

    target = parse_arch("gfx942")
    one = workgroups_per_cu(target, vgprs=32, shared=0, num_warps=1)
    four = workgroups_per_cu(target, vgprs=32, shared=0, num_warps=4)
    assert four.blocks == 8 and four.waves == 8
    assert one.blocks == 16 and one.waves == 4 and one.limited_by == ("workgroups",)
