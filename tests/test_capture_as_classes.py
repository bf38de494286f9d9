"""`ttinspect capture --as ARCH` on what real libraries' programs do (issue 39, the classes that stopped them):
a custom autograd Function's backward, a package whose __init__ imports its compiled CUDA extension, a program
that asks nvidia-smi, and host code asserting `x.is_cuda` under --run-kernels. Each program is in
tests/data/capture_as/; none of the libraries is needed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import run_process

from ttinspect.capture import read

DATA = Path(__file__).parent / "data" / "capture_as"
SITE = DATA / "extension_site"  # a library as a laptop install has it (its dist-info says it is installed)


def capture(tmp_path: Path, program: str, *extra: str, arch: str = "sm_90", env: dict | None = None):
    (tmp_path / "prog.py").write_text(program)
    return run_process("capture", "--as", arch, *extra, "-o", "run.ttcap", "--", sys.executable, "prog.py",
                       cwd=tmp_path, env=env)


def launches_of(captured, name: str) -> dict:
    """{constexprs as a sorted tuple: launch count} of one kernel."""
    counts: dict = {}
    for compile_ in captured.compiles:
        if compile_.name == name:
            key = tuple(sorted(compile_.constexprs.items()))
            counts[key] = sum(e.count for e in captured.launches if e.compile == compile_.id)
    return counts


def test_a_custom_autograd_functions_backward_runs_and_its_launches_are_recorded(tmp_path):
    """torch's C++ autograd asks each tensor's device for a device guard (a CPU build has no CUDA one: the
    process aborted); the backward now runs, sees cuda tensors, and its kernel's launches are recorded."""
    done = capture(tmp_path, (DATA / "autograd_backward.py").read_text())
    assert done.returncode == 0, done.stderr
    assert "grad cuda:0 (8192,) cuda:0" in done.stdout  # x.grad is a tensor of the device, as on the GPU
    captured = read(tmp_path / "run.ttcap")
    # forward (BLOCK 1024) and backward (BLOCK 256), once through .backward() and once through autograd.grad
    assert launches_of(captured, "scale") == {(("BLOCK", 1024), ("FACTOR", 2)): 2, (("BLOCK", 256), ("FACTOR", 2)): 2}


def test_a_packages_compiled_extension_absent_here_is_stood_in_for(tmp_path):
    done = capture(tmp_path, (DATA / "package_extension.py").read_text(), env={"PYTHONPATH": str(SITE)})
    assert done.returncode == 1
    notes = [line for line in done.stderr.splitlines() if "stood in" in line]
    assert notes == ["ttinspect: note: gpu_ops_cuda is a compiled extension of gpu-ops not installed here "
                     "(imported at gpu_ops/__init__.py:8): stood in; any use fails naming its line",
                     # a submodule of its own package, named like no extension: its name imports, unused
                     "ttinspect: note: gpu_ops.cuda is a module of gpu-ops's own package that its install lacks "
                     "(imported at gpu_ops/sparse.py:3; a compiled extension the install skipped building, or a "
                     "file missing from the wheel): stood in; any use fails naming its line"]
    # the optional one, imported under `except ImportError`, was left missing: the library took its fallback
    assert "optional accelerator: None" in done.stdout
    said = [line for line in done.stderr.splitlines() if line.startswith("ttinspect capture --as")]
    assert len(said) == 1 and "gpu_ops/fused.py:5 asks gpu_ops_cuda.fwd" in said[0]
    assert launches_of(read(tmp_path / "run.ttcap"), "scale_kernel") == {(("BLOCK", 512),): 2}


@pytest.mark.parametrize(("line", "name"), [("import mine_cuda", "mine_cuda"),
                                            ("from gpu_ops import helpers_cuda", "helpers_cuda")])
def test_a_name_the_users_own_code_asks_for_is_not_stood_in(tmp_path, line, name):
    """The user's script's own import (a misspelling, an extension of theirs not built) fails as it would,
    also when it names a module of an installed library's package."""
    (tmp_path / "prog.py").write_text(f"{line}\n")
    done = subprocess.run([sys.executable, "-m", "ttinspect", "capture", "--as", "sm_90", "-o", "run.ttcap", "--",
                           sys.executable, "prog.py"], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(SITE)})
    assert done.returncode == 1
    assert not [said for said in done.stderr.splitlines() if "stood in" in said and name in said]
    assert "ModuleNotFoundError" in done.stderr or "ImportError" in done.stderr


ASKS_NVIDIA_SMI = """\
import subprocess
from triton.testing import nvsmi
print("clock", nvsmi(["clocks.max.sm"]))
print(subprocess.check_output(["nvidia-smi", "--query-gpu=name,compute_cap,count", "--format=csv"], text=True))
print(subprocess.run("nvidia-smi -L", shell=True, capture_output=True, text=True).stdout)
try:
    subprocess.run(["rocm-smi", "--showproductname"])
except FileNotFoundError:
    print("no rocm-smi")
subprocess.check_output(["nvidia-smi", "--query-gpu=memory.used", "--format=csv"])
"""


def test_nvidia_smi_queries_are_answered_in_its_format_and_the_rest_refused(tmp_path):
    done = capture(tmp_path, ASKS_NVIDIA_SMI)
    assert done.returncode == 1
    assert "clock [1980]" in done.stdout
    assert "name, compute_cap, count\nNVIDIA H100 80GB HBM3, 9.0, 1\n" in done.stdout
    assert "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-00000000-0000-0000-0000-000000000000)" in done.stdout
    assert "no rocm-smi" in done.stdout  # an NVIDIA machine has none
    said = [line for line in done.stderr.splitlines() if line.startswith("ttinspect capture --as")]
    assert len(said) == 1 and "prog.py:10 asks the program nvidia-smi" in said[0]
    assert "memory.used: measured on the running GPU" in said[0]


def test_run_kernels_tensors_hold_values_on_the_cpu_and_say_cuda(tmp_path):
    """--run-kernels: host code asserting `x.is_cuda` (a varlen attention path) runs as on the GPU; the
    kernel runs in the interpreter on the CPU's values, and `.cpu()` is a CPU tensor again."""
    done = capture(tmp_path, (DATA / "asserts_cuda.py").read_text(), "--run-kernels",
                   env={"TRITON_INTERPRET": "1"})
    assert done.returncode == 0, done.stderr
    assert "sum 999000.0 cuda:0" in done.stdout
    assert launches_of(read(tmp_path / "run.ttcap"), "double") == {(("BLOCK", 128),): 1}


def test_a_librarys_own_tests_are_the_program_each_launch_recorded_and_the_caught_refusals_said(tmp_path):
    """`capture --as sm_90 -- python -m pytest TESTS`: the tests the user already has are the program. Each
    test's launch is recorded before the test reads values and fails; pytest catches each refusal, so ttinspect
    says at the end, in one line, how many it caught and where the first one was."""
    folder = tmp_path / "lib"
    folder.mkdir()
    for name in ("ops.py", "ops_tests.py"):
        (folder / name).write_text((DATA / "own_tests" / name).read_text())
    done = run_process("capture", "--as", "sm_90", "-o", "run.ttcap", "--", sys.executable, "-m", "pytest", "-q",
                       "-p", "no:cacheprovider", "ops_tests.py", cwd=folder)
    assert done.returncode == 1  # pytest's: its tests failed where they read values
    assert "3 failed" in done.stdout
    said = [line for line in done.stderr.splitlines() if line.startswith("ttinspect capture --as")]
    assert len(said) == 1 and "the program caught 3 question(s)" in said[0], done.stderr
    assert "ops_tests.py:9 asks" in said[0] and "--run-kernels" in said[0]
    # every test's launch (n 1000 and 8192 specialize apart; 4096 fp16), with the H100's branch: BLOCK 1024
    captured = read(folder / "run.ttcap")
    assert len(captured.compiles) == 3 and sum(e.count for e in captured.launches) == 3
    assert {c.constexprs["BLOCK"] for c in captured.compiles} == {1024}


def test_a_refusal_that_ends_the_program_is_said_once(tmp_path):
    """The refusal the program did not catch is said by the exit hook, not again as a caught one."""
    done = capture(tmp_path, "import torch\nprint(torch.ones(4, device='cuda').sum().item())\n")
    assert done.returncode == 1
    said = [line for line in done.stderr.splitlines() if line.startswith("ttinspect capture --as")]
    assert len(said) == 1 and "prog.py:2 asks" in said[0] and "caught" not in said[0], done.stderr


def test_torch_compiled_host_helpers_run_as_plain_python_said_once(tmp_path):
    """`@torch.compile`, `@torch.compile(...)` and a compiled module run as the Python they are (Dynamo would ask
    the RNG state at its first call): the library's own launch after them is recorded, and one note names the
    first compiled thing used and what is not recorded (Inductor's kernels); a function only decorated at import
    and never called is not said (below)."""
    done = capture(tmp_path, (DATA / "compiled_helper.py").read_text())
    assert done.returncode == 0, done.stderr
    assert "out (8, 4096) cuda:0 LayerNorm" in done.stdout
    notes = [line for line in done.stderr.splitlines() if "torch.compile'd" in line]
    # the first compiled thing used: the module, compiled at line 24 (the functions are said when called)
    assert len(notes) == 1 and notes[0].startswith("ttinspect: note: LayerNorm (prog.py:24) is torch.compile'd")
    assert "Inductor would generate" in notes[0]
    assert launches_of(read(tmp_path / "run.ttcap"), "scale") == {(("BLOCK", 1024),): 1}


@pytest.mark.parametrize("read_output", [False, True])
def test_values_torch_computes_are_read_and_a_kernels_output_is_refused(tmp_path, read_output):
    """--values: tensors on "cuda" hold what torch computes on this CPU, so host code reading them (nonzero(), a
    bounds check) runs; the launch is recorded, not run, and what it was given is unknown — its views made
    before it too — while torch goes on with shapes only; reading it is refused naming the launch."""
    (tmp_path / "prog.py").write_text((DATA / "host_values.py").read_text())
    done = run_process("capture", "--as", "sm_90", "--values", "-o", "run.ttcap", "--", sys.executable, "prog.py",
                       *(["--read-output"] if read_output else []), cwd=tmp_path)
    assert "shapes 3276 (1638,) True" in done.stdout and "known 8190.0" in done.stdout
    said = [line for line in done.stderr.splitlines() if line.startswith("ttinspect capture --as")]
    if read_output:
        assert done.returncode == 1 and len(said) == 1, done.stderr
        assert "prog.py:28 asks Tensor.__float__() of values that kernel scale (launched at prog.py:23) may have " \
               "written" in said[0] and "recorded, not run (--run-kernels runs it" in said[0]
    else:
        assert done.returncode == 0 and said == [], done.stderr
    [compile_] = read(tmp_path / "run.ttcap").compiles
    assert compile_.constexprs == {"BLOCK": 1024} and "i32" in compile_.signature  # 3276: not divisible by 16


@pytest.mark.parametrize("flags, said", [(["--values"], "--values needs --as ARCH"),
                                         (["--as", "sm_90", "--values", "--run-kernels"], "not both")])
def test_values_is_refused_without_as_or_with_run_kernels(flags, said):
    from cli_helpers import assert_one_line_error, run_cli

    assert_one_line_error(run_cli("capture", *flags, "-o", "x.ttcap", "--", "true"), 2, said)


def test_under_pytest_the_librarys_extension_is_stood_in_too(tmp_path):
    """pytest imports each test file inside its own `except ImportError` (to report a collection error): that
    is no fallback of the library's, whose import is stood in for as under a plain script."""
    (tmp_path / "ops_check.py").write_text(
        "import torch\nimport gpu_ops\n\n\ndef test_scale():\n    gpu_ops.scale(torch.ones(4096, device='cuda'))\n")
    done = run_process("capture", "--as", "sm_90", "-o", "run.ttcap", "--", sys.executable, "-m", "pytest", "-q",
                       "-p", "no:cacheprovider", "ops_check.py", cwd=tmp_path, env={"PYTHONPATH": str(SITE)})
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr
    assert launches_of(read(tmp_path / "run.ttcap"), "scale_kernel") == {(("BLOCK", 512),): 1}


def test_a_compiled_function_never_called_is_not_said(tmp_path):
    done = capture(tmp_path, "import torch\n\n\n@torch.compile\ndef unused(x):\n    return x + 1\n\n\n"
                             "print(torch.ones(4, device='cuda').shape)\n")
    assert done.returncode == 0 and "torch.compile'd" not in done.stderr, done.stderr


@pytest.mark.parametrize("way", [(), ("--values",)], ids=["no-values", "values"])
def test_a_launch_through_wrap_triton_outside_a_triton_op_is_recorded(tmp_path, way):
    """torch's higher-order op, its tensors nested in a dict (torch 2.11 finds no subclass there and refuses; 2.13
    asks the subclass for a rule): the launch is torch's own eager one, with or without values."""
    pytest.importorskip("torch._higher_order_ops.triton_kernel_wrap")
    done = capture(tmp_path, (DATA / "wrap_triton_launch.py").read_text(), *way)
    assert done.returncode == 0 and "launched cuda:0" in done.stdout, done.stderr
    assert launches_of(read(tmp_path / "run.ttcap"), "scale_kernel") == {(("BLOCK", 1024),): 1}


@pytest.mark.parametrize("way", [(), ("--values",)], ids=["no-values", "values"])
def test_what_host_code_asks_of_a_tensor_after_a_launch(tmp_path, way):
    """torch.Size stays one; a print of a kernel's output prints and goes on; `.backward()` through a Function
    reaches its backward's launch (under --values, a result computed by shape from unknown values keeps its
    history); found on sglang's and native-sparse-attention's own tests."""
    done = capture(tmp_path, (DATA / "tensor_questions.py").read_text(), *way)
    assert done.returncode == 0, done.stderr
    assert "shape Size Size 4096" in done.stdout
    assert "printed tensor(..., device='cuda:0', size=(64, 64)" in done.stdout and "backward done" in done.stdout
    assert launches_of(read(tmp_path / "run.ttcap"), "double_kernel") == {(("BLOCK", 1024),): 2}
    if way:
        assert "[unknown: values that kernel double_kernel (launched at prog.py:" in done.stdout


def test_if_tensor_is_refused_as_the_question_the_program_asked(tmp_path):
    """`if torch.all(...)` is Tensor.__bool__, said so, not as the aten op torch could not run on meta."""
    (tmp_path / "prog.py").write_text((DATA / "tensor_questions.py").read_text())
    done = run_process("capture", "--as", "sm_90", "-o", "run.ttcap", "--", sys.executable, "prog.py", "--bool",
                       cwd=tmp_path)
    assert done.returncode != 0
    assert "prog.py:39 asks Tensor.__bool__() of values that kernel double_kernel (launched at prog.py:22)" \
        in done.stderr, done.stderr  # `y`: the kernel's output
    assert "_local_scalar_dense" not in done.stderr


@pytest.mark.parametrize(("read", "line", "advice"), [
    ("output", 'prog.py:23 asks Tensor.item() of values that kernel add_kernel (launched at prog.py:20) may have '
               'written', "--run-kernels runs it"),
    ("input", "prog.py:22 asks Tensor.__float__() of a tensor on the virtual device", "captured with --values"),
])
def test_a_read_of_a_kernels_output_names_the_kernel_and_the_one_way_that_answers(tmp_path, read, line, advice):
    """Without --values no tensor holds values; a read of what a recorded launch may have written (or of what
    torch computed from it) is answered only by running the kernel: --values, which would refuse it again naming
    the kernel, is not advised (found capturing triton-kernels' own checks)."""
    (tmp_path / "prog.py").write_text((DATA / "reads_kernel_output.py").read_text())
    done = run_process("capture", "--as", "sm_90", "-o", "run.ttcap", "--", sys.executable, "prog.py",
                       *([read] if read == "input" else []), cwd=tmp_path)
    said = " ".join(done.stderr.split())
    assert done.returncode != 0 and line in said and advice in said, done.stderr
    assert ("--values" in said) is (read == "input")


@pytest.mark.parametrize("plain", [False, True], ids=["autotuned", "plain-launch-too"])
def test_a_grid_that_refuses_a_config_is_the_programs_own_error(tmp_path, plain):
    """flashrnn's grid raises OutOfResources for a config that cannot serve the batch: Triton's benchmarker
    times it inf, so the autotuner takes the first config that can run (here the last listed), with no warning;
    a plain launch whose grid raises raises it, as the JIT's would, and nothing is counted for it."""
    (tmp_path / "prog.py").write_text((DATA / "grid_skips_configs.py").read_text())
    # the program's own traceback is what the GPU run prints too: run without run_process's "no traceback"
    done = subprocess.run([sys.executable, "-m", "ttinspect", "capture", "--as", "sm_90", "-o", "run.ttcap", "--",
                           sys.executable, "prog.py", *(["plain"] if plain else [])], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert "launched" in done.stdout and "skipped a record" not in done.stderr, done.stderr
    assert launches_of(read(tmp_path / "run.ttcap"), "step_kernel") == \
        {(("SIZE", 16),): 1, (("SIZE", 32),): 0, (("SIZE", 64),): 0}
    if plain:
        assert done.returncode != 0 and "OutOfResources" in done.stderr
    else:
        assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("way", [(), ("--values",), ("--run-kernels",)], ids=["no-values", "values", "run-kernels"])
def test_a_device_named_by_keyword_is_the_device(tmp_path, way):
    """`torch.device(device="cuda")` and `Module.to(device="cuda")` named the meta device inside (the keyword was
    taken for a factory's); with values on the CPU a moved module's parameters said `cpu` (torch set their data,
    dropping the face); found on flashinfer's and modelopt's own tests."""
    done = capture(tmp_path, (DATA / "device_keywords.py").read_text(), *way)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    if not way:  # without values torch replaces each parameter (a new one, on the meta device inside): not asked
        lines = [line.rsplit(" ", 1)[0] if line.endswith(" False") else line for line in lines]
    kept = " True" if way else ""
    assert lines == [
        "constructed cuda cuda:0 cuda", f"kw device+dtype: cuda:0 torch.bfloat16{kept}",
        f"kw device: cuda:0 torch.float32{kept}", f"positional: cuda:0 torch.float32{kept}",
        f"cuda(): cuda:0 torch.float32{kept}"]


def test_a_parameter_named_like_a_launch_option_is_the_option_too(tmp_path):
    """Triton's JIT parses every launch keyword as options as well as binding it: the record's num_stages is the
    one given (2), not the default (3) — found on flashinfer's kernels."""
    done = capture(tmp_path, (DATA / "param_named_like_option.py").read_text())
    assert done.returncode == 0, done.stderr
    [compile_] = [c for c in read(tmp_path / "run.ttcap").compiles if c.name == "fill_kernel"]
    assert compile_.constexprs["num_stages"] == 2 and compile_.options["num_stages"] == 2
