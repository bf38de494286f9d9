"""`ttinspect capture -o FILE -- CMD`, `ttinspect.capture()` and `pytest --ttinspect-capture`: every Python
process of the program records itself (subprocesses and forks included), the parts become one capture, the
exit code is the program's, a crash leaves what ran before it, a user's file is never replaced without
--force. The programs here call the session the hooks call (tests/test_capture_hooks.py tests the hooks)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cli_helpers import run_cli, run_process

from ttinspect.capture import capture, read, session
from ttinspect.errors import UsageError

# A program of the test's own: record one compile and `LAUNCHES` launches of it, as the hooks would.
PROGRAM = textwrap.dedent("""\
    import os, signal, subprocess, sys
    from ttinspect.capture import session

    def record(name="kern", launches=5, site="prog.py:6"):
        s = session.current()
        compile_id = s.add_compile({"name": name, "params": ["n"], "signature": "i32", "constexprs": {},
                                    "options": {"num_warps": 4}})
        for _ in range(launches):
            s.add_launch(compile_id, site, (2, 1, 1), {"n": 7})

    how = sys.argv[1] if len(sys.argv) > 1 else "exit:0"
    record()
    if how == "children":
        subprocess.run([sys.executable, __file__, "child"], check=True)
        if os.fork() == 0:
            record(launches=2, site="prog.py:forked")
            os._exit(0)
        os.wait()
        subprocess.run(["sh", "-c", f'"{sys.executable}" "{__file__}" grandchild'], check=True)
    elif how == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif how == "raise":
        raise RuntimeError("the program's own failure")
    elif how.startswith("exit:"):
        sys.exit(int(how[5:]))
""")


@pytest.fixture
def program(tmp_path) -> Path:
    path = tmp_path / "prog.py"
    path.write_text(PROGRAM)
    return path


def capture_run(tmp_path: Path, *args: str, out: str = "run.ttcap", env: dict | None = None):
    return run_process("capture", "-o", out, *args, cwd=tmp_path, env=env)


def capture_raw(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """As capture_run, for a program whose own traceback is expected on stderr."""
    return subprocess.run([sys.executable, "-m", "ttinspect", "capture", "-o", "run.ttcap", *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("code", [0, 3, 7])
def test_exit_code_is_the_programs(tmp_path, program, code):
    done = capture_run(tmp_path, "--", sys.executable, str(program), f"exit:{code}")
    assert done.returncode == code, done.stderr
    capture = read(tmp_path / "run.ttcap")
    assert capture.complete and capture.end.exit_code == code and capture.launch_count("k1") == 5
    assert capture.header.argv == (sys.executable, str(program), f"exit:{code}")
    assert "ttinspect: captured 1 compile(s) and 5 launch(es) from 1 Python process(es)" in done.stderr
    assert sorted(os.listdir(tmp_path)) == ["prog.py", "run.ttcap"]  # the parts folder is gone


def test_an_exception_in_the_program_still_ends_the_capture(tmp_path, program):
    done = capture_raw(tmp_path, "--", sys.executable, str(program), "raise")
    assert done.returncode == 1 and "the program's own failure" in done.stderr
    assert read(tmp_path / "run.ttcap").complete


def test_a_crash_leaves_a_valid_capture_of_what_ran(tmp_path, program):
    done = run_process("capture", "-o", "run.ttcap", "--", sys.executable, str(program), "kill", cwd=tmp_path)
    assert done.returncode == 128 + 9, done.stderr
    capture = read(tmp_path / "run.ttcap")
    assert not capture.complete and [c.name for c in capture.compiles] == ["kern"]
    assert capture.launch_count("k1") >= 4  # written as the count doubles: at most half is lost to a kill
    assert "ended by SIGKILL" in done.stderr.splitlines()[-1]


def test_subprocesses_and_forks_are_recorded(tmp_path, program):
    done = capture_run(tmp_path, "--", sys.executable, str(program), "children")
    assert done.returncode == 0, done.stderr
    capture = read(tmp_path / "run.ttcap")
    assert capture.header.extra["processes"] == 4  # the program, its child, its fork, the grandchild via sh
    assert [c.id for c in capture.compiles] == ["k1"]  # one compile, however many processes made it
    counts = {entry.site: entry.count for entry in capture.launches}
    assert counts == {"prog.py:6": 15, "prog.py:forked": 2} and capture.complete


@pytest.mark.parametrize("out, flag", [("run.ttcap.gz", ()), ("run.ttcap", ("--gzip",))])
def test_gzip(tmp_path, program, out, flag):
    done = capture_run(tmp_path, *flag, "--", sys.executable, str(program), out=out)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / out).read_bytes()[:2] == b"\x1f\x8b" and read(tmp_path / out).launch_count("k1") == 5


def test_an_existing_file_is_refused_before_the_program_runs(tmp_path, program):
    out = tmp_path / "run.ttcap"
    out.write_text("the user's own file")
    marker = tmp_path / "ran"
    done = capture_run(tmp_path, "--", "sh", "-c", f"touch {marker}")
    assert done.returncode == 2 and done.stderr == "ttinspect: error: run.ttcap already exists; --force overwrites it\n"
    assert out.read_text() == "the user's own file" and not marker.exists()
    done = capture_run(tmp_path, "--force", "--", sys.executable, str(program))
    assert done.returncode == 0 and read(out).launch_count("k1") == 5


def test_a_command_that_cannot_run_is_one_line(tmp_path):
    done = capture_run(tmp_path, "--", str(tmp_path / "no-such-program"))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"ttinspect: error: cannot run {tmp_path / 'no-such-program'}: "
                                        "No such file or directory (nothing was recorded)"]
    assert os.listdir(tmp_path) == []


def test_no_command_is_one_line():
    result = run_cli("capture", "-o", "x.ttcap")
    assert result.exit_code == 2 and result.output.startswith("ttinspect: error: Missing argument")


def test_python_that_skips_the_bootstrap_is_said(tmp_path):
    done = capture_run(tmp_path, "--", sys.executable, "-I", "-c", "print('isolated')")
    assert done.returncode == 0 and done.stdout == "isolated\n"
    assert "no Python process of the program was recorded" in done.stderr
    assert read(tmp_path / "run.ttcap").compiles == ()


def test_the_environments_sitecustomize_still_runs(tmp_path, program):
    own = tmp_path / "own"
    own.mkdir()
    (own / "sitecustomize.py").write_text("MARK = 'the environment ran its sitecustomize'\n")
    (own / "helper_mod.py").write_text("VALUE = 42\n")
    check = tmp_path / "check.py"
    check.write_text(textwrap.dedent("""\
        import sys, sitecustomize, helper_mod
        from ttinspect.capture import session
        assert session.current() is not None
        assert not any(p.endswith("boot") for p in sys.path), sys.path
        print(sitecustomize.MARK, helper_mod.VALUE)
    """))
    paths = [str(own)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])
    done = capture_run(tmp_path, "--", sys.executable, str(check), env={"PYTHONPATH": os.pathsep.join(paths)})
    assert done.returncode == 0, done.stderr
    assert done.stdout == "the environment ran its sitecustomize 42\n"


# --- in Python and in pytest ------------------------------------------------------------------------------

def record_one(name: str = "kern") -> None:
    running = session.current()
    compile_id = running.add_compile({"name": name, "params": [], "signature": "", "constexprs": {},
                                      "options": {}})
    running.add_launch(compile_id, "here.py:1", (1, 1, 1))


def test_api_records_the_block(tmp_path):
    with capture(tmp_path / "step.ttcap") as recording:
        record_one()
    assert session.current() is None and recording.result.compiles == 1
    assert read(tmp_path / "step.ttcap").launch_count("k1") == 1 and os.listdir(tmp_path) == ["step.ttcap"]


def test_api_writes_the_file_when_the_block_raises(tmp_path):
    with pytest.raises(ZeroDivisionError):
        with capture(tmp_path / "step.ttcap.gz"):
            record_one()
            raise ZeroDivisionError("the block's own failure")
    assert read(tmp_path / "step.ttcap.gz").compiles[0].name == "kern" and session.current() is None


def test_api_refuses_to_nest_or_overwrite(tmp_path):
    with capture(tmp_path / "a.ttcap"):
        with pytest.raises(UsageError, match="already being recorded"):
            with capture(tmp_path / "b.ttcap"):
                pass
    with pytest.raises(UsageError, match="already exists"):
        with capture(tmp_path / "a.ttcap"):
            pass
    with capture(tmp_path / "a.ttcap", force=True):
        record_one("again")
    assert read(tmp_path / "a.ttcap").compiles[0].name == "again"


def test_pytest_option(tmp_path):
    (tmp_path / "test_kernels.py").write_text(textwrap.dedent("""\
        import pytest
        from ttinspect.capture import session

        @pytest.mark.parametrize("i", range(3))
        def test_launch(i):
            s = session.current()
            s.add_launch(s.add_compile({"name": "kern", "params": [], "signature": "", "constexprs": {},
                                        "options": {}}), f"test_kernels.py:{i}", (1, 1, 1))
    """))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--ttinspect-capture=tests.ttcap",
               "test_kernels.py"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ttinspect: captured 1 compile(s) and 3 launch(es)" in done.stdout
    assert read(tmp_path / "tests.ttcap").header.argv[-2:] == ("--ttinspect-capture=tests.ttcap", "test_kernels.py")
    again = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert again.returncode == 4 and "tests.ttcap already exists; remove it or name another file" in again.stderr


def test_ttinspect_capture_is_callable_whatever_it_is_bound_to(tmp_path):
    """Python binds `ttinspect.capture` to the subpackage once it is imported (a captured program's bootstrap
    imports it first): the package answers the call as the function does."""
    import ttinspect
    import ttinspect.capture.session  # noqa: F401  # binds the attribute, as the bootstrap does

    with ttinspect.capture(tmp_path / "step.ttcap") as recording:
        record_one()
    assert recording.result is not None and read(tmp_path / "step.ttcap").compiles[0].name == "kern"


def test_sigterm_reaches_the_program_and_the_capture_is_written(tmp_path, program):
    waiting = tmp_path / "wait.py"
    waiting.write_text(PROGRAM.replace('how = sys.argv[1] if len(sys.argv) > 1 else "exit:0"\nrecord()',
                                       'how = "wait"\nrecord()\nprint("ready", flush=True)\nimport time\n'
                                       'time.sleep(60)'))
    command = [sys.executable, "-m", "ttinspect", "capture", "-o", "run.ttcap", "--", sys.executable, str(waiting)]
    with subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as run:
        assert run.stdout.readline() == "ready\n"
        run.terminate()
        _, err = run.communicate(timeout=60)
    assert run.returncode == 128 + 15 and "ended by SIGTERM" in err
    capture = read(tmp_path / "run.ttcap")  # Python's default SIGTERM skips atexit: the counts of the last moments
    assert not capture.complete and capture.launch_count("k1") >= 4


@pytest.mark.parametrize("tail, code, line", [
    (b"garbage\n", 2, "ttinspect: error: {path}:2: damaged line, not JSON"),
    (b'{"type":"compile","id":"k1","na', 0, "ttinspect: warning: {path}:2: the last line is incomplete"),
])
def test_a_damaged_or_torn_capture_through_the_cli(tmp_path, tail, code, line):
    path = tmp_path / "run.ttcap"
    path.write_bytes(Path(__file__).parent.joinpath("data", "captures", "example.ttcap").read_bytes().split(b"\n")[0]
                     + b"\n" + tail)
    result = run_cli("list", path)
    said = [text for text in result.stderr.splitlines() if text.startswith("ttinspect:")]
    assert result.exit_code == code and "Traceback" not in result.output
    assert len(said) == 1 and said[0].startswith(line.format(path=path)), result.stderr


def test_a_run_of_the_interpreter_end_to_end(tmp_path):
    """Triton's hooks (hooks.py) and the recorder together: a user's kernel run by the interpreter on CPU
    tensors of two sizes is two compiles, each with the specialization a GPU launch would get."""
    kernels = Path(__file__).parent / "data" / "captures" / "example_kernels.py"
    (tmp_path / kernels.name).write_text(kernels.read_text())
    (tmp_path / "demo.py").write_text(textwrap.dedent("""\
        import torch
        from example_kernels import scale_add

        for n in (1000, 4096, 4096):
            x, y, out = torch.rand(n), torch.rand(n), torch.empty(n)
            scale_add[((n + 255) // 256,)](x, y, out, n, 0.5, BLOCK=256)
            assert torch.allclose(out, 0.5 * x + y)
    """))
    done = capture_run(tmp_path, "--", sys.executable, "demo.py", env={"TRITON_INTERPRET": "1"})
    assert done.returncode == 0, done.stderr
    capture = read(tmp_path / "run.ttcap")
    assert capture.header.interpreter and capture.complete
    assert [(c.name, c.number, c.def_line) for c in capture.compiles] == [("scale_add", 1, 39), ("scale_add", 2, 39)]
    first, second = capture.compiles
    assert first.file == str(tmp_path / kernels.name) and first.constexprs == {"BLOCK": 256}
    assert "i32:16" not in first.signature and "i32:16" in second.signature  # n = 1000, then n = 4096
    assert [capture.launch_count(c.id) for c in capture.compiles] == [1, 2]
    assert capture.launches_of(second.id)[0].site == f"{tmp_path / 'demo.py'}:6"


@pytest.mark.parametrize(("command", "name"), [
    (("python", "train.py", "--steps", "3"), "train.ttcap"),
    (("python3", "-u", "scripts/train.py"), "train.ttcap"),
    (("/usr/bin/python3.12", "-m", "pytest", "tests/ops", "-q"), "pytest.ttcap"),
    (("python", "-m", "pkg.tools.bench"), "bench.ttcap"),
    (("python", "-c", "print(1)"), "python.ttcap"),
    (("torchrun", "--nproc-per-node", "2", "train.py"), "torchrun.ttcap"),
    (("./run.sh",), "run.ttcap"),
])
def test_the_default_name_is_the_programs(command, name):
    from ttinspect.cli.capture_cmd import default_output

    assert default_output(command) == name


def test_without_o_the_capture_is_named_after_the_program_and_replaces_nothing(tmp_path, program):
    done = run_process("capture", "--", sys.executable, str(program), cwd=tmp_path)
    assert done.returncode == 0 and read(tmp_path / f"{program.stem}.ttcap").launch_count("k1") == 5, done.stderr
    (tmp_path / f"{program.stem}.ttcap").write_text("the user's own file")
    done = run_process("capture", "--", sys.executable, str(program), cwd=tmp_path)
    assert done.returncode == 2 and "already exists; --force overwrites it" in done.stderr
    assert (tmp_path / f"{program.stem}.ttcap").read_text() == "the user's own file"
