"""False alarms found on real library kernels, each fixed by its class (tests/data/false_alarms/kernels.py,
written in the style of serving-engine attention, quantization and norm kernels): for every class the rule
stays quiet — or stops advising what the kernel cannot change — on the kernel that has the pattern, and still
fires on its counterpart.

- TTI002: a dot whose M rows the kernel's indexing sets (a decode kernel's heads per KV group) is not told to
  "set BLOCK_M to 64"; a tile of the grid (pid × BLOCK_M + arange) still is, with the kernel's own name.
- TTI005: a broadcast load (`absmax[offs // 32]`) is not narrow; a pitch the layout fixes (`n_cols + 1`, a
  stride given as 4097) is not told to declare `:16`; an unknown stride's advice is conditional.
- TTI007: a tile addressed through a table read in the loop (a paged KV cache) is excepted; dense tiles are not.
- TTI001: a value given in --signature counts for the trip count, as --arg's does.
- A loop LLVM unrolled whole is one story: the kernel's depth and the loop's group both say so.
- TTI006 on a kernel without a dot names its own block constexprs, with no matmul words.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_helpers import run_cli

from ttinspect import inspect
from ttinspect.check import check_reference
from ttinspect.kernel.arguments import signature_values
from ttinspect.refs.resolver import RefOptions

KERNELS = Path(__file__).parent / "data" / "false_alarms" / "kernels.py"

_FOUND: dict[tuple, tuple] = {}


def findings(kernel: str, signature: str, arch: str = "sm_90", *, args: tuple[str, ...] = (),
             settings: tuple[str, ...] = ()) -> tuple:
    key = (kernel, signature, arch, args, settings)
    if key not in _FOUND:
        options = RefOptions.from_cli(settings, args, signature, None, arch)
        _FOUND[key] = check_reference(f"{KERNELS}:{kernel}", options)[1]
    return _FOUND[key]


def of(rule: str, found) -> list:
    return [f for f in found if f.id == rule]


# --- TTI002: whose M it is ------------------------------------------------------------------------------------

GQA = "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, {group}, 16, 64, 64"
PAGED = "*fp16:16, *fp16:16, *i32:16, *fp32:16, i32, i32:16, i32:16, i32:16, 16, 64, 64"


@pytest.mark.parametrize("kernel, signature, because", [
    ("gqa_decode", GQA.format(group=4), "the rows step by 4 per program while the tile has 16"),
    ("gqa_decode", GQA.format(group=16), "each program's rows are masked to arange(0, 16) < 16"),
    ("paged_decode", PAGED, "no program id moves the rows"),
])
def test_mma_path_does_not_advise_a_tile_the_kernel_sets(kernel, signature, because):
    (finding,) = of("TTI002", findings(kernel, signature))
    assert finding.severity == "info"
    assert "M is not a free tile size here" in finding.why and because in finding.why
    assert "Set BLOCK" not in finding.fix and "None within this kernel's indexing" in finding.fix


def test_mma_path_still_advises_a_tile_of_the_grid():
    (finding,) = of("TTI002", findings("attn_rows", "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, "
                                                    "32, 64, 64"))
    assert finding.severity == "warning" and finding.fix == "Set BLOCK_M to 64."


# --- TTI005: narrow by the data's shape, not by a missing hint ----------------------------------------------------

DEQUANT = "*i8, *fp32, *fp16:16, i32:16, 1024, 32"


def test_a_broadcast_load_is_not_narrow():
    lines = {f.title.split(" on line ")[1].split()[0] for f in of("TTI005", findings("dequant_blockwise", DEQUANT))}
    assert lines == {"67"}  # the unaligned int8 data (line 67) still fires; absmax[offs // 32] (line 68) does not


def test_a_pitch_the_kernel_adds_to_is_not_a_hint_to_declare():
    found = {f.title.split(" on line ")[1].split()[0]: f
             for f in of("TTI005", findings("packed_rows", "*fp32:16, *fp32:16, i32, 1024"))}
    load, store = found["79"], found["80"]  # x at row * (n_cols + 1); out at row * n_cols
    assert load.severity == "info" and "n_cols + 1" in load.fix and "i32:16" not in load.fix
    assert "Then each thread" not in load.fix
    assert store.severity == "warning" and "n_cols `i32:16`" in store.fix
    (hinted,) = of("TTI005", findings("packed_rows", "*fp32:16, *fp32:16, i32:16, 1024"))
    assert hinted.severity == "info" and "Nothing to declare" in hinted.fix and "n_cols + 1" in hinted.why


@pytest.mark.parametrize("args, severity, advice", [
    ((), "warning", "If stride_x is divisible by 16 at launch, say so"),
    (("stride_x=4097",), "info", "stride_x = 4097 at launch, not a multiple of 16"),
])
def test_stride_advice_is_conditioned_on_what_the_launch_gives(args, severity, advice):
    found = of("TTI005", findings("strided_rows", "*fp32:16, *fp32:16, i32:16, i32, i32:16, 1024", args=args))
    (load,) = [f for f in found if f.title.startswith("loads")]
    assert load.severity == severity and advice in load.fix


# --- TTI007: indirect addresses ----------------------------------------------------------------------------------

def test_a_tile_read_through_a_block_table_is_excepted():
    assert not of("TTI007", findings("paged_decode", PAGED))


def test_a_dense_streamed_tile_still_gets_the_tma_advice():
    (finding,) = of("TTI007", findings("attn_rows", "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, "
                                                    "32, 64, 64"))
    assert "tensor descriptors" in finding.fix and "excepted" not in finding.title


# --- TTI001: values given in --signature ------------------------------------------------------------------------

RMS = "*fp16:16, *fp16:16, *fp16:16, {n}, {n}, {eps}, 4096"


@pytest.mark.parametrize("signature, args, fires", [
    (RMS.format(n="i32:16", eps="fp32"), (), True),
    (RMS.format(n=4096, eps="1e-6"), (), False),  # one trip: n_cols = BLOCK_SIZE, given in --signature
    (RMS.format(n="i32:16", eps="fp32"), ("n_cols=4096",), False),  # the same value given with --arg
    (RMS.format(n=8192, eps="1e-6"), (), True),  # two trips: still a finding, with its count
])
def test_signature_values_count_for_the_trip_count(signature, args, fires):
    found = of("TTI001", findings("rms_rows", signature, args=args, settings=("num_stages=3",)))
    assert bool(found) is fires
    if found and "8192" in signature:
        assert "It runs 2 times for the values given" in found[0].why
    elif found:
        assert "or the value in its place in --signature" in found[0].fix


def test_signature_values_by_name():
    assert signature_values("*fp16:16, 4096, i32:16, 0.5, 64", ["x", "N", "K", "eps", "BLOCK"]) == {
        "N": 4096, "eps": 0.5, "BLOCK": 64}


# --- a loop LLVM unrolled whole: one story ----------------------------------------------------------------------

def _loop_facts(kernel: str, signature: str) -> dict:
    report = inspect(f"{KERNELS}:{kernel}", arch="sm_90", signature=signature)
    return {f.key: f for f in report.facts}


def test_an_unrolled_loop_is_one_story():
    facts = _loop_facts("unrolled_sum", "*fp32:16, *fp32:16, 256")
    depth = facts["pipeline_depth"]
    assert depth.value is None and "LLVM unrolled loop 1 (line 98, 4 trips) whole" in depth.unknown
    assert depth.unknown.startswith("not applicable")
    loop = facts["loop1.pipeline_depth"]
    assert loop.group.endswith("unrolled whole by LLVM") and loop.unknown.startswith("not applicable: LLVM unrolled")
    assert all(f.unknown != "no PTX loop runs this loop" for f in facts.values() if f.key.startswith("loop1."))
    text = run_cli("report", f"{KERNELS}:unrolled_sum", "--arch", "sm_90", "--signature", "*fp32:16, *fp32:16, 256",
                   env={"NO_COLOR": "1", "COLUMNS": "160"}).output
    assert "loop 1 · line 98 · loop, unrolled whole by LLVM" in text


def test_a_loop_with_a_runtime_bound_is_not_called_unrolled():
    facts = _loop_facts("rms_rows", RMS.format(n="i32:16", eps="fp32"))
    assert not any("unrolled" in f.group or "unrolled" in (f.unknown or "") for f in facts.values())


# --- TTI006: advice in the kernel's own words -------------------------------------------------------------------

def test_shared_memory_advice_names_a_softmax_own_blocks():
    (finding,) = of("TTI006", findings("softmax_2d", "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, 256, 1024",
                                       settings=("num_warps=8",)))
    assert finding.severity == "error" and "Use smaller ROWS/COLS" in finding.fix
    assert "ROWS × COLS = 256 × 1024" in finding.fix
    assert not any(word in finding.fix for word in ("BLOCK_M", "BLOCK_N", "BLOCK_K", "epilogue"))
