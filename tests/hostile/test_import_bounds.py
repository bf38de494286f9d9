"""Running the user's code at import has bounds, and nothing it does there changes the answer or the exit code.

Two families of misbehaving kernel files, each the same kernel with something appended:
- in this process (CliRunner, cheap): whatever escapes an import (GeneratorExit, SystemExit(0), a
  KeyboardInterrupt it raises, a BaseException of its own, ...) and a time limit hit are one line naming the
  file:line; what it changes of the process (signal handlers, timers, hooks, builtins, exit handlers, stdin)
  is put back afterwards;
- in a real process (what only a process shows: its exit, its threads, a fork, its exit handlers, the
  watchdog): the exit code, one stderr line for a refusal, and for a success the same stdout as the
  well-behaved file gives — and the process ends (a hang fails the test at HANG seconds, never a timing).
And another Triton's python that never answers is a bounded wait and one line (tests at the end).
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from cli_helpers import ERROR, assert_one_line_error, run_cli

KERNEL = '''import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
'''
TIMEOUT = "0.3"  # --import-timeout for the files that never finish: the cases stay fast
HANG = 120  # a process still running after this long is a hang (the test fails; nothing is timed)
SIGNATURE = "*fp32, i32, 64"
REAL_KILL = os.kill  # taken before any import wraps it (a file's signals to itself are refused while it imports)


def _write(folder: Path, tail: str) -> tuple[Path, int]:
    """k.py in `folder`: the kernel, then `tail`; and the line of `tail` marked `# HERE` (0: none)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "k.py"
    path.write_text(KERNEL + tail)
    lines = (KERNEL + tail).splitlines()
    marked = [i + 1 for i, line in enumerate(lines) if "# HERE" in line]
    return path, (marked[0] if marked else 0)


# --- in this process: what escapes an import ------------------------------------------------------

ESCAPES = {  # what the file raises at import -> what the line says it raised
    "generator_exit": ("raise GeneratorExit('bye')  # HERE", r"raised GeneratorExit: bye"),
    "system_exit_0": ("raise SystemExit(0)  # HERE", r"raised SystemExit: 0"),
    "sys_exit_bare": ("import sys\nsys.exit()  # HERE", r"raised SystemExit \("),
    "keyboard_interrupt": ("raise KeyboardInterrupt  # HERE", r"raised KeyboardInterrupt \("),
    "stop_iteration": ("raise StopIteration(3)  # HERE", r"raised StopIteration: 3"),
    "own_base_exception": ("class Boom(BaseException):\n    pass\nraise Boom('x')  # HERE", r"raised Boom: x"),
    "str_that_raises": ("class Odd(Exception):\n    def __str__(self):\n        raise RuntimeError\n"
                        "raise Odd()  # HERE", r"raised Odd: \(its message cannot be shown\)"),
    "a_page_of_message": ("raise ValueError('x' * 100000)  # HERE", r"raised ValueError: x{500}… \("),
    "reads_stdin": ("input()  # HERE", r"raised EOFError"),
    "exit_in_generator_cleanup": ("def g():\n    try:\n        yield 1\n    finally:\n"
                                  "        raise SystemExit(4)  # HERE\nit = g()\nnext(it)\nit.close()",
                                  r"raised SystemExit: 4"),
}


@pytest.mark.parametrize("case", sorted(ESCAPES))
def test_whatever_escapes_an_import_is_one_line(tmp_path, case):
    tail, says = ESCAPES[case]
    path, line = _write(tmp_path / case, tail)
    result = run_cli("list", path)
    text = assert_one_line_error(result, 2, f"importing {path}")
    assert re.search(says, text), text
    assert f"k.py:{line}" in text, text


LOOPS = {  # code that never finishes importing, stopped by the time limit (SIGALRM) in this process (one that
    # swallows every stop, or takes SIGALRM, is ended by the CLI's watchdog: PROCESS_CASES)
    "loops": "while True:  # HERE\n    pass",
    "sleeps": "import time\ntime.sleep(600)  # HERE",
    "waits_on_a_lock": "import threading\nlock = threading.Lock()\nlock.acquire()\nlock.acquire()  # HERE",
    "loops_in_a_helper": "def spin():\n    while True:  # HERE\n        pass\nspin()",
}


# Long enough for the file to reach its loop on a busy machine (defining its kernel first takes a while there):
# a stop before it would name ttinspect's own line, rightly, and not the loop this test looks for.
LOOP_TIMEOUT = "2"


@pytest.mark.parametrize("case", sorted(LOOPS))
def test_an_import_that_never_finishes_is_stopped_and_named(tmp_path, case):
    path, line = _write(tmp_path / case, LOOPS[case] + "\n")
    text = assert_one_line_error(run_cli("list", path, "--import-timeout", LOOP_TIMEOUT), 2,
                                 f"importing {path} did not finish within 2 s (--import-timeout)")
    assert f"stopped at {path}:{line}" in text, text


def test_the_limit_from_the_environment_and_the_default_say_where_they_come_from(tmp_path):
    path, _ = _write(tmp_path / "env", LOOPS["loops"] + "\n")
    text = assert_one_line_error(run_cli("list", path, env={"TTINSPECT_IMPORT_TIMEOUT": TIMEOUT}), 2)
    assert "within 0.3 s (TTINSPECT_IMPORT_TIMEOUT)" in text
    from ttinspect.files import import_limit

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(import_limit, "DEFAULT_SECONDS", 0.3)
        text = assert_one_line_error(run_cli("list", path, env={"TTINSPECT_IMPORT_TIMEOUT": None}), 2)
    assert "within 0.3 s, the default limit" in text and "--import-timeout SECONDS" in text


@pytest.mark.parametrize("value", ["abc", "-1", "nan", "inf", ""])
def test_a_bad_limit_is_one_line(tmp_path, value):
    path, _ = _write(tmp_path / "bad", "")
    if value:
        assert_one_line_error(run_cli("list", path, "--import-timeout", value), 2, "--import-timeout")
    result = run_cli("list", path, env={"TTINSPECT_IMPORT_TIMEOUT": value or " "})
    if value:
        assert_one_line_error(result, 2, "TTINSPECT_IMPORT_TIMEOUT")
    else:  # blank: not set
        assert result.exit_code == 0, result.output


def test_no_limit_with_0(tmp_path):
    path, _ = _write(tmp_path / "zero", "import time\ntime.sleep(0.5)\n")
    assert run_cli("list", path, "--import-timeout", "0").exit_code == 0


def test_a_real_ctrl_c_during_an_import_still_interrupts(tmp_path):
    """A KeyboardInterrupt from a SIGINT that really arrived is the user's Ctrl-C (130), not the file's error."""
    importing = tmp_path / "importing"
    path, _ = _write(tmp_path / "ctrl_c",
                     f"import pathlib, time\npathlib.Path({str(importing)!r}).touch()\ntime.sleep(30)\n")
    done = threading.Event()

    def ctrl_c() -> None:
        # sent from outside the file (its own os.kill of itself is the file's doing: kills_itself below), once the
        # file is really importing: a fixed delay raced a busy machine's start-up (the SIGINT arrived before)
        while not done.is_set():
            if importing.exists():
                REAL_KILL(os.getpid(), signal.SIGINT)
                return
            done.wait(0.05)

    sender = threading.Thread(target=ctrl_c, daemon=True)
    sender.start()  # (conftest.py gives this process Python's own SIGINT handler, as from a terminal)
    try:
        result = run_cli("list", path)
    finally:
        done.set()
        sender.join()
    assert result.exit_code == 130 and result.output.strip() == "ttinspect: interrupted", result.output


# --- in this process: what it changes of the process is put back ------------------------------------

def _handler(*_):
    pass


MUTATIONS = {  # what the file changes at import -> how to read that state here
    "sigterm_handler": ("import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)",
                        lambda: signal.getsignal(signal.SIGTERM)),
    "sigalrm_handler": ("import signal\nsignal.signal(signal.SIGALRM, lambda *a: None)",
                        lambda: signal.getsignal(signal.SIGALRM)),
    "sigint_handler": ("import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)",
                       lambda: signal.getsignal(signal.SIGINT)),
    "sigusr1_handler": ("import signal\nsignal.signal(signal.SIGUSR1, lambda *a: None)",
                        lambda: signal.getsignal(signal.SIGUSR1)),
    "alarm": ("import signal\nsignal.alarm(300)", lambda: signal.getitimer(signal.ITIMER_REAL)),
    "profiling_timer": ("import signal\nsignal.setitimer(signal.ITIMER_PROF, 300)",
                        lambda: signal.getitimer(signal.ITIMER_PROF)),
    "virtual_timer": ("import signal\nsignal.setitimer(signal.ITIMER_VIRTUAL, 300)",
                      lambda: signal.getitimer(signal.ITIMER_VIRTUAL)),
    "excepthook": ("import sys, os\nsys.excepthook = lambda *a: os._exit(0)", lambda: sys.excepthook),
    "threading_excepthook": ("import threading\nthreading.excepthook = print", lambda: threading.excepthook),
    "unraisablehook": ("import sys\nsys.unraisablehook = print", lambda: sys.unraisablehook),
    "displayhook": ("import sys\nsys.displayhook = print", lambda: sys.displayhook),
    "trace": ("import sys\nsys.settrace(lambda *a: None)", sys.gettrace),
    "profile": ("import sys\nsys.setprofile(lambda *a: None)", sys.getprofile),
    "recursion_limit": ("import sys\nsys.setrecursionlimit(100000)", sys.getrecursionlimit),
    "builtin_print": ("import builtins\nbuiltins.print = lambda *a, **k: None", lambda: builtins.print),
    "builtin_open": ("import builtins\nbuiltins.open = None", lambda: builtins.open),
    "exit_handler": ("import atexit, os\natexit.register(os._exit, 0)", lambda: atexit._ncallbacks()),
    "exit_handler_decorator": ("import atexit\n@atexit.register\ndef bye():\n    print('bye')",
                               lambda: atexit._ncallbacks()),
    "stdin": ("import sys\nsys.stdin = None", lambda: sys.stdin),
}


@pytest.mark.parametrize("case", sorted(MUTATIONS))
def test_what_the_file_changes_of_the_process_is_put_back(tmp_path, case):
    tail, state = MUTATIONS[case]
    path, _ = _write(tmp_path / case, tail + "\n")
    before = state()
    try:
        result = run_cli("list", "--json", path)
        assert result.exit_code == 0, result.output
        assert state() == before
    finally:  # never leave this process changed, whatever failed
        for which in (signal.ITIMER_REAL, signal.ITIMER_PROF, signal.ITIMER_VIRTUAL):
            if case in ("alarm", "profiling_timer", "virtual_timer"):
                signal.setitimer(which, 0)


def test_a_librarys_exit_handler_still_runs(tmp_path):
    """Only the file's own exit handlers are dropped: one a library registers while the file imports it stays."""
    (tmp_path / "lib").mkdir()
    lib = tmp_path / "lib" / "some_library_zz.py"
    lib.write_text("import atexit\natexit.register(int)\n")
    path, _ = _write(tmp_path / "uses_lib", f"import sys\nsys.path.insert(0, {str(lib.parent)!r})\n"
                                            "import some_library_zz\n")
    before = atexit._ncallbacks()
    try:
        assert run_cli("list", path).exit_code == 0
        assert atexit._ncallbacks() == before + 1
    finally:
        atexit.unregister(int)
        sys.modules.pop("some_library_zz", None)


# --- in a real process ------------------------------------------------------------------------------

PROCESS_CASES = {  # name -> (appended code, command, exit code, what the one stderr line says; None: success)
    # the time limit's watchdog: the code took SIGALRM, or cancelled the timer
    "ignores_sigalrm_and_loops": ("import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
                                  "while True:  # HERE\n    pass", "list", 2, r"did not finish within 0\.3 s"),
    "cancels_the_timer_and_loops": ("import signal\nsignal.setitimer(signal.ITIMER_REAL, 0)\n"
                                    "while True:  # HERE\n    pass", "list", 2, r"did not finish within 0\.3 s"),
    "swallows_every_stop": ("while True:\n    try:\n        while True:  # HERE\n            pass\n"
                            "    except BaseException:\n        pass", "list", 2, r"did not finish within 0\.3 s"),
    "loops": ("while True:  # HERE\n    pass", "report", 2, r"did not finish within 0\.3 s"),
    # threads it leaves: never in the answer, never holding the exit, never ending the process
    "non_daemon_thread": ("import threading, time\nthreading.Thread(target=time.sleep, args=(600,)).start()",
                          "list", 0, None),
    "non_daemon_thread_then_an_error": ("import threading, time\n"
                                        "threading.Thread(target=time.sleep, args=(600,)).start()",
                                        "error", 2, r"no kernel or example 'nope'"),
    "daemon_thread_prints": ("import threading, time\ndef tick():\n    while True:\n        print('tick')\n"
                             "        time.sleep(0.001)\nthreading.Thread(target=tick, daemon=True).start()\n"
                             "time.sleep(0.05)", "list", 0, None),
    "daemon_thread_prints_while_compiling": ("import threading, time\ndef tick():\n    while True:\n"
                                             "        print('tick')\n        time.sleep(0.001)\n"
                                             "threading.Thread(target=tick, daemon=True).start()", "report", 0, None),
    "thread_calls_os_exit_at_import": ("import os, threading, time\n"
                                       "threading.Thread(target=os._exit, args=(0,)).start()\ntime.sleep(0.1)",
                                       "error", 2, r"no kernel or example 'nope'"),
    "thread_calls_os_exit_later": ("import os, threading, time\ndef later():\n    time.sleep(0.2)\n    os._exit(0)\n"
                                   "threading.Thread(target=later).start()", "report", 0, None),
    "thread_calls_sys_exit": ("import sys, threading\nthreading.Thread(target=sys.exit, args=(3,)).start()",
                              "list", 0, None),
    # a fork: the child ends as the import returns in it, quietly
    "forks": ("import os\nos.fork()", "list", 0, None),
    "forks_and_the_child_raises": ("import os\nif os.fork() == 0:\n    raise ValueError('child')", "list", 0, None),
    "forks_and_the_child_exits": ("import os, sys\nif os.fork() == 0:\n    sys.exit(5)", "list", 0, None),
    # exit handlers it registers: never run (not their exit code, not their prints)
    "exit_handler_os_exit_0": ("import atexit, os\natexit.register(os._exit, 0)", "error", 2,
                               r"no kernel or example 'nope'"),
    "exit_handler_os_exit_0_check": ("import atexit, os\natexit.register(os._exit, 0)", "check", 2,
                                     r"no kernel or example 'nope'"),
    "exit_handler_prints": ("import atexit\natexit.register(print, 'bye')", "list", 0, None),
    # signals and hooks it replaces: put back (a SIGPROF timer would kill the process mid-compile)
    "arms_a_profiling_timer": ("import signal\nsignal.setitimer(signal.ITIMER_PROF, 0.05)", "report", 0, None),
    "replaces_sigterm": ("import signal, os\nsignal.signal(signal.SIGTERM, lambda *a: os._exit(0))", "list", 0,
                         None),
    "excepthook_then_raises": ("import sys, os\nsys.excepthook = lambda *a: os._exit(0)\n"
                               "raise ValueError('no')  # HERE", "list", 2, r"raised ValueError: no"),
    "keyboard_interrupt": ("raise KeyboardInterrupt  # HERE", "list", 2, r"raised KeyboardInterrupt"),
    # a fatal signal it sends itself: one line naming the call (a SIGKILL would end the process with no word)
    "kills_itself": ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)  # HERE", "list", 2,
                     r"called os\.kill\(its own process, SIGKILL\)"),
    "kills_its_group": ("import os, signal\nos.killpg(0, signal.SIGTERM)  # HERE", "list", 2,
                        r"called os\.killpg\(its own process group, SIGTERM\)"),
    "raises_a_signal": ("import signal\nsignal.raise_signal(signal.SIGSEGV)  # HERE", "report", 2,
                        r"called signal\.raise_signal\(SIGSEGV\)"),
    "sends_itself_a_harmless_signal": ("import os, signal\nos.kill(os.getpid(), signal.SIGWINCH)", "list", 0, None),
}


def _argv(command: str, path: Path) -> list[str]:
    if command == "list":
        return ["list", "--json", str(path)]
    if command == "report":
        return ["report", f"{path}:k", "--signature", SIGNATURE, "--json"]
    if command == "check":
        return ["check", f"{path}:nope", "--signature", SIGNATURE]
    return ["report", f"{path}:nope", "--signature", SIGNATURE]  # an error after the import


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """ttinspect in a process (and session) of its own; what it left behind (a fork's child) is ended after."""
    process = subprocess.Popen([sys.executable, "-m", "ttinspect", *argv, "--import-timeout", TIMEOUT], cwd=cwd,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = process.communicate(timeout=HANG)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        pytest.fail(f"ttinspect {' '.join(argv)} was still running after {HANG} s: {err[-2000:]}")
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    return subprocess.CompletedProcess(argv, process.returncode, out, err)


@pytest.fixture(scope="module")
def well_behaved(tmp_path_factory) -> dict[str, str]:
    """What each command prints for the kernel alone (its folder written as <DIR>)."""
    folder = tmp_path_factory.mktemp("good")
    path, _ = _write(folder / "case", "")
    return {command: _run(_argv(command, path), folder).stdout.replace(str(path.parent), "<DIR>")
            for command in ("list", "report")}


@pytest.mark.parametrize("case", sorted(PROCESS_CASES))
def test_a_misbehaving_file_in_a_real_process(tmp_path, well_behaved, case):
    tail, command, code, says = PROCESS_CASES[case]
    path, line = _write(tmp_path / "case", tail + "\n")
    done = _run(_argv(command, path), tmp_path)
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    if says is None:
        assert done.stdout.replace(str(path.parent), "<DIR>") == well_behaved[command]
        assert ERROR not in done.stderr and "bye" not in done.stderr, done.stderr
        return
    errors = [text for text in done.stderr.splitlines() if "ttinspect:" in text]
    assert len(errors) == 1 and errors[0].startswith(ERROR), done.stderr
    assert re.search(says, errors[0]), errors[0]
    if line:
        assert f"k.py:{line}" in errors[0], errors[0]
    assert done.stdout == "", done.stdout


# --- another Triton's python that never answers -----------------------------------------------------

@pytest.fixture
def silent_python(tmp_path) -> Path:
    """A "python" that never says anything and never ends (exec: no child of its own is left behind)."""
    script = tmp_path / "python"
    script.write_text("#!/bin/sh\nexec sleep 600\n")
    script.chmod(0o755)
    return script


def test_a_toolchain_python_that_never_starts_is_one_line(monkeypatch, silent_python):
    from ttinspect.errors import ToolError
    from ttinspect.toolchains import remote
    from ttinspect.toolchains.registry import Toolchain

    monkeypatch.setattr(remote, "START_SECONDS", 0.3)
    with pytest.raises(ToolError) as raised:
        remote.run_worker(Toolchain("3.6.0", str(silent_python), managed=False), "opt", ((), (), None, None, None),
                          False)
    said = str(raised.value)
    assert "\n" not in said and f"its python {silent_python} did not start within 0.3 s" in said, said


def test_registering_a_python_that_never_answers_is_one_line(monkeypatch, silent_python):
    from ttinspect.toolchains import registry

    monkeypatch.setattr(registry, "PROBE_SECONDS", 0.3)
    result = run_cli("toolchains", "--add", "3.6.0", "--python", silent_python)
    assert_one_line_error(result, 2, f"{silent_python}: did not answer within 0.3 s")


@pytest.mark.parametrize("ignores_sigterm", [False, True], ids=["stops", "ignores-sigterm"])
def test_a_fork_child_left_running_at_import_is_ended_with_the_command(tmp_path, well_behaved, ignores_sigterm):
    """A child forked at import that is still running the file's code when the command has answered (it sleeps,
    serves, loops) is ended with the command — one warning line — instead of outliving it as an orphan."""
    pid_file = tmp_path / "child.pid"
    ignore = "    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n" if ignores_sigterm else ""
    tail = (f"import os, signal, time\nif os.fork() == 0:\n{ignore}"
            f"    open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n    time.sleep(600)\n"
            f"while not os.path.exists({str(pid_file)!r}):\n    time.sleep(0.01)\n")
    path, _ = _write(tmp_path / "case", tail)
    done = _run(_argv("list", path), tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.replace(str(path.parent), "<DIR>") == well_behaved["list"]
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "ended 1 process(es) a kernel file forked at import" in lines[0], done.stderr
    assert ("ignored SIGTERM" in lines[0]) == ignores_sigterm, lines[0]
    child = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):  # ended and reaped before the command exited
        os.kill(child, 0)
