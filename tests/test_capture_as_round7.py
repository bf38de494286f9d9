"""Round 7 (issue 39): what libraries ttinspect had never used (axolotl, fastvideo, xfuser, trifast) met when their
own tests ran under `capture --as` — each class with a program of our own under tests/data/capture_as/round7/."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from cli_helpers import run_cli_ok, run_process

from ttinspect.capture import read

DATA = Path(__file__).parent / "data" / "capture_as" / "round7"


def captured_run(tmp_path: Path, *command: str, cwd: Path | None = None):
    return run_process("capture", "--as", "sm_90", "-o", str(tmp_path / "run.ttcap"), "--", *command,
                       cwd=cwd or tmp_path)


def launch_count(path: Path, name: str) -> int:
    captured = read(path)
    ids = {c.id for c in captured.compiles if c.name == name}
    return sum(e.count for e in captured.launches if e.compile in ids)


def test_host_code_of_inference_optimizers_opcheck_and_guards_runs_as_on_the_target(tmp_path):
    shutil.copy(DATA / "host_answers.py", tmp_path / "prog.py")
    done = captured_run(tmp_path, sys.executable, "prog.py")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # a view in inference mode of a tensor made outside it (torch: a normal tensor), then launched
    assert "inference view (1, 11, 96)" in out
    # in-place shape changes show through (resize_ growing the tensor too)
    for name in ("as_strided_", "resize_", "unsqueeze_", "t_"):
        assert any(line.startswith(f"{name} ") and line.endswith("True") for line in out.splitlines()), out
    assert "optimizer stepped" in out and "dynamo reset" in out
    # free memory as a fresh H100 80GB answers: the guard skips the 80 GiB case there, as on the GPU
    assert "free 84480622592 total 85017493504" in out and "skips the 80 GiB case" in out
    assert "mem_get_info() answered as NVIDIA H100 80GB HBM3, for sm_90 alone with this program" in done.stderr
    assert "opcheck's way (4096,)" in out
    assert "generator cuda:0 True True" in out  # a CUDA generator, and torch's own still a Generator
    assert "default device cuda:0" in out  # torch.set_default_device("cuda"): factories without device=
    assert launch_count(tmp_path / "run.ttcap", "scale_kernel") == 5


def test_a_skip_guard_asking_free_memory_at_collection_leaves_the_session_whole(tmp_path):
    shutil.copy(DATA / "own_tests_guarded" / "guarded_tests.py", tmp_path / "guarded_tests.py")
    done = captured_run(tmp_path, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "guarded_tests.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 1 skipped" in done.stdout
    assert launch_count(tmp_path / "run.ttcap", "add_one") == 1


def test_a_kernel_in_a_namespace_folder_of_a_package_keeps_its_relative_imports(tmp_path):
    site = tmp_path / "site"
    shutil.copytree(DATA / "namespace_site", site)
    done = captured_run(tmp_path, sys.executable, "prog.py", cwd=site)
    assert done.returncode == 0, done.stderr
    # the capture's kernel, and the file itself, are imported as mylib.kernels.scale (its `from .helpers`)
    report = run_cli_ok("report", f"{tmp_path / 'run.ttcap'}:scale", "--json")
    assert '"registers"' in report
    by_file = run_cli_ok("report", f"{site / 'mylib' / 'kernels' / 'scale.py'}:scale", "--signature",
                         "*fp32, 4096, 1024", "--arch", "sm_90", "--json")
    assert '"registers"' in by_file


def test_a_stride_the_launches_gave_says_what_the_access_is(tmp_path):
    # TTI005 on a runtime stride: the capture's recorded value (0: a broadcast; 4096: a strided view) is the cause,
    # said as such, where without a value it asks whether the stride is 1 at launch
    shutil.copy(DATA / "broadcast_gradient.py", tmp_path / "prog.py")
    done = captured_run(tmp_path, sys.executable, "prog.py")
    assert done.returncode == 0, done.stderr
    broadcast = run_cli_ok("check", f"{tmp_path / 'run.ttcap'}:scale#1", "--width", "200")
    assert "stride_x = 0 at launch: every element of the access is one address" in broadcast, broadcast
    strided = run_cli_ok("check", f"{tmp_path / 'run.ttcap'}:scale#2", "--width", "200")
    assert "stride_x = 4096 at launch: the elements are that far apart" in strided, strided
    assert "pass the unit stride as 1" not in (broadcast + strided).lower()


def test_an_import_made_by_another_modules_compiled_code_is_not_blamed_on_the_statement(tmp_path):
    # pyarrow's `import pyarrow.lib` (compiled: no Python frame) tries `import cloudpickle` under its own guard;
    # the nearest Python line is the statement importing pyarrow.lib, which does not name cloudpickle
    from ttinspect.virtual.extension_stand_in import _names

    source = tmp_path / "init.py"
    source.write_text("import os\nimport pkg.lib as _lib\nfrom pkg import sub\nfrom . import _C\nimport a; import b\n")
    assert _names(str(source), 2, "pkg.lib") and _names(str(source), 2, "pkg")
    assert not _names(str(source), 2, "cloudpickle")
    assert _names(str(source), 3, "pkg.sub") and not _names(str(source), 3, "cloudpickle")
    assert _names(str(source), 4, "anything")  # a relative import: its package is not resolved, so it may
    assert _names(str(source), 5, "b") and _names(str(source), 5, "a") and not _names(str(source), 5, "c")


def test_a_custom_op_whose_code_needs_values_is_answered_by_its_fake(tmp_path):
    shutil.copy(DATA / "custom_op_routing.py", tmp_path / "prog.py")
    done = captured_run(tmp_path, sys.executable, "prog.py")
    assert done.returncode == 0, done.stderr
    assert "launched (64,)" in done.stdout and launch_count(tmp_path / "run.ttcap", "per_expert") == 1
    assert "note: custom op round7::bincount's code needs values (prog.py:12 asks aten.bincount" in done.stderr
    assert "its registered fake gave its outputs" in done.stderr and "caught" not in done.stderr
    # an op that mutates its argument: the fake writes nothing, so the refusal stands, naming the line
    (tmp_path / "run.ttcap").unlink()
    mutating = captured_run(tmp_path, sys.executable, "prog.py", "--mutating")
    assert mutating.returncode == 1 and "prog.py:22 asks aten.bincount" in mutating.stderr, mutating.stderr


def test_a_script_beside_its_helpers_in_a_repository_that_is_a_package_stays_a_loose_file(tmp_path):
    # repo/__init__.py above repo/scripts/k.py, which imports its helper by plain name (as `python k.py` runs it):
    # only a file with a relative import is taken for a module of the package above its namespace folder
    scripts = tmp_path / "repo" / "scripts"
    scripts.mkdir(parents=True)
    (tmp_path / "repo" / "__init__.py").write_text("raise RuntimeError('the package is not imported')\n")
    (scripts / "helper.py").write_text("BLOCK = 128\n")
    kernel = (DATA / "namespace_site" / "mylib" / "kernels" / "scale.py").read_text()
    (scripts / "k.py").write_text(kernel.replace("from .helpers import BLOCK_DEFAULT",
                                                 "from helper import BLOCK as BLOCK_DEFAULT"))
    report = run_cli_ok("report", f"{scripts / 'k.py'}:scale", "--signature", "*fp32, 4096, 128", "--arch", "sm_90",
                        "--json")
    assert '"registers"' in report
