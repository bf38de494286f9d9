"""The hostile-input table: every case a realistic but hostile user tried, by family, with what a careful
tool answers. Generated from small lists crossed with the commands they apply to, so a new command or a
new bad input is one line here (docs/reliability.md shows the counts)."""

from __future__ import annotations

from harness import Case
from workspace import HARMLESS, MISBEHAVING

SIGNATURE = "*fp32:16, *fp32:16, *fp32:16, i32:16"

# How each command takes a reference (a command that needs more than REF says so here).
COMMANDS = {
    "dump": ("dump", "{ref}", "--stage", "ttir"),
    "report": ("report", "{ref}"),
    "check": ("check", "{ref}"),
    "passes": ("passes", "{ref}"),
    "html": ("html", "{ref}", "-o", "{out}/page.html", "--no-passes"),
    "sweep": ("sweep", "{ref}", "--grid", "num_warps=4,8", "-j", "1"),
    "diff": ("diff", "{ref}", "opt"),
}


def _with(command: str, ref: str) -> tuple[str, ...]:
    return tuple(ref if a == "{ref}" else a for a in COMMANDS[command])


# --- references and file names --------------------------------------------------------------------
BAD_REFS = {  # ref -> what the one line must say
    "fifo.py:add_kernel": r"fifo\.py: is not a regular file",
    "dir.py:add_kernel": r"dir\.py: is a directory",
    "dangling.py:add_kernel": r"dangling\.py: is a symbolic link to nothing",
    "loop.py:add_kernel": r"loop\.py: cannot be read",
    "missing.py:add_kernel": r"missing\.py: no such file",
    "at@missing.py:add_kernel": r"at@missing\.py: no such file",
    "add.py:no_such_kernel": r"no kernel or example 'no_such_kernel'",
    "add.py:NOT_A_KERNEL": r"NOT_A_KERNEL is a int, not a @triton\.jit kernel",
    "add.py:small@sm_999": r"sm_999",
    "add.py:small:num_warps=3": r"num_warps=3: must be one of",
    "nosub/:add_kernel": r"nosub/: no such file",
    "adir/:add_kernel": r"adir/: is a directory",
    "/dev/null:add_kernel": r"/dev/null: is not a regular file",
    "./notes.txt:add_kernel": r"notes\.txt: cannot be loaded as a Python module",
    "x" * 300 + ".py:add_kernel": r"File name too long|no such file",
    "no_such_variant": r"unknown variant",
    "opt:num_stages=-1": r"num_stages=-1: must be an integer from 0",
    "opt@sm_999": r"sm_999",
    "opt:NOT_A_KEY=1": r"NOT_A_KEY",
    "cache:": r"needs an entry id prefix",
    "": r".",
    "naïve": r"unknown variant",
}
GOOD_REFS = ["./co:lon.py:small", "co:lon.py:small@sm_90", "at@sign.py:small", "sp ace.py:small",
             "sub/deeper/add.py:small"]
GOOD_FILES = {"./co:lon.py:small": "./co:lon.py", "co:lon.py:small@sm_90": "co:lon.py",
              "at@sign.py:small": "at@sign.py", "sp ace.py:small": "sp ace.py",
              "sub/deeper/add.py:small": "sub/deeper/add.py"}


def reference_cases() -> list[Case]:
    cases = []
    for ref, says in BAD_REFS.items():
        for command in COMMANDS:
            if command == "diff" and ref == "":
                continue  # `diff "" opt` is the same case as the others' empty reference
            cases.append(Case(f"ref-{command}-{ref[:40] or 'empty'}", _with(command, ref), 2, says))
        if (".py" in ref or ref.endswith("/:add_kernel")) and not ref.startswith("add.py"):
            cases.append(Case(f"ref-list-{ref[:40]}", ("list", ref.rsplit(":", 1)[0]), 2, ""))
    for ref in GOOD_REFS:
        for command in ("dump", "report", "check"):
            cases.append(Case(f"ok-{command}-{ref}", _with(command, ref), 0, lines=0, stdout="some"))
        cases.append(Case(f"ok-list-{ref}", ("list", GOOD_FILES[ref]), 0, lines=0, stdout="some"))
    # a Triton compile error is the documented two lines: the reason at file:line, then the source line
    for command in ("dump", "report", "check", "html", "passes"):
        cases.append(Case(f"compile-error-{command}", _with(command, "add.py:odd"), 3,
                          r"add\.py:\d+: .*power of 2", lines=2))
        # a constexpr of the wrong kind is Triton's to reject, at the line that uses it
        cases.append(Case(f"compile-error-str-constexpr-{command}", _with(command, "add.py:small:BLOCK=x"), 3,
                          r"add\.py:\d+: ", lines=2))
        # ptxas reads only ASCII, and the PTX carries the file's path: said, with what to do
        cases.append(Case(f"compile-error-non-ascii-path-{command}", _with(command, "ünïcode.py:small"), 3,
                          r"ptxas fatal.*non-ASCII.*give the file and its folders ASCII names"))
    cases.append(Case("ok-list-ünïcode.py", ("list", "ünïcode.py"), 0, lines=0, stdout="some"))
    return cases


# --- files that misbehave at import ---------------------------------------------------------------
MISBEHAVIOUR_SAYS = {
    "os_exit_7": r"called os\._exit\(7\) \(.*k\.py:2\)", "os_exit_0": r"called os\._exit\(0\)",
    "os_abort": r"called os\.abort\(\)", "sys_exit_0": r"raised SystemExit: 0",
    "sys_exit_3": r"raised SystemExit: 3", "sys_exit_text": r"raised SystemExit: bye",
    "raises_value_error": r"raised ValueError: the file refuses \(.*k\.py:1; TTINSPECT_DEBUG=1",
    "raises_system_error": r"raised SystemError", "divides_by_zero": r"raised ZeroDivisionError",
    "recursion": r"raised RecursionError", "raises_memory_error": r"raised MemoryError",
    "missing_module": r"No module named 'a_module_nobody_has'", "missing_helper": r"No module named 'helpers_missing'",
    "asks_what_no_device_knows": r"k\.py:2 asks a benchmark .*cannot time",
    "closes_stdout": "", "closes_stderr": "", "stdout_none": "",
    "syntax_error": r"k\.py:1: SyntaxError", "null_byte": r"k\.py.*(null bytes|SyntaxError)",
    "latin1_bytes": r"k\.py.*(SyntaxError|utf-8|ValueError: @jit functions should be defined in a Python file)",
}
# a kernel after all: the file is contained (the GPU it asks about is the target's virtual one)
_STILL_WORKS = {"closes_stdout", "closes_stderr", "stdout_none", "asks_the_gpu"}


def import_cases() -> list[Case]:
    cases = []
    for folder in MISBEHAVING:
        ref = f"imports/{folder}/k.py:small"
        works = folder in _STILL_WORKS
        for command in ("report", "dump", "check", "list"):
            argv = ("list", f"imports/{folder}/k.py") if command == "list" else _with(command, ref)
            if works:
                cases.append(Case(f"import-{command}-{folder}", argv, 0, lines=0, stdout="some"))
            else:
                cases.append(Case(f"import-{command}-{folder}", argv, 2, MISBEHAVIOUR_SAYS[folder]))
    for folder in HARMLESS:
        ref = f"imports/{folder}/k.py:small"
        # what the file prints goes to stderr, not stdout (and only when it is imported: not on a warm run)
        printed: int | tuple[int, ...] = (0, 1) if folder == "prints_at_import" else 0
        for command in ("report", "dump", "check", "list"):
            argv = ("list", f"imports/{folder}/k.py") if command == "list" else _with(command, ref)
            cases.append(Case(f"import-{command}-{folder}", argv, 0, lines=printed, stdout="some"))
    return cases


# --- output paths -----------------------------------------------------------------------------------
BAD_OUTPUTS = {  # path -> (exit code, what the line says); each with and without --force
    "link.html": (2, r"link\.html is a symbolic link to real\.html"),
    "dangling.html": (2, r"dangling\.html is a symbolic link to nowhere\.html, which does not exist"),
    "fifo.html": (2, r"fifo\.html is a named pipe"),
    "/dev/null": (2, r"/dev/null is a character device"),
    "/dev/full": (2, r"/dev/full is a character device"),
    "adir": (2, r"adir is a directory"),
    "missing_folder/x.html": (2, r"the directory missing_folder does not exist"),
    "notes.txt/x.html": (2, r"notes\.txt/x\.html"),
    "": (2, r"empty"),
    "y" * 300 + ".html": (2, r"File name too long"),
    "/proc/x.html": (1, r"cannot write /proc/x\.html"),
}


def output_cases() -> list[Case]:
    cases = []
    for path, (code, says) in BAD_OUTPUTS.items():
        for force in ((), ("--force",)):
            tag = f"{path[:30] or 'empty'}{'-force' if force else ''}"
            cases.append(Case(f"out-html-{tag}", ("html", "opt", "-o", path, "--no-passes", *force), code, says))
            # a plot's path says its format: the same hostile paths as pictures
            picture, said = path.replace(".html", ".png"), says.replace(r"\.html", r"\.png")
            cases.append(Case(f"out-sweep-{tag}", ("sweep", "opt", "--grid", "num_warps=4", "--grid", "num_stages=3",
                                                   "-j", "1", "--plot", picture, *force), code, said))
            # bench checks its --plot path before it looks for a GPU (click refuses a directory itself)
            cases.append(Case(f"out-bench-{tag}", ("bench", "opt", "--plot", picture, *force), code,
                              said if path != "adir" else r"adir"))
    cases.append(Case("out-html-existing", ("html", "opt", "-o", "real.html", "--no-passes"), 2,
                      r"real\.html already exists"))
    plots = (("sweep", ("sweep", "opt", "--grid", "num_warps=4", "-j", "1")), ("bench", ("bench", "opt")))
    for command, tail in plots:
        cases.append(Case(f"out-{command}-existing", (*tail, "--plot", "real.png"), 2, r"real\.png already exists"))
        cases.append(Case(f"out-{command}-bad-suffix", (*tail, "--plot", "{out}/plot.xyz"), 2,
                          r"suffix names its format"))
        cases.append(Case(f"out-{command}-trailing-slash", (*tail, "--plot", "newdir/"), 2, r"names a folder"))
    cases.append(Case("out-sweep-one-axis", ("sweep", "opt", "--grid", "num_warps=4,8", "-j", "1", "--plot",
                                             "{out}/p.png"), 2, r"needs two axes"))
    cases.append(Case("out-html-trailing-slash", ("html", "opt", "-o", "newdir/", "--no-passes"), 2, r"names a folder"))
    for folder, says in (("out_link", r"kernel\.ptx is a symbolic link"), ("out_fifo", r"kernel\.ttir is a named pipe"),
                         ("notes.txt", r"notes\.txt.*(not a directory|is a file)"), ("/dev/null", r"/dev/null"),
                         ("out_full", r"out_full already has kernel\.ptx")):
        for force in ((), ("--force",)):
            if folder == "out_full" and force:
                continue  # overwriting a regular file with --force is allowed (it is not in the sentinel)
            cases.append(Case(f"out-dump-{folder}{'-force' if force else ''}",
                              ("dump", "opt", "--all", "--out", folder, *force), 2, says))
    cases.append(Case("out-html-new-file", ("html", "opt", "-o", "{out}/new.html", "--no-passes"), 0, lines=0,
                      stdout="some"))
    cases.append(Case("out-bench-good-path-needs-gpu", ("bench", "opt", "--plot", "{out}/b.png"), 5, r"GPU"))
    return cases


# --- caches: foreign, damaged, not folders ----------------------------------------------------------
def cache_cases() -> list[Case]:
    mine = {"TTINSPECT_CACHE_DIR": "{ws}/userdata"}
    a_file = {"TTINSPECT_CACHE_DIR": "{ws}/notes.txt"}
    cases = [
        Case("cache-clear-user-folder", ("cache-info", "--clear"), 2, r"is not ttinspect's cache: it holds", env=mine),
        Case("cache-clear-user-folder-json", ("cache-info", "--clear", "--json"), 2, r"not ttinspect's cache",
             env=mine),
        Case("cache-info-user-folder", ("cache-info",), 0, lines=0, stdout="some", env=mine),
        Case("cache-clear-the-workspace", ("cache-info", "--clear"), 2, r"not ttinspect's cache",
             env={"TTINSPECT_CACHE_DIR": "{ws}"}),
        Case("cache-clear-a-file", ("cache-info", "--clear"), 2, r"not a directory", env=a_file),
        Case("cache-info-a-file", ("cache-info",), 2, r"not a directory \(a regular file\)", env=a_file),
        Case("cache-info-a-link-to-a-file", ("cache-info",), 2, r"not a directory",
             env={"TTINSPECT_CACHE_DIR": "{ws}/link.html"}),
        Case("cache-info-dangling", ("cache-info",), 2, r"not a directory",
             env={"TTINSPECT_CACHE_DIR": "{ws}/dangling.html"}),
        Case("cache-info-fifo", ("cache-info",), 2, r"not a directory", env={"TTINSPECT_CACHE_DIR": "{ws}/fifo.html"}),
        Case("cache-clear-dev-null", ("cache-info", "--clear"), 2, r"not a directory",
             env={"TTINSPECT_CACHE_DIR": "/dev/null"}),
        Case("cache-clear-dotfiles-only", ("cache-info", "--clear"), 2,
             r"not ttinspect's cache: it holds \.config, \.profile", env={"TTINSPECT_CACHE_DIR": "{ws}/home"}),
    ]
    for command in ("report", "dump", "check"):  # a cache that cannot be written: one warning, the answer anyway
        for where in ("{ws}/notes.txt", "{ws}/fifo.html", "{ws}/notes.txt/sub", "/dev/null"):
            cases.append(Case(f"cache-unwritable-{command}-{where.rsplit('/', 1)[-1]}", _with(command, "opt"), 0,
                              r"warning: cannot write the cache", lines=1, stdout="some",
                              env={"TTINSPECT_CACHE_DIR": where}))
    triton_caches = {"{ws}/notes.txt": r"not a directory", "{ws}/tc_empty": r"no Triton kernels",
                     "{ws}/userdata": r"no Triton kernels", "{ws}/tc_broken": r"holds no kernel",
                     "/dev/null": r"not a directory", "{ws}/missing": r"no such Triton cache"}
    for where, says in triton_caches.items():
        env = {"TRITON_CACHE_DIR": where}
        tag = where.rsplit("/", 1)[-1]
        for command in ("report", "dump", "check", "html"):
            cases.append(Case(f"tritoncache-{command}-{tag}", _with(command, "cache:BBBB"), 2, says, env=env))
        if tag not in ("tc_empty", "userdata", "tc_broken"):
            cases.append(Case(f"tritoncache-list-{tag}", ("cache",), 2, says, env=env))
    cases.append(Case("tritoncache-garbage-entry", _with("report", "cache:GGGG"), 2, r"GGGG",
                      env={"TRITON_CACHE_DIR": "{ws}/tc_garbage"}))
    return cases


# --- closed and full streams ------------------------------------------------------------------------
STREAM_COMMANDS = {
    "report": ("report", "opt"), "report-json": ("report", "opt", "--json"), "dump": ("dump", "opt", "--stage", "ptx"),
    "list": ("list",), "check": ("check", "opt"), "diff": ("diff", "naive", "opt"), "cache-info": ("cache-info",),
    "targets": ("targets",), "help": ("--help",),
}


def stream_cases() -> list[Case]:
    cases = []
    for name, argv in STREAM_COMMANDS.items():
        # the reader left: nothing to say, exit 0 (as `| head` does)
        cases.append(Case(f"stdout-closed-{name}", argv, 0, lines=0, stdout="any", streams="stdout-closed"))
        cases.append(Case(f"stdout-pipe-closed-{name}", argv, 0, lines=0, stdout="any", streams="stdout-pipe-closed"))
        # a full disk is a failure the user must hear of
        cases.append(Case(f"stdout-full-{name}", argv, 1, r"cannot write the output: No space left", stdout="any",
                          streams="stdout-full"))
        cases.append(Case(f"stdout-and-stderr-closed-{name}", argv, 0, lines=0, stdout="any", streams="both-closed"))
        cases.append(Case(f"stderr-closed-{name}", argv, 0, lines=0, stdout="any", streams="stderr-closed"))
    # a gate's verdict survives a reader that leaves (`check --fail-on warning | head -1` under pipefail): the
    # output may be silenced, never the exit code. add.py:small without alignment hints has TTI005 warnings.
    gate = ("check", "add.py:small", "--arch", "sm_90", "--signature", "*fp32, *fp32, *fp32, i32",
            "--fail-on", "warning")
    for streams in ("stdout-pipe-closed", "stdout-head-1", "stdout-closed"):
        cases.append(Case(f"gate-verdict-{streams}", gate, 1, lines=0, stdout="any", streams=streams))
    cases.append(Case("gate-verdict-whole", gate, 1, lines=0, stdout="some"))
    for ref in ("no_such_variant", "fifo.py:add_kernel"):  # errors still give their exit code with no stderr
        cases.append(Case(f"stderr-closed-error-{ref}", ("report", ref), 2, stdout="any", streams="stderr-closed"))
        cases.append(Case(f"stdout-closed-error-{ref}", ("report", ref), 2, r"error", streams="stdout-closed"))
    return cases


def all_cases() -> list[Case]:
    cases = reference_cases() + import_cases() + output_cases() + cache_cases() + stream_cases()
    ids = [c.id for c in cases]
    duplicates = {i for i in ids if ids.count(i) > 1}
    assert not duplicates, duplicates
    return cases
