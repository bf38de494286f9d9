"""Issue 39, round 5: compile errors inside @triton.jit helpers name the helper's line and the call sites; the
`@triton=X` suffix — which release compiled what (the warning's wording), the user's own file of an installed
package compiled under another release (refs/caller_packages.py), and a whole capture named with the suffix
meaning what it means for one kernel of it in every command that takes a whole capture (check, predict, html,
list); a predict where nothing could be predicted says so, never 0 ms.

The tests that need another Triton release use a toolchain as tests/test_toolchains.py does
(TTINSPECT_TEST_TRITON_PYTHON registers one; else one is prepared, skipped without a package index)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cli_helpers import assert_error_first_line, run_cli, run_cli_ok

from ttinspect.errors import EXIT_COMPILE, UsageError
from ttinspect.perf.capture_profile import CaptureProfile, KernelTime
from ttinspect.refs.other_triton import caller_folders
from ttinspect.refs.captured import parse_capture_ref
from ttinspect.refs.triton_release import ReleaseComparison
from ttinspect.targets.releases import installed_version
from ttinspect.toolchains.worker_env import for_worker

DATA = Path(__file__).parent / "data" / "release_round5"
sys.path.insert(0, str(Path(__file__).parent / "data" / "captures"))
from make_example import write_example  # noqa: E402

HELPERS = DATA / "helper_errors.py"
LIB = DATA / "helper_errors_lib.py"


# --- 1. a compile error inside a helper -------------------------------------------------------------------------

@pytest.mark.parametrize("kernel, where, after", [
    ("one_helper", f"{HELPERS}:11", f"in helper tanh_by_exp, called by one_helper at {HELPERS}:22"),
    ("two_helpers", f"{HELPERS}:11",
     f"in helper tanh_by_exp, called by twice at {HELPERS}:16, called by two_helpers at {HELPERS}:28"),
    ("helper_of_another_module", f"{LIB}:8", f"in helper exp_of, called by helper_of_another_module at {HELPERS}:34"),
    ("inside_triton_library", f"{HELPERS}:40", "(inside Triton's sigmoid at "),
    ("no_helper", f"{HELPERS}:46", None),
])
def test_a_compile_error_names_the_innermost_line_and_its_callers(kernel, where, after):
    result = run_cli("report", f"{HELPERS}:{kernel}", "--arch", "sm_90", "--signature", "*bf16, *bf16, 128")
    first = assert_error_first_line(result, EXIT_COMPILE, f"{where}: Expected dtype").splitlines()[0]
    if after is None:
        assert "in helper" not in first and "inside Triton" not in first
    else:
        assert after in first


# --- 2. which release compiled what -----------------------------------------------------------------------------

@pytest.mark.parametrize("comparison, fragments, absent", [
    (ReleaseComparison("3.9.0", "3.8.0", 1, (), toolchain=True, machine="3.9.0"),
     ["the run compiled with Triton 3.9.0", "this compile uses Triton 3.8.0, the toolchain REF@triton=3.8.0 names",
      "(this machine has Triton 3.9.0)", "are the toolchain's release"], "this machine has Triton 3.8.0"),
    (ReleaseComparison("3.6.0", "3.9.0", 2, ()),
     ["the run compiled with Triton 3.6.0", "this compile uses this machine's Triton 3.9.0",
      "are this machine's release"], "toolchain"),
    (ReleaseComparison("3.8.0", "3.8.0", 2, ("language/standard.py",), toolchain=True, machine="3.9.0"),
     ["Triton 3.8.0 (the toolchain's) here as in the run, but another build", "are the toolchain's"], "machine's"),
])
def test_the_release_note_names_whose_triton_compiled(comparison, fragments, absent):
    note = comparison.note()
    assert all(fragment in note for fragment in fragments), note
    assert absent not in note


# --- 3. the user's file of an installed package, under another release ------------------------------------------

def _installed_package(root: Path, body: str = "x + y") -> Path:
    """`rp5pkg` in a folder named site-packages (as an installed, non-editable package is)."""
    folder = root / "site-packages" / "rp5pkg"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    (folder / "ops.py").write_text(textwrap.dedent(f"""\
        import triton
        import triton.language as tl


        @triton.jit
        def combine(X, Y, O, BLOCK: tl.constexpr):
            i = tl.arange(0, BLOCK)
            x = tl.load(X + i)
            y = tl.load(Y + i)
            tl.store(O + i, {body})
        """))
    return folder


@pytest.mark.parametrize("ref, expected", [
    ("rp5pkg.ops:combine", "rp5pkg"),
    ("{folder}/ops.py:combine", "rp5pkg"),
    ("{loose}:k", None),
    ("opt", None),
])
def test_the_caller_names_the_package_a_reference_lives_in(tmp_path, monkeypatch, ref, expected):
    folder = _installed_package(tmp_path)
    monkeypatch.syspath_prepend(str(folder.parent))
    loose = tmp_path / "loose.py"
    loose.write_text("")
    text = ref.format(folder=folder, loose=loose)
    kind = "module" if text.startswith("rp5pkg") else "file" if text.startswith("/") else "variant"
    found = caller_folders(text, kind)
    assert found == ({expected: str(folder)} if expected else {})


def test_a_worker_imports_the_callers_package_not_its_own(tmp_path):
    """The toolchain's own copy of the package (on its path) is passed over for the caller's folder."""
    caller = _installed_package(tmp_path / "caller", "x * y")
    own = _installed_package(tmp_path / "toolchain")
    code = ("from ttinspect.refs.caller_packages import use_caller_packages; use_caller_packages(); "
            "import rp5pkg.ops; print(rp5pkg.ops.__file__)")
    env = {**os.environ, **for_worker("3.9.0", {"rp5pkg": str(caller)}), "PYTHONPATH": str(own.parent)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)
    assert done.stdout.strip() == str(caller / "ops.py"), done.stderr


# --- 4. a whole capture and the release suffix ------------------------------------------------------------------

@pytest.mark.parametrize("text, name, arch, release", [
    ("run.ttcap@triton=3.8.0", None, None, "3.8.0"),
    ("run.ttcap:k#2@sm_80@triton=3.8.0", "k", "sm_80", "3.8.0"),
    ("run.ttcap@triton=3.8.0@sm_80", None, "sm_80", "3.8.0"),
    ("run.ttcap@sm_80", None, "sm_80", None),
])
def test_the_capture_reference_reads_the_release_once(text, name, arch, release):
    ref = parse_capture_ref(text)
    assert (ref.name, ref.arch, ref.release) == (name, arch, release)


@pytest.mark.parametrize("text", ["run.ttcap@triton=3.8", "run.ttcap@triton=3.8.0@triton=3.6.0"])
def test_a_bad_release_on_a_capture_is_one_line(text):
    with pytest.raises(UsageError, match="@triton="):
        parse_capture_ref(text)


@pytest.fixture(scope="module")
def example(tmp_path_factory) -> Path:
    return write_example(tmp_path_factory.mktemp("capture"))


@pytest.mark.parametrize("command", [("check", "--json"), ("predict", "--json"), ("list", "--json")])
def test_every_whole_capture_command_gives_the_release_to_each_compile(example, command):
    """With this machine's own release the suffix compiles here, and each compile's reference carries it."""
    release = installed_version()
    data = json.loads(run_cli_ok(command[0], f"{example}@triton={release}", *command[1:]))
    refs = [row["ref"] for row in (data.get("compiles") or data.get("kernels"))]
    assert refs and all(ref.endswith(f"@triton={release}") for ref in refs), refs
    if command[0] == "predict":
        assert data["total_low_ms"] > 0 and data["device"] != "?"


def test_a_replay_refuses_the_release_in_one_line(example):
    from ttinspect.refs.captured import replay_plan

    with pytest.raises(UsageError, match="a replay runs the kernel with this machine's Triton"):
        replay_plan(f"{example}:scale_add#1@triton=3.8.0")


def test_a_predict_where_nothing_is_predicted_says_unknown(tmp_path):
    """The kernels' file changed since the run: no compile has a time, and the total is unknown, not 0 ms."""
    capture = write_example(tmp_path)
    kernels = tmp_path / "example_kernels.py"
    kernels.write_text(kernels.read_text() + "\n# an edit\n")
    out = run_cli_ok("predict", capture)
    first = out.splitlines()[0]
    assert "nothing predicted (unknown)" in first and "H100" in first and "0.0000 ms" not in out
    assert "changed" in out
    data = json.loads(run_cli_ok("predict", capture, "--json"))
    assert data["total_low_ms"] is None and data["total_high_ms"] is None


def test_a_profile_without_a_time_totals_unknown():
    unknown = KernelTime("c.ttcap:k", "k", {}, 1, (), None, None, "CompileError: no")
    profile = CaptureProfile("c.ttcap", "H100 SXM", "datasheet", (unknown,))
    assert profile.low_ms is None and profile.high_ms is None and profile.share(unknown) is None


# --- with another Triton release --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def other() -> str:
    """Another Triton release, ready to compile with (as tests/test_toolchains.py gets one)."""
    from ttinspect.toolchains import registry as toolchains

    python = os.environ.get("TTINSPECT_TEST_TRITON_PYTHON")
    try:
        if python:
            return toolchains.register(toolchains.triton_of(python), python).version
        return toolchains.prepare("3.6.0" if installed_version() != "3.6.0" else "3.5.1").version
    except UsageError as error:
        if os.environ.get("TTINSPECT_CI"):
            raise
        pytest.skip(f"no other Triton here: {error}")


def test_an_edit_to_an_installed_package_is_compiled_under_another_release(other, tmp_path, monkeypatch):
    folder = _installed_package(tmp_path, "x * y")  # the user's edit of the installed file: add -> multiply
    monkeypatch.syspath_prepend(str(folder.parent))
    monkeypatch.chdir(tmp_path)
    for ref in ("rp5pkg.ops:combine", f"{folder}/ops.py:combine"):
        ttir = run_cli_ok("dump", f"{ref}@triton={other}", "--arch", "sm_90", "--stage", "ttir",
                          "--signature", "*fp32, *fp32, *fp32, 128")
        assert "arith.mulf" in ttir and "arith.addf" not in ttir
    (folder / "ops.py").write_text((folder / "ops.py").read_text().replace("x * y", "x + y"))
    ttir = run_cli_ok("dump", f"rp5pkg.ops:combine@triton={other}", "--arch", "sm_90", "--stage", "ttir",
                      "--signature", "*fp32, *fp32, *fp32, 128")
    assert "arith.addf" in ttir  # the edit is seen: compiled again, not the record of the first


def test_the_listings_hint_keeps_the_release(example):
    """`list CAP@triton=X`'s closing hint names both commands with the suffix, as they were given."""
    release = installed_version()
    out = " ".join(run_cli_ok("list", f"{example}@triton={release}", "--width", "400").split())
    assert f"every one: ttinspect check {example}@triton={release}" in out, out
