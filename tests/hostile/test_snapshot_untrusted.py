"""A snapshot, a pyproject.toml and the files a glob matches come from elsewhere (a merge, a hand edit, a
colleague's branch): `ttinspect snapshot` loses no entry, overwrites nothing that is not its snapshot, runs no
file that declares no example, and refuses what it cannot judge — one line naming the file:line and field,
exit 2 (5 for an empty gate), never a traceback or exit 70. Generated families, in-process where possible."""

from __future__ import annotations

import copy
import importlib
import json
import os
import subprocess
import sys
import textwrap

import pytest
from cli_helpers import assert_one_stderr_line_error, run_cli

from ttinspect.ci.snapshot_text import verdict
from ttinspect.errors import UsageError
from ttinspect.files.declared_names import mention_line
from ttinspect.files.lock import held, lock_path
from ttinspect.files.outputs import WriteError
from ttinspect.snapshot import store
from ttinspect.snapshot.gate import gate
from ttinspect.snapshot.schema import TENSOR_CORE_PATHS, library_path_problem

ADD = textwrap.dedent('''\
    import triton
    import triton.language as tl


    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr = 1024):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask),
                 mask=mask)


    TTINSPECT_EXAMPLES = {"NAME": {"kernel": add_kernel, "signature": "*fp32:16, *fp32:16, *fp32:16, i32:16"}}
    ''')
PYPROJECT = '[tool.ttinspect]\nkernels = ["ops/*.py"]\ntargets = ["sm_80"]\n'


@pytest.fixture
def library(tmp_path, monkeypatch):
    """Two kernel files, an entry each; the commands run from the library's folder."""
    root = tmp_path / "lib"
    (root / "ops").mkdir(parents=True)
    (root / "ops" / "a.py").write_text(ADD.replace("NAME", "a"))
    (root / "ops" / "b.py").write_text(ADD.replace("NAME", "b"))
    (root / "pyproject.toml").write_text(PYPROJECT)
    monkeypatch.chdir(root)
    return root


def _entry(**changes):
    entry = {"kernel": "a.py:add_kernel", "target": "sm_80", "file": "ops/a.py", "line": 6, "device": "H100",
             "facts": {"spills": 0, "pipeline_depth": 2, "tensor_core_path": "none", "occupancy": "100%",
                       "fits": True, "shared_memory": 0, "block_sizes": [["BLOCK", 1024]], "loop_depths": [2]},
             "findings": [{"id": "TTI003", "slug": "register-spills", "severity": "warning", "title": "spills",
                           "line": 9, "fix": "lower num_stages"}]}
    entry.update(changes)
    return entry


def _document() -> dict:
    text = store.dumps({"ops/a.py:a@sm_80": _entry(), "ops/b.py:b@sm_80#triton=3.6.0": _entry()}, "3.9.0", ("sm_80",))
    return json.loads(text)


def _paths(value, path=()):
    """Every field of a document: its path, containers and leaves alike."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, index))


def _deep(depth: int):
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


BAD_VALUES = {"number": 5, "float": 1.5, "bool": True, "null": None, "text": "x", "list": [1], "object": {"k": 1},
              "deep": _deep(12), "long": "y" * 70_000, "nul": "a\x00b", "escape": "\x1b[31mred", "empty": "",
              "surrogate": "a\ud800", "negative": -5, "percent": "150%", "path": "../../etc/passwd"}
FIELDS = [path for path in _paths(_document()) if path]


def _mutated(path, value) -> dict:
    document = copy.deepcopy(_document())
    parent = document
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    return document


@pytest.mark.parametrize("path", FIELDS, ids=lambda p: ".".join(map(str, p)))
def test_every_field_mutated_is_refused_with_its_line_or_gated_cleanly(tmp_path, path):
    """Each field of a valid snapshot, replaced by values of every type, depth and size: either one
    UsageError naming `FILE:LINE:` and the field, or a document the gate compares without an exception."""
    snapshot = tmp_path / "ttinspect.snapshot.json"
    for name, value in BAD_VALUES.items():
        snapshot.write_text(json.dumps(_mutated(path, value), indent=2))
        try:
            document = store.load(snapshot)
        except UsageError as error:
            message = str(error)
            assert "\n" not in message and message.startswith(f"{snapshot}:"), (name, message)
            line = int(message[len(str(snapshot)) + 1:].partition(":")[0])
            assert 1 <= line <= snapshot.read_text().count("\n") + 1, (name, message)
            continue
        current = {key: _entry(facts={"spills": 3}) for key in document["entries"]}
        report = gate(document, current, fail_on="warning", guard=("spills", "pipeline_depth"))
        assert verdict(report)


@pytest.mark.parametrize("path, value, says", [
    (("entries", "ops/a.py:a@sm_80", "findings"), 5, 'entries["ops/a.py:a@sm_80"].findings must be a list'),
    (("entries", "ops/a.py:a@sm_80", "facts", "spills"), "x", "facts.spills must be int or null"),
    (("entries", "ops/a.py:a@sm_80", "facts", "fits"), 1, "facts.fits must be bool"),
    (("entries", "ops/a.py:a@sm_80", "findings", 0, "severity"), "loud", "findings[0].severity 'loud'"),
    (("entries", "ops/a.py:a@sm_80", "line"), True, ".line must be a line number"),
    (("entries", "ops/a.py:a@sm_80", "kernel"), "k\x00", "control character"),
    (("entries", "ops/a.py:a@sm_80", "facts", "block_sizes"), _deep(9), "nests deeper"),
    (("entries", "ops/a.py:a@sm_80", "surprise"), 1, "unknown field 'surprise'"),
    (("targets",), "sm_80", "targets must be a list"),
    (("entries",), [], "entries must be an object"),
    # a fact's value is one the fact can take: its enumeration, its range (a hand edit cannot steer the gate)
    (("entries", "ops/a.py:a@sm_80", "facts", "tensor_core_path"), "quantum", "tensor_core_path 'quantum': one of"),
    (("entries", "ops/a.py:a@sm_80", "facts", "occupancy"), "150%", "occupancy must be a percentage"),
    (("entries", "ops/a.py:a@sm_80", "facts", "occupancy"), 1.5, "occupancy must be a percentage"),
    (("entries", "ops/a.py:a@sm_80", "facts", "occupancy"), "62.5%", "occupancy must be a percentage"),
    (("entries", "ops/a.py:a@sm_80", "facts", "spills"), -5, "spills must be a count"),
    (("entries", "ops/a.py:a@sm_80", "facts", "pipeline_depth"), -1, "pipeline_depth must be a count"),
    (("entries", "ops/a.py:a@sm_80", "facts", "shared_memory"), 10**15, "shared_memory must be a count"),
    # the fields the key also says agree with it; a file is a place inside the library
    (("entries", "ops/a.py:a@sm_80", "target"), "sm_90", "target 'sm_90' disagrees with its key's target 'sm_80'"),
    (("entries", "ops/a.py:a@sm_80", "file"), "../../etc/passwd", "file '../../etc/passwd' is not a path inside"),
    (("entries", "ops/a.py:a@sm_80", "file"), "/etc/x.py", "file '/etc/x.py' is not a path inside"),
    (("entries", "ops/a.py:a@sm_80", "file"), "ops/./a.py", "is not a path inside"),
    # strings that are not Unicode text (a lone surrogate parses from "\ud800", and could never be written)
    (("entries", "ops/a.py:a@sm_80", "kernel"), "k\ud800", "lone surrogate"),
    (("entries", "ops/a.py:a@sm_80", "findings", 0, "title"), "t\udfff", "lone surrogate"),
    (("entries", "ops/a.py:a@sm_80", "facts", "occupancy_limit"), "r\ud800", "lone surrogate"),
])
def test_a_field_against_its_schema_names_its_line(tmp_path, path, value, says):
    snapshot = tmp_path / "s.json"
    text = json.dumps(_mutated(path, value), indent=2)
    snapshot.write_text(text)
    with pytest.raises(UsageError) as raised:
        store.load(snapshot)
    message = str(raised.value)
    assert says in message, message
    line = int(message.split(":")[1])
    if says != "nests deeper":  # else the line of the deepest item, below the fact's
        assert f'"{path[-1]}"' in text.splitlines()[line - 1], (line, text.splitlines()[line - 1])


@pytest.mark.parametrize("key", ["ops/a.py:a@sm_80\x00", "no-colon@sm_80", "ops/a.py:a", "a.py:x@sm 80",
                                 "\x1b[2Ja.py:x@sm_80", "ops/a.py:a@sm_80#triton=",
                                 # FILE is a normalized path inside the library; the release a version
                                 "../../etc/passwd:x@sm_80", "/etc/x.py:x@sm_80", "ops/../../x.py:x@sm_80",
                                 "./ops/a.py:a@sm_80", "ops//a.py:a@sm_80", "ops/a.py:a@sm_80#triton=../../x",
                                 "ops/a.py:a@sm_80#triton=3.9", "ops/a.py:a@sm_80#triton=3.9.0#triton=3.9.0",
                                 # not Unicode text, or an EXAMPLE the grammar cannot split
                                 "ops/\ud800.py:x@sm_80", "ops/a.py:a\ud800@sm_80", "ops/a.py:\u202eb@sm_80",
                                 "ops/a.py:a#b@sm_80", "ops/a.py: @sm_80"])
def test_an_entry_key_that_is_not_file_example_target_is_refused(tmp_path, key):
    snapshot = tmp_path / "s.json"
    text = store.dumps({key: _entry()}, "3.9.0", ("sm_80",))
    snapshot.write_bytes(text.encode("utf-8", "backslashreplace"))  # a lone surrogate as JSON writes it: "\ud800"
    with pytest.raises(UsageError, match=r":3: a damaged ttinspect snapshot: .*is not FILE:EXAMPLE@TARGET") as raised:
        store.load(snapshot)
    assert str(raised.value).encode("utf-8", "strict")  # printable as it is: no lone surrogate in the message


@pytest.mark.parametrize("key_target, entry_target, agree", [
    ("sm_80", "sm_80", True), ("sm80", "sm_80", True), ("sm_90a", "sm_90", True),  # the name a run records
    ("sm_80", "sm_90", False), ("sm80", "sm_90", False), ("gfx942", "sm_80", False), ("sm_80", "sm80", False)])
def test_an_entry_target_agrees_with_its_key(tmp_path, key_target, entry_target, agree):
    snapshot = tmp_path / "s.json"
    snapshot.write_text(store.dumps({f"ops/a.py:a@{key_target}": _entry(target=entry_target)}, "3.9.0", ("sm_80",)))
    if agree:
        store.load(snapshot)
    else:
        with pytest.raises(UsageError, match=r"\.target '[^']+' disagrees with its key's target"):
            store.load(snapshot)


def test_the_tensor_core_paths_allowed_are_those_the_gate_ranks():
    ranks = importlib.import_module("ttinspect.snapshot.gate")._PATH_RANK  # the package exports gate(), a function
    assert set(TENSOR_CORE_PATHS) == set(ranks)


@pytest.mark.parametrize("file, inside", [("ops/a.py", True), ("a.py", True), ("ops/my kernels/a b.py", True),
                                          ("../a.py", False), ("/a.py", False), ("ops/../a.py", False),
                                          ("./a.py", False), ("ops//a.py", False), ("ops/", False),
                                          ("ops\\a.py", False), ("C:/a.py", False), ("a\ud800.py", False),
                                          ("a\x1b.py", False)])
def test_a_file_in_a_snapshot_is_a_place_inside_the_library(file, inside):
    assert (library_path_problem(file) is None) == inside


def _replaced(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def _damages(text: str) -> dict[str, bytes]:
    """A valid snapshot's text, broken the ways merges and hand edits break it."""
    lines = text.splitlines(keepends=True)
    middle = len(lines) // 2
    conflict = "".join(lines[:middle]) + "<<<<<<< HEAD\n" + lines[middle] + "=======\n" + lines[middle] \
        + ">>>>>>> theirs\n" + "".join(lines[middle + 1:])
    entry = '"ops/a.py:a@sm_80": {'
    twice = entry.replace("{", '{"kernel": "x", "target": "sm_80", "facts": {}, "findings": []},\n    ' + entry)
    damages = {f"truncated at {fraction}%": text[:len(text) * fraction // 100] for fraction in (1, 25, 50, 75, 99)}
    damages.update({
        "conflict markers": conflict,
        "a trailing comma": _replaced(text, '"target": "sm_80"\n', '"target": "sm_80",\n'),
        "a key written twice": _replaced(text, entry, twice),
        "a comment": "// reviewed\n" + text,
        "NaN": _replaced(text, '"spills": 0', '"spills": NaN'),
        "an entry's field renamed": _replaced(text, '"findings": [', '"findingz": ['),
        "a fact of the wrong type": _replaced(text, '"spills": 0', '"spills": "0"'),
    })
    found = {name: damaged.encode() for name, damaged in damages.items()}
    found["not UTF-8"] = _replaced(text, '"a.py:add_kernel"', '"a.py:@@"').encode().replace(b"@@", b"\xff\xfe")
    return found


def test_a_snapshot_that_does_not_parse_is_refused_never_rebuilt(library):
    """Every damage: `--check` and a plain `snapshot` (which writes) both refuse in one line naming the file
    and a line, exit 2, and the file is left byte for byte as it was."""
    snapshot = library / "ttinspect.snapshot.json"
    made = run_cli("snapshot")
    assert made.exit_code == 0, made.output
    for name, damaged_bytes in _damages(snapshot.read_text()).items():
        snapshot.write_bytes(damaged_bytes)
        for argv in (("snapshot", "--check"), ("snapshot",), ("snapshot", "ops/a.py")):
            result = run_cli(*argv)
            line = assert_one_stderr_line_error(result, 2, str(snapshot))
            after = line.split(str(snapshot), 1)[1]
            assert after[:2].startswith(":") and after[1].isdigit() or "not a snapshot ttinspect wrote" in after, \
                (name, line)
            assert snapshot.read_bytes() == damaged_bytes, (name, argv)


@pytest.mark.parametrize("content", [
    'Our notes.\n\n```json\n  "format": "ttinspect-snapshot/1"\n```\n',
    '"format": "ttinspect-snapshot/1",\n',
    "",
    '{"format": "something-else/1"}\n',
    '["format", "ttinspect-snapshot/1"]\n',
])
def test_a_file_that_only_quotes_the_format_is_never_overwritten(library, content):
    notes = library / "NOTES.md"
    notes.write_text(content)
    assert_one_stderr_line_error(run_cli("snapshot", "--snapshot", "NOTES.md"), 2, "NOTES.md")
    assert notes.read_text() == content


def test_kernels_file_update_keeps_every_other_files_entries(library):
    snapshot = library / "ttinspect.snapshot.json"
    assert run_cli("snapshot").exit_code == 0
    both = sorted(json.loads(snapshot.read_text())["entries"])
    assert both == ["ops/a.py:a@sm_80", "ops/b.py:b@sm_80"]
    for argv in (("snapshot", "--check", "--update", "--kernels", "ops/a.py"), ("snapshot", "--kernels", "ops/a.py"),
                 ("snapshot", "ops/b.py")):
        result = run_cli(*argv)
        assert result.exit_code == 0, result.output
        assert sorted(json.loads(snapshot.read_text())["entries"]) == both, argv
    checked = run_cli("snapshot", "--check", "--kernels", "ops/a.py")
    assert checked.exit_code == 0 and "removed" not in checked.stdout, checked.stdout


# --- the lock: two writers at once both land ---------------------------------------------------------

WRITER = """
import sys
from pathlib import Path
from ttinspect.snapshot import store

path, who = Path(sys.argv[1]), sys.argv[2]
for index in range(15):
    def text_for(current, index=index):
        entries = dict((current or {}).get("entries", {}))
        entries[f"ops/{who}.py:e{index}@sm_80"] = {"kernel": "k", "target": "sm_80", "facts": {}, "findings": []}
        return store.dumps(entries, "3.9.0", ("sm_80",))
    store.write_merged(path, text_for)
"""


def test_two_writers_at_once_both_land(tmp_path):
    snapshot = tmp_path / "ttinspect.snapshot.json"
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(snapshot), who]) for who in ("x", "y")]
    assert [writer.wait(timeout=300) for writer in writers] == [0, 0]
    entries = store.load(snapshot)["entries"]
    assert len(entries) == 30 and not lock_path(snapshot).exists()


def test_a_stale_lock_is_taken_over_a_live_one_waited_for_and_a_foreign_one_kept(tmp_path):
    target = tmp_path / "s.json"
    lock = lock_path(target)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    lock.write_text(f"{dead.pid} {os.uname().nodename} 0123\n")
    with held(target, wait_s=0):
        assert str(os.getpid()) in lock.read_text()
    assert not lock.exists()
    lock.write_text(f"{os.getpid()} {os.uname().nodename} 0123\n")  # alive: this process
    with pytest.raises(WriteError, match=f"held by process {os.getpid()}"):
        with held(target, wait_s=0.1):
            pass
    assert lock.exists()
    for foreign in ("my notes\n", None):
        lock.unlink()
        if foreign is None:
            lock.symlink_to(tmp_path / "elsewhere")
        else:
            lock.write_text(foreign)
        with pytest.raises(UsageError, match="not a lock ttinspect made"):
            with held(target, wait_s=0.1):
                pass
        assert lock.is_symlink() if foreign is None else lock.read_text() == foreign


# --- what a glob matches is read, not run ----------------------------------------------------------------

@pytest.mark.parametrize("source, declares", [
    ("TTINSPECT_EXAMPLES = {}\n", True),
    ("TTINSPECT_EXAMPLES: dict = {}\n", True),
    ("x = 1\nTTINSPECT_EXAMPLES |= {}\n", True),
    ("globals()['TTINSPECT_EXAMPLES'] = {}\n", True),
    ("import sys\nsetattr(sys.modules[__name__], 'TTINSPECT_EXAMPLES', {})\n", True),
    ("from .examples import TTINSPECT_EXAMPLES\n", True),
    ("def f(:\n  TTINSPECT_EXAMPLES = 1\n", True),  # not Python: imported, which says why as its entry
    ("# TTINSPECT_EXAMPLES are declared elsewhere\nimport shutil\nshutil.rmtree('results')\n", False),
    ("'''no TTINSPECT_EXAMPLES here'''\n", False),
    ("import os\nos.remove('results/keep.txt')\n", False),
    ("", False),
])
def test_the_static_read_finds_declarations_without_running(tmp_path, source, declares):
    file = tmp_path / "k.py"
    file.write_text(source)
    assert (mention_line(file, "TTINSPECT_EXAMPLES") is not None) == declares
    fifo = tmp_path / "fifo.py"
    os.mkfifo(fifo)
    assert mention_line(fifo, "TTINSPECT_EXAMPLES") is None  # never opened: no hang


DESTRUCTIVE = ["import shutil\nshutil.rmtree('results')\n",
               "import os\nos.remove('results/keep.txt')\n",
               "# a note on TTINSPECT_EXAMPLES\nopen('results/keep.txt', 'w').close()\n",
               "raise SystemExit('ran')\n"]


@pytest.mark.parametrize("script", DESTRUCTIVE)
def test_a_globbed_file_that_declares_no_example_is_never_imported(library, script):
    (library / "pyproject.toml").write_text('[tool.ttinspect]\nkernels = ["**/*.py"]\ntargets = ["sm_80"]\n')
    (library / "results").mkdir()
    (library / "results" / "keep.txt").write_text("the user's results")
    (library / "cleanup.py").write_text(script)
    (library / "ops" / "dynamic.py").write_text(ADD.replace('TTINSPECT_EXAMPLES = {"NAME"',
                                                            'globals()["TTINSPECT_" + "EXAMPLES"] = {"d"')
                                                .replace("add_kernel", "dyn_kernel")
                                                + 'TTINSPECT_EXAMPLES = globals()["TTINSPECT_EXAMPLES"]\n')
    result = run_cli("snapshot")
    assert result.exit_code == 0, result.output
    assert (library / "results" / "keep.txt").read_text() == "the user's results"
    assert "cleanup.py: declares no TTINSPECT_EXAMPLES" in result.stdout
    importing = [line for line in result.stderr.splitlines() if "importing" in line]
    assert len(importing) <= 1 and "cleanup.py" not in result.stderr
    entries = json.loads((library / "ttinspect.snapshot.json").read_text())["entries"]
    assert "ops/dynamic.py:d@sm_80" in entries and len(entries) == 3


# --- an empty gate, and a pyproject.toml of someone else's ------------------------------------------------

def test_an_empty_gate_is_refused_with_exit_5(library):
    assert run_cli("snapshot").exit_code == 0
    (library / "tools").mkdir()
    (library / "tools" / "plain.py").write_text("x = 1\n")
    for argv in (("snapshot", "--check", "--kernels", "tools/*.py"), ("snapshot", "--kernels", "tools/*.py")):
        assert_one_stderr_line_error(run_cli(*argv), 5, "declares TTINSPECT_EXAMPLES")
    (library / "pyproject.toml").write_text('[tool.ttinspect]\nkernels = ["tools/*.py"]\n')
    assert_one_stderr_line_error(run_cli("snapshot", "--check"), 5, "no entries to check")
    # a commit's FILEs holding no kernel file is not an empty gate: nothing of theirs to check
    assert run_cli("snapshot", "--check", "pyproject.toml").exit_code == 0


_BAD_TOML = {"number": "5", "bool": "true", "text list": '["ok", 5]', "nul": '"a\\u0000b"', "escape": '"\\u001b[2J"',
             "table": "{ a = 1 }", "empty text": '""', "long": '"' + "z" * 1200 + '"', "parent": '"../x"',
             "absolute": '"/etc/x"'}


@pytest.mark.parametrize("key", ["kernels", "targets", "fail-on", "guard", "snapshot"])
@pytest.mark.parametrize("bad", list(_BAD_TOML))
def test_every_pyproject_field_mutated_is_one_line_exit_2(library, key, bad):
    lines = {"kernels": '["ops/*.py"]', "targets": '["sm_80"]', "fail-on": '"error"', "guard": '["spills"]',
             "snapshot": '"ttinspect.snapshot.json"'}
    lines[key] = _BAD_TOML[bad]
    (library / "pyproject.toml").write_text("[tool.ttinspect]\n" + "".join(f"{k} = {v}\n" for k, v in lines.items()))
    result = run_cli("snapshot")
    if result.exit_code == 0:  # a value that is valid for this key (a target list of one, a pattern)
        return
    line = assert_one_stderr_line_error(result, 2, "pyproject.toml")
    assert "\x00" not in line and "\x1b" not in line
    assert not (library / "ttinspect.snapshot.json").exists()


@pytest.mark.parametrize("toml", ["tool = 5\n", "[tool]\nttinspect = 5\n", "[tool.ttinspect]\nkernels = 5\n",
                                  '[tool.ttinspect]\nkernels = ["ops/*.py"]\n"k\\u0000" = 1\n'])
def test_a_malformed_tool_table_is_one_line_exit_2(library, toml):
    (library / "pyproject.toml").write_text(toml)
    assert_one_stderr_line_error(run_cli("snapshot"), 2, "pyproject.toml")


@pytest.mark.parametrize("argv", [("snapshot", "--snapshot", "a\x00b"), ("snapshot", "ops/a.py\x00"),
                                  ("snapshot", "--kernels", "ops/\x00*.py")])
def test_a_nul_on_the_command_line_is_one_line_exit_2(library, argv):
    assert_one_stderr_line_error(run_cli(*argv), 2)


# --- a kernel file that no longer loads, or an example no key can hold: fails the gate, loses nothing ----------

BREAKAGES = {
    "raises on import": "raise RuntimeError('boom')\n",
    "a syntax error": "def f(:\n",
    "TTINSPECT_EXAMPLES = 5": "TTINSPECT_EXAMPLES = 5\n",
    "an example that no longer compiles": "TTINSPECT_EXAMPLES['a']['signature'] = 'bogus'\n",
}
WRITING = [("snapshot", "--check", "--update"), ("snapshot",), ("snapshot", "--kernels", "ops/a.py"),
           ("snapshot", "ops/a.py")]


def _said(result) -> str:
    """Every stream of a run, which must hold no raw control character (a newline ends a line) and be UTF-8."""
    text = result.stdout + result.stderr
    assert not [c for c in text if (ord(c) < 32 and c != "\n") or 0x7F <= ord(c) < 0xA0 or 0xD800 <= ord(c) < 0xE000]
    return text


@pytest.mark.parametrize("breakage", list(BREAKAGES))
def test_a_kernel_file_that_no_longer_loads_keeps_its_committed_entries(library, breakage):
    """Every command that writes: exit 1 (the gate's verdict stands, `--update` too), the broken file's
    committed entries kept byte for byte beside every other file's, and the summary counts what the file holds."""
    snapshot = library / "ttinspect.snapshot.json"
    assert run_cli("snapshot").exit_code == 0
    committed = snapshot.read_text()
    source = (library / "ops" / "a.py").read_text()
    (library / "ops" / "a.py").write_text(source + BREAKAGES[breakage])
    for argv in WRITING:
        snapshot.write_text(committed)
        result = run_cli(*argv)
        said = _said(result)
        assert result.exit_code == 1, (argv, said)
        assert "FAIL" in said or "failed: ops/a.py:" in said, (argv, said)
        assert snapshot.read_text() == committed, (argv, said)  # both entries, as they were
        assert "2 entries" in said, (argv, said)
    checked = run_cli("snapshot", "--check")
    assert checked.exit_code == 1 and "ops/a.py:" in checked.stdout, checked.output


BAD_NAMES = {"an escape sequence": "'\\x1b]0;pwn\\x07'", "a lone surrogate": "'a\\ud800'", "a colon": "'a:b@sm_80'",
             "an at sign": "'x@sm_80'", "a release mark": "'a#triton=1.0.0'", "a bidi override": "'\\u202eb'",
             "empty": "''", "a number": "5", "a newline": "'a\\nb'"}


@pytest.mark.parametrize("name", list(BAD_NAMES))
def test_an_example_name_no_key_can_hold_is_one_failing_entry(library, name):
    """An example whose name holds a key separator, a control character or a lone surrogate: one failing entry
    naming the file:line and the name, quoted; the snapshot keeps what it held; never exit 70 or a raw ESC."""
    snapshot = library / "ttinspect.snapshot.json"
    assert run_cli("snapshot").exit_code == 0
    committed = snapshot.read_text()
    (library / "ops" / "a.py").write_text(ADD.replace("NAME", "a")
                                          + f"TTINSPECT_EXAMPLES[{BAD_NAMES[name]}] = TTINSPECT_EXAMPLES['a']\n")
    for argv in (("snapshot", "--check"), *WRITING):
        snapshot.write_text(committed)
        result = run_cli(*argv)
        said = _said(result)
        assert result.exit_code == 1, (argv, said)
        line = 13 if name == "a number" else 14  # the line that spells the name, else the declaration's
        # `snapshot --check` wraps its text to the terminal's width: the words are compared, not the line breaks
        assert f"ops/a.py:{line}: TTINSPECT_EXAMPLES: the example name" in " ".join(said.split()), (argv, said)
        assert snapshot.read_text() == committed, (argv, said)


# --- a snapshot in conflict, a pyproject.toml that is no file: the true cause, one line ----------------------------

def _in_conflict(text: str) -> dict[str, str]:
    lines = text.splitlines(keepends=True)
    middle = len(lines) // 2
    return {
        "wrapped whole": f"<<<<<<< HEAD\n{text}=======\n{text}>>>>>>> theirs\n",
        "wrapped whole, diff3": f"<<<<<<< ours\n{text}||||||| base\n{text}=======\n{text}>>>>>>> theirs\n",
        "inside": "".join(lines[:middle]) + "<<<<<<< HEAD\n" + lines[middle] + "=======\n" + lines[middle]
                  + ">>>>>>> theirs\n" + "".join(lines[middle + 1:]),
        "at the end": text + "<<<<<<< HEAD\n=======\n>>>>>>> theirs\n",
    }


def test_a_snapshot_in_conflict_is_named_so_wherever_the_markers_are(library):
    snapshot = library / "ttinspect.snapshot.json"
    assert run_cli("snapshot").exit_code == 0
    for where, text in _in_conflict(snapshot.read_text()).items():
        snapshot.write_text(text)
        for argv in (("snapshot", "--check"), ("snapshot",), ("snapshot", "ops/a.py")):
            line = assert_one_stderr_line_error(run_cli(*argv), 2, "a ttinspect snapshot with git conflict markers")
            marker_line = next(n for n, row in enumerate(text.splitlines(), 1) if row.startswith(("<", "=", "|", ">")))
            assert f"ttinspect.snapshot.json:{marker_line}:" in line, (where, line)
            assert snapshot.read_text() == text


def _not_a_file(kind: str, path) -> None:
    path.unlink()
    if kind == "a FIFO":
        os.mkfifo(path)
    elif kind == "a folder":
        path.mkdir()
    elif kind == "a link to a device":
        path.symlink_to("/dev/zero")
    else:
        path.symlink_to(path.parent / "nowhere")


@pytest.mark.parametrize("kind", ["a FIFO", "a folder", "a link to a device", "a link to nothing"])
def test_a_pyproject_that_is_no_regular_file_is_named_for_what_it_is(library, kind):
    """Never opened (a FIFO would hang the tool, /dev/zero never ends), never skipped for a pyproject.toml above."""
    _not_a_file(kind, library / "pyproject.toml")
    for argv in (("snapshot",), ("snapshot", "--check")):
        assert_one_stderr_line_error(run_cli(*argv), 2, "pyproject.toml: not a regular file", f"({kind})")


@pytest.mark.parametrize("nested", ["[" * 5000 + "]" * 5000, "{ a = " * 3000 + "1" + " }" * 3000])
def test_a_pyproject_nested_past_any_reader_is_one_line_exit_2(library, nested):
    with (library / "pyproject.toml").open("a") as pyproject:
        pyproject.write(f"x = {nested}\n")
    for argv in (("snapshot",), ("snapshot", "--check")):
        assert_one_stderr_line_error(run_cli(*argv), 2, "pyproject.toml: ", "nested too deep")
