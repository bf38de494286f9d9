"""`ttinspect capture --as ARCH` on what a second round of never-used libraries' programs do (issue 39): a
backend picked through torch.accelerator at import, `nn.Module.to("cuda")` (a device given positionally), a
custom operator whose own code allocates on its input's device; and the measurement script's one line for a
failure; a custom operator's autograd formula, on the device and under --run-kernels (a library's own test
script, round 3). Each program is in tests/data/capture_as/; none of the libraries is needed."""

from __future__ import annotations

import functools
import importlib.util
import sys
from pathlib import Path

import pytest
from cli_helpers import run_process

from ttinspect.capture import read

DATA = Path(__file__).parent / "data" / "capture_as"
SCRIPT = Path(__file__).parent.parent / "scripts" / "real_libraries.py"


def capture(tmp_path: Path, program: str, arch: str):
    (tmp_path / "prog.py").write_text((DATA / program).read_text())
    done = run_process("capture", "--as", arch, "-o", "run.ttcap", "--", sys.executable, "prog.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return done


@pytest.mark.parametrize("arch", ["sm_90", "gfx942"])
def test_torch_accelerator_answers_as_the_targets_torch_build(tmp_path, arch):
    """A CUDA or ROCm build of torch names its accelerator cuda (ROCm's torch calls its device cuda)."""
    out = capture(tmp_path, "accelerator.py", arch).stdout.splitlines()
    assert out == ["accelerator cuda cuda", "available True count 1 index 0", "allocated before 0",
                   "stream cuda:0", "module torch.cuda"]


@pytest.mark.parametrize("arch", ["sm_90", "gfx942"])
def test_a_device_given_positionally_stays_in_its_place(tmp_path, arch):
    """`t.to(device, dtype_or_None, non_blocking)`: the device is replaced where it stands, so the dtype and
    the flag keep theirs (dropping it made `.to(None, False)`, a TypeError)."""
    out = capture(tmp_path, "module_to.py", arch).stdout.splitlines()
    assert out == ["layer cuda:0 torch.float32", "half cuda:0 torch.float16", "y cuda:0 torch.float32 True",
                   "z torch.bfloat16 cuda:0", "out torch.Size([4, 8]) cuda:0"]


def test_a_custom_ops_own_allocation_is_made_on_the_device(tmp_path):
    """The op's code runs while torch has taken the mode that makes device tensors off its stack: it is put
    back around the op's code, so `torch.empty(..., device=x.device)` there is a tensor of the device."""
    done = capture(tmp_path, "custom_op_allocates.py", "sm_90")
    assert "handle cuda:0\nops cuda:0\n" in done.stdout
    captured = read(tmp_path / "run.ttcap")
    [compile_] = [c for c in captured.compiles if c.name == "twice_kernel"]
    assert sum(e.count for e in captured.launches if e.compile == compile_.id) == 2


@pytest.mark.parametrize("values", [False, True], ids=["as", "run-kernels"])
def test_a_custom_ops_autograd_formula_is_its_backward_on_the_device(tmp_path, values):
    """An op with `register_autograd`: its output has the formula's grad_fn (its code ran, not torch's
    dispatch of it), so `.backward()` reaches the registered backward and its launch, with `setup_context`
    given the keyword-only inputs as torch gives them. Under --run-kernels the op's own allocation is made on
    the CPU (it reached torch's absent CUDA backend) and both kernels compute: 3 x 4096 twice."""
    (tmp_path / "prog.py").write_text((DATA / "custom_op_autograd.py").read_text())
    extra = ["--run-kernels"] if values else []
    done = run_process("capture", "--as", "sm_90", *extra, "-o", "run.ttcap", "--", sys.executable, "prog.py",
                       *(["--values"] if values else []), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "grad_fn True cuda:0" in done.stdout
    if values:
        assert "sums 12288.0 12288.0" in done.stdout
    captured = read(tmp_path / "run.ttcap")
    blocks = {c.constexprs["BLOCK"]: c.id for c in captured.compiles if c.name == "scale_kernel"}
    assert sorted(blocks) == [256, 1024]  # the forward's and the backward's (setup_context's block // 4)
    assert all(sum(e.count for e in captured.launches if e.compile == id_) == 1 for id_ in blocks.values())


@functools.cache
def _real_libraries():
    spec = importlib.util.spec_from_file_location("real_libraries_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


DISPATCH_ERROR = """\
Traceback (most recent call last):
  File "prog.py", line 3, in <module>
    f()
NotImplementedError: Could not run 'aten::empty.memory_format' with arguments from the 'CUDA' backend.

CPU: registered at /pytorch/build/RegisterCPU.cpp:1 [kernel]
PythonDispatcher: registered at /pytorch/aten/src/ATen/core/PythonFallbackKernel.cpp:196 [backend fallback]

ttinspect: captured 0 compile(s) and 0 launch(es) from 1 Python process(es) into run.ttcap
"""
CHAINED = """\
Traceback (most recent call last):
  File "a.py", line 1, in <module>
KeyError: 'x'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "a.py", line 3, in <module>
    raise ValueError("no x")
ValueError: no x
"""


@pytest.mark.parametrize(("text", "line"), [
    (DISPATCH_ERROR, "NotImplementedError: Could not run 'aten::empty.memory_format' with arguments from the "
                     "'CUDA' backend."),
    (CHAINED, "ValueError: no x"),
    ("ttinspect: error: no such file\n", "ttinspect: error: no such file"),
    ("some output\nlast words\n", "last words"),
])
def test_the_failures_line_is_the_exceptions_own(text, line):
    assert _real_libraries().one_line(text) == line


def test_the_measurements_manifest_takes_a_librarys_own_tests_as_its_program(tmp_path):
    """scripts/real_libraries.py: a kernel may be reached by the library's own program (its tests, run in its
    unpacked source distribution); a program without `tests_from = "sdist"` has nowhere to run."""
    script = _real_libraries()
    manifest = tmp_path / "m.toml"
    manifest.write_text('[[library]]\nname = "lib"\nversion = "1.0"\npip = "pip install lib"\ntests_from = "sdist"\n'
                        '[[library.kernel]]\nkernel = "k"\nfile = "k.py"\nprogram = "python -m pytest tests -q"\n')
    _, [library] = script.load(manifest)
    assert library.tests_from == "sdist" and library.kernels[0].program == "python -m pytest tests -q"
    manifest.write_text(manifest.read_text().replace('tests_from = "sdist"\n', ""))
    with pytest.raises(script.ManifestError, match="a program runs in the library's source"):
        script.load(manifest)
