"""`ttinspect capture --as ARCH` (issue 39): a program captured on this CPU as the target's GPU would run it —
the host code takes the target's branches, every launch is recorded (specialized as on the GPU, its grid
evaluated) and none runs, every config an autotuner would time is recorded untimed, and what needs values is
refused in one line naming the program's line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from cli_helpers import assert_one_line_error, run_cli, run_cli_ok, run_process

from ttinspect.capture import read

DATA = Path(__file__).parent / "data" / "capture_as"  # the kernels and the program (the GPU runs them too:
KERNELS = (DATA / "kern.py").read_text()                 # scripts/device_capture_as.py)
PROGRAM = (DATA / "prog.py").read_text()
NEEDS_VALUES = PROGRAM + "print(float(out.sum().item()))\n"


def capture_as(tmp_path: Path, arch: str, program: str = PROGRAM, *extra: str):
    (tmp_path / "kern.py").write_text(KERNELS)
    (tmp_path / "prog.py").write_text(program)
    return run_process("capture", "--as", arch, *extra, "-o", "run.ttcap", "--", sys.executable, "prog.py",
                       cwd=tmp_path, env={"TRITON_INTERPRET": "1"})  # --as runs nothing: the interpreter is off


@pytest.fixture(scope="module", params=["sm_90", "gfx942"])
def captured(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp(f"as-{request.param}")
    done = capture_as(folder, request.param)
    assert done.returncode == 0, done.stderr
    return request.param, folder, done, read(folder / "run.ttcap")


def compiles_of(capture, name):
    return [c for c in capture.compiles if c.name == name]


def test_the_host_code_saw_the_target_and_no_kernel_ran(captured):
    arch, _, done, capture = captured
    assert "device cuda:0 block 1024" in done.stdout  # the target's branch, at the real size, in seconds
    assert capture.header.as_target == arch and capture.header.kernels_run is False
    assert not capture.header.interpreter
    expected = {"backend": "hip", "arch": "gfx942", "warp_size": 64} if arch == "gfx942" else \
        {"backend": "cuda", "arch": 90, "warp_size": 32}
    assert all(c.target == expected for c in capture.compiles)
    # nothing was compiled while the program ran: no compile has a Triton cache entry of the run
    assert all(c.triton_cache_key is None for c in capture.compiles)
    add = compiles_of(capture, "add_kernel")
    assert len(add) == 1 and add[0].constexprs == {"BLOCK": 1024}
    launches = [entry for entry in capture.launches if entry.compile == add[0].id]
    assert sum(entry.count for entry in launches) == 3
    assert [tuple(g) for entry in launches for g in entry.grids] == [(16384, 1, 1)]


def test_every_config_the_autotuner_would_time_is_recorded_untimed(captured):
    _, _, _, capture = captured
    relu = compiles_of(capture, "relu_kernel")
    # 4 configs (the pruner asked the target's shared memory: all fit) x 2 tuning keys
    assert len(relu) == 8
    assert {c.constexprs["BLOCK"] for c in relu} == {256, 1024}
    assert {c.options["num_warps"] for c in relu} == {4, 8}
    tunings = capture.autotune
    assert len(tunings) == 2
    for tuning in tunings:
        assert tuning.best is None, "without timings the autotuner's choice is not known"
        assert tuning.timings_ms is not None and set(tuning.timings_ms) == {None}
        assert len(tuning.compiles) == 4
    # the heuristic ran on the launch's values: EVEN for 2**20 elements, not for 1000
    assert {c.constexprs["EVEN"] for c in relu} == {True, False}


def test_a_view_at_an_odd_offset_is_specialized_as_on_the_gpu(captured):
    _, _, _, capture = captured
    odd = [c for c in compiles_of(capture, "relu_kernel") if c.constexprs["EVEN"] is False]
    even = [c for c in compiles_of(capture, "relu_kernel") if c.constexprs["EVEN"] is True]
    assert all(c.signature.startswith("*fp32, *fp32, i32,") for c in odd)  # f[1:]: 4 bytes in; 1000 % 16 != 0
    assert all(c.signature.startswith("*fp32:16, *fp32:16, i32:16,") for c in even)


def test_the_listing_says_how_the_capture_was_made(captured):
    arch, folder, _, _ = captured
    listing = json.loads(run_cli_ok("list", folder / "run.ttcap", "--json"))
    assert listing["run"]["made"].startswith(f"captured as {arch} on a CPU")
    assert "recorded, not run" in listing["run"]["made"]
    text = run_cli_ok("list", folder / "run.ttcap", "--width", 200)
    assert f"captured as {arch} on a CPU" in " ".join(text.split())
    assert "not timed" in text


def test_a_captured_kernel_compiles_offline_as_the_file_does(captured):
    """The record is the launch: its report equals the same kernel given by file and signature."""
    arch, folder, _, capture = captured
    add = compiles_of(capture, "add_kernel")[0]
    from_capture = run_cli_ok("dump", f"{folder / 'run.ttcap'}:add_kernel", "--stage", "ttgir")
    by_file = run_cli_ok("dump", f"{folder / 'kern.py'}:add_kernel", "--arch", arch, "--signature",
                         add.signature, "--stage", "ttgir")
    body = lambda text: [line for line in text.splitlines() if line.startswith(("  ", "tt.", "module"))]  # noqa: E731
    assert body(from_capture) and body(from_capture) == body(by_file)


def test_a_program_that_reads_values_stops_in_one_line_naming_its_line(tmp_path):
    done = capture_as(tmp_path, "sm_90", NEEDS_VALUES)
    assert done.returncode == 1
    said = [line for line in done.stderr.splitlines() if line.startswith("ttinspect capture --as")]
    assert len(said) == 1 and "prog.py:" in said[0] and "item()" in said[0] and "--run-kernels" in said[0]
    assert "Traceback" not in done.stderr
    # what ran before the refusal is kept
    assert compiles_of(read(tmp_path / "run.ttcap"), "add_kernel")


@pytest.mark.parametrize(("args", "fragment"), [
    (["--run-kernels"], "--run-kernels needs --as ARCH"),
    (["--device-props", "num_sms=100"], "--device-props needs --as ARCH"),
    (["--as", "sm_12"], "sm_12"),
    (["--as", "gfx942", "--device-props", "cuda_version=12.8"], "cuda_version"),
])
def test_bad_options_are_one_line(tmp_path, args, fragment):
    result = run_cli("capture", *args, "-o", tmp_path / "x.ttcap", "--", sys.executable, "-c", "pass")
    assert_one_line_error(result, 2, fragment)
    assert not (tmp_path / "x.ttcap").exists()


def test_the_gpu_run_launched_what_the_cpu_capture_records(captured):
    """scripts/device_capture_as.py ran prog.py on the GPU machine under a real capture and under --as sm_90:
    the same compiles, each --as record's offline PTX the GPU run's. The capture made here, on a CPU, records
    the same compiles as that GPU run did."""
    arch, _, _, capture = captured
    if arch != "sm_90":
        pytest.skip("the GPU machine's run is an sm_90 one")
    result = json.loads((DATA / "h200_capture_as_gpu.json").read_text())
    assert result["runs"]["gpu"]["exit"] == 0 and result["device"]["arch"] == 90
    assert result["only_on_gpu"] == []
    assert all(row["on_gpu"] and row["ptx"] == "identical" for row in result["rows"])
    on_gpu = {(row["signature"], json.dumps(row["constexprs"], sort_keys=True)) for row in result["rows"]}
    here = {(c.signature, json.dumps(c.constexprs, sort_keys=True)) for c in capture.compiles}
    assert here == on_gpu


def test_run_kernels_runs_them_in_the_interpreter_with_the_targets_answers(tmp_path):
    """--run-kernels: a program that reads what its kernels compute; "cuda" tensors are the CPU's, with values."""
    small = NEEDS_VALUES.replace("4096 * 4096", "4096").replace("out.sum()", "out.float().sum()")
    done = capture_as(tmp_path, "sm_90", small, "--run-kernels")
    assert done.returncode == 0, done.stderr
    assert "block 1024" in done.stdout  # the target's branch; the value printed after it was computed
    float(done.stdout.split()[-1])
    capture = read(tmp_path / "run.ttcap")
    assert capture.header.as_target == "sm_90" and capture.header.kernels_run and capture.header.interpreter
    assert all(c.target == {"backend": "cuda", "arch": 90, "warp_size": 32} for c in capture.compiles)
    # every config the autotuner would time is recorded, none of them run for timing (4 configs x 2 keys)
    assert len(compiles_of(capture, "relu_kernel")) == 8
    listing = run_cli_ok("list", tmp_path / "run.ttcap", "--width", 200)
    assert "kernels run in Triton's interpreter" in " ".join(listing.split())  # the header wraps where its paths end


AUTOTUNED_ON_CPU = """\
import torch
from kern import add_kernel
import triton

configs = [triton.Config({"BLOCK": b}) for b in (32, 64, 128)]
tuned = triton.autotune(configs=configs, key=["n"])(triton.jit(add_kernel.fn))
x = torch.ones(300)
out = torch.zeros(300)
tuned[lambda meta: (triton.cdiv(300, meta["BLOCK"]),)](x, x, out, 300)
assert out.sum().item() == 600, out.sum()
print("ok")
"""


def test_an_autotuned_kernel_under_the_interpreter_is_captured_without_a_gpu(tmp_path):
    """Triton's autotuner asks the GPU driver for a timer ("0 active drivers" on a CPU): under the interpreter
    each config is recorded, not timed, and the first one runs (its result is the program's)."""
    (tmp_path / "kern.py").write_text(KERNELS)
    (tmp_path / "prog.py").write_text(AUTOTUNED_ON_CPU)
    done = run_process("capture", "-o", "run.ttcap", "--", sys.executable, "prog.py", cwd=tmp_path,
                       env={"TRITON_INTERPRET": "1"})
    assert done.returncode == 0 and "ok" in done.stdout, done.stderr
    capture = read(tmp_path / "run.ttcap")
    assert sorted(c.constexprs["BLOCK"] for c in compiles_of(capture, "add_kernel")) == [32, 64, 128]
    assert sum(entry.count for entry in capture.launches) == 1
    assert "captured under Triton's interpreter with no GPU" in capture.header.made()
    said = " ".join(run_cli_ok("report", tmp_path / "run.ttcap:add_kernel#1", "--width", 100).split())
    assert "the host code took its CPU branches" in said


@pytest.mark.parametrize("command", ["report", "check"])
def test_every_reader_of_a_kernel_says_how_it_was_captured(captured, command):
    arch, folder, _, _ = captured
    text = " ".join(run_cli_ok(command, f"{folder / 'run.ttcap'}:add_kernel", "--width", 100).split())
    assert f"captured as {arch} on a CPU (the target's virtual device answered, kernels recorded, not run)" in text


def test_a_launch_inside_a_custom_operator_is_recorded(tmp_path):
    """On a tensor without values torch runs a custom operator's fake; the operator's own code runs instead,
    so the Triton launch inside it is recorded."""
    (tmp_path / "prog.py").write_text((DATA / "custom_op.py").read_text())
    done = run_process("capture", "--as", "sm_90", "-o", "run.ttcap", "--", sys.executable, "prog.py", cwd=tmp_path)
    assert done.returncode == 0 and "ran" in done.stdout, done.stderr
    capture = read(tmp_path / "run.ttcap")
    assert [(c.name, c.constexprs) for c in capture.compiles] == [("scale", {"BLOCK": 512})]
    assert sum(entry.count for entry in capture.launches) == 1


def test_a_const_pointer_is_recorded_and_compiled_const(tmp_path):
    """`w_ptr: tl.const` is typed *k<dtype> by the JIT: the record says *bf16:16 (--signature's grammar) and the
    compile makes it const again from the annotation, as the GPU's JIT did."""
    (tmp_path / "prog.py").write_text((DATA / "const_pointer.py").read_text())
    done = run_process("capture", "--as", "sm_90", "-o", "run.ttcap", "--", sys.executable, "prog.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (record,) = read(tmp_path / "run.ttcap").compiles
    assert record.signature == "*bf16:16, *bf16:16, i32:16, 1024"
    ttir = run_cli_ok("dump", f"{tmp_path / 'run.ttcap'}:scale_rows", "--stage", "ttir", "--no-header")
    # Triton 3.9 prints the const pointer's address space; 3.6 types it *kbf16 without printing it
    # (tests/test_specialize.py holds the *k typing against each release's own specializer)
    assert "%w_ptr: !tt.ptr<bf16" in ttir and '%x_ptr: !tt.ptr<bf16, "constant">' not in ttir
