"""`ttinspect capture --as ARCH` on a program that builds a CUDA/HIP extension at run time
(torch.utils.cpp_extension.load / load_inline, as flashrnn builds its backends; issue 39 round 5): nothing is
built — the call returns a stand-in whose use is refused naming its line, or, where the library catches the
build's failure, fails so the library takes its Triton fallback — and torch's toolkit paths answer the
target's. The programs are in tests/data/capture_as/; no nvcc, ninja or ROCm is needed (nothing is built)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from cli_helpers import run_process

from ttinspect.capture import read

DATA = Path(__file__).parent / "data" / "capture_as"
SITE = DATA / "runtime_build_site"  # a library as installed (its dist-info lists its files)
ARCHS = ["sm_90", "gfx942"]
NO_TOOLKIT_SAID = {"CUDA_HOME": "", "CUDA_PATH": "", "ROCM_HOME": "", "ROCM_PATH": ""}


def capture(tmp_path: Path, program: str, *argv: str, arch: str, mode: tuple[str, ...] = (),
            env: dict | None = None):
    """`program` (a file of DATA) captured --as `arch`; torch's extension builds would go to tmp_path/extensions."""
    (tmp_path / "prog.py").write_text((DATA / program).read_text())
    return run_process("capture", "--as", arch, *mode, "-o", "run.ttcap", "--", sys.executable, "prog.py", *argv,
                       cwd=tmp_path, env={"TORCH_EXTENSIONS_DIR": str(tmp_path / "extensions"),
                                          "PYTHONPATH": str(SITE), **NO_TOOLKIT_SAID, **(env or {})})


def launches(tmp_path: Path) -> dict[str, int]:
    captured = read(tmp_path / "run.ttcap")
    names = {compile_.id: compile_.name for compile_ in captured.compiles}
    counts: dict[str, int] = {}
    for launch in captured.launches:
        counts[names[launch.compile]] = counts.get(names[launch.compile], 0) + launch.count
    return counts


def notes(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "built at run time" in line and line.startswith("ttinspect: note")]


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize(("builder", "line"), [("load", 25), ("load_inline", 26)])
def test_an_extension_built_at_run_time_is_stood_in_and_nothing_is_built(tmp_path, arch, builder, line):
    done = capture(tmp_path, "builds_at_run_time.py", builder, arch=arch)
    assert done.returncode == 1, done.stderr
    assert notes(done.stderr) == [  # two builds at one line: said once
        f"ttinspect: note: an extension built at run time by torch.utils.cpp_extension.{builder} at prog.py:{line} "
        "(probe_a) is stood in: its kernels are not Triton's and are not recorded; any use fails naming its line"]
    assert "built: ['StandIn', 'StandIn']" in done.stdout
    said = [text for text in done.stderr.splitlines() if text.startswith(f"ttinspect capture --as {arch}:")]
    assert len(said) == 1 and said[0].startswith(f"ttinspect capture --as {arch}: prog.py:33 asks probe_a.sms, ")
    assert f"stands in for: an extension built at run time by torch.utils.cpp_extension.{builder} at prog.py:{line}" \
        in said[0]
    assert launches(tmp_path) == {"double_kernel": 1}  # the program's Triton launch, made before the use
    assert not (tmp_path / "extensions").exists() and "ninja" not in done.stderr  # nothing was built


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("mode", [("--values",), ("--run-kernels",)])
def test_the_stand_in_is_the_same_when_values_are_kept(tmp_path, arch, mode):
    done = capture(tmp_path, "builds_at_run_time.py", "load_inline", arch=arch, mode=mode)
    assert done.returncode == 1, done.stderr
    assert len(notes(done.stderr)) == 1
    assert f"ttinspect capture --as {arch}: prog.py:33 asks probe_a.sms, " in done.stderr
    assert launches(tmp_path) == {"double_kernel": 1}
    assert not (tmp_path / "extensions").exists()


@pytest.mark.parametrize(("arch", "caught", "kind", "line"), [
    *[(arch, "RuntimeError", "RuntimeError", 22) for arch in ARCHS],  # what a failed build raises
    ("sm_90", "OSError", "OSError", 29),                              # what a toolkit not found raises
    ("gfx942", "bare", "RuntimeError", 36)])
def test_a_library_that_catches_the_build_failing_takes_its_triton_fallback(tmp_path, arch, caught, kind, line):
    done = capture(tmp_path, "builds_with_fallback.py", caught, arch=arch)
    assert done.returncode == 0, done.stderr
    assert "path: triton" in done.stdout
    # its import asked include_paths(device_type="cuda"), as flashrnn's cuda_init does: under --as gfx942 that
    # raised "CUDA_HOME environment variable is not set" (a traceback) where an MI300X answers ROCm's path
    assert f"toolkit include: {'/opt/rocm' if arch == 'gfx942' else '/usr/local/cuda'}/include" in done.stdout
    assert notes(done.stderr) == [
        "ttinspect: note: an extension built at run time by torch.utils.cpp_extension.load_inline at "
        f"jit_ops/__init__.py:17 (jit_ops_cuda) is not built under --as: the build fails there with {kind}, which "
        f"jit_ops/__init__.py:{line} catches (its fallback runs, as on a machine where the build fails)"]
    assert launches(tmp_path) == {"scale_kernel": 1}


@pytest.mark.parametrize("arch", ARCHS)
def test_the_users_guard_around_a_librarys_call_is_no_fallback_of_the_librarys(tmp_path, arch):
    """The library builds unguarded: the build is stood in, and the library's own use of it stops the program
    (a refusal is no RuntimeError the user's `except` takes for a failed build)."""
    done = capture(tmp_path, "builds_with_fallback.py", "nothing", arch=arch)
    assert done.returncode == 1
    assert "is stood in" in notes(done.stderr)[0]
    said = [text for text in done.stderr.splitlines() if text.startswith(f"ttinspect capture --as {arch}:")]
    assert len(said) == 1 and "jit_ops/__init__.py:54 asks jit_ops_cuda.scale, " in said[0]


@pytest.mark.parametrize(("arch", "env", "homes"), [
    ("sm_90", {}, ("/usr/local/cuda", None, False, "/usr/local/cuda/include")),
    ("gfx942", {}, (None, "/opt/rocm", True, "/opt/rocm/include")),
    ("sm_90", {"CUDA_PATH": "/toolkits/cuda-12.8"},
     ("/toolkits/cuda-12.8", None, False, "/toolkits/cuda-12.8/include")),
    ("gfx942", {"ROCM_HOME": "/toolkits/rocm-6.3", "CUDA_HOME": "/toolkits/cuda-12.8"},
     (None, "/toolkits/rocm-6.3", True, "/toolkits/rocm-6.3/include"))])
def test_torchs_toolkit_paths_answer_the_targets_vendor_not_this_machine(tmp_path, arch, env, homes):
    """Where the user's environment names no toolkit, the place torch itself falls back to on the target; the
    other vendor's is None, as on the target's torch build (never this machine's nvcc or hipcc)."""
    cuda, rocm, hip, include = homes
    done = capture(tmp_path, "toolkit_homes.py", arch=arch, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"CUDA_HOME {cuda} {cuda}", f"ROCM_HOME {rocm} {rocm}",
                                        f"IS_HIP_EXTENSION {hip}", f"include {include}"]

