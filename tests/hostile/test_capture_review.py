"""A capture from someone else, as a black-box review of issue 38 found it could still win: each class
generated over every place it reaches, each answer exit 2 in one true line (or the capture read as it is).

- a string that is not Unicode text (a lone surrogate, `\\ud800` or surrogate-escaped `\\udcff`) in any
  field or key of any record: refused at its file:line and field, before any command writes anything;
- a key written twice in one object, at any depth of any record; a second end record (which would erase
  what the first says was lost) or header;
- lines that hold no header: empty, CR-only line endings, a torn header; a cut-short gzip: one line each;
- a capture reference whose kernel part is not a name (`run.ttcap:a b`, an escape sequence); a name that is
  a Python identifier but not ASCII (`ädd`) is one;
- captured paths that cannot be laid out as files (a file that is also a folder, a name or path too long);
- a capture naming files of this machine: their digest here is never printed;
- a capture's `module` choosing whether a program's top-level statements run: the file decides;
- a warning with escape sequences raised at a kernel file's import: quoted;
- a failure after `html FILE.ttcap` has written some pages: none left behind.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from cli_helpers import ERROR, run_cli
from ttinspect.capture.format import CaptureError, read
from ttinspect.capture.program_file import is_program
from ttinspect.errors import EXIT_USAGE
from ttinspect.refs.captured import parse_capture_ref, replay_plan, translate
from ttinspect.refs.userfile import parse_file_ref

sys.path.insert(0, str(Path(__file__).parent.parent / "data" / "captures"))
from make_example import write_example  # noqa: E402

NOT_TEXT = ["\ud800", "\udfff", "\udcff", "a\udc80b"]  # lone high/low surrogates, surrogate-escaped bytes


@pytest.fixture(scope="module")
def example(tmp_path_factory) -> Path:
    return write_example(tmp_path_factory.mktemp("example"))


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    # ensure_ascii: a lone surrogate goes into the file as the JSON escape a stranger would write
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
    return path


def _tree(folder: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))}


def _one_line(run, *fragments: str) -> str:
    lines = run.output.splitlines()
    assert run.exit_code == EXIT_USAGE and len(lines) == 1 and lines[0].startswith(ERROR), run.output
    assert all(f in lines[0] for f in fragments), (fragments, lines[0])
    return lines[0]


def _places(value: Any, where: tuple = ()) -> list[tuple[tuple, bool]]:
    """Every string of a record: (its path, whether it is a key) — keys of objects and string values."""
    if isinstance(value, str):
        return [(where, False)]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in [((*where, k), True), *_places(v, (*where, k))]]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _places(v, (*where, i))]
    return []


def _replaced(record: dict[str, Any], where: tuple, key: bool, bad: str) -> dict[str, Any]:
    record = json.loads(json.dumps(record))
    holder: Any = record
    for step in where[:-1]:
        holder = holder[step]
    last = where[-1]
    if key:
        holder[last + bad] = holder.pop(last)
    else:
        holder[last] = holder[last][:1] + bad + holder[last][1:]
    return record


def test_a_string_that_is_not_unicode_text_is_refused_wherever_it_is(tmp_path, example):
    """Every key and string value of every record of the example (about 400 places) × 4 kinds of lone
    surrogate: `read` refuses each with the line and the field; the type field included."""
    original = _records(example)
    cases = 0
    for line, record in enumerate(original, 1):
        for index, (where, key) in enumerate(_places(record)):
            bad = NOT_TEXT[index % len(NOT_TEXT)]
            records = [*original[:line - 1], _replaced(record, where, key, bad), *original[line:]]
            path = _write(tmp_path / "bad.ttcap", records)
            with pytest.raises(CaptureError) as refused:
                read(path)
            said = str(refused.value)
            assert said.startswith(f"{path}:{line}: ") and "not Unicode text" in said and "\n" not in said, said
            lone = next(c for c in bad if 0xD800 <= ord(c) <= 0xDFFF)
            assert f"the lone surrogate {ascii(lone)}" in said, said  # quoted, as an escape
            cases += 1
    assert cases > 300


@pytest.mark.parametrize("kind, where", [
    ("header", ("argv", 0)), ("header", ("cwd",)), ("header", ("device", "name")), ("launches", ("site",)),
    ("compile", ("constexprs", "BLOCK_M")), ("launches", ("args", 0, "M")), ("source", ("text",)),
], ids=lambda v: ".".join(map(str, v)) if isinstance(v, tuple) else v)
@pytest.mark.parametrize("command", ["list", "check", "html", "report"])
def test_a_lone_surrogate_is_one_line_for_every_command_and_nothing_is_written(tmp_path, example, kind, where,
                                                                               command):
    records = _records(example)
    line = next(i for i, r in enumerate(records) if r["type"] == kind)
    holder: Any = records[line]
    for step in where[:-1]:
        holder = holder[step]
    holder[where[-1]] = "\ud800"
    path = _write(tmp_path / "bad.ttcap", records)
    before = _tree(tmp_path)
    args = {"list": ["list", path], "check": ["check", path], "report": ["report", f"{path}:scale_add#1",
            "--source", "captured"], "html": ["html", path, "-o", tmp_path / "x.html", "--force"]}[command]
    _one_line(run_cli(*args), f"{path}:{line + 1}:", "not Unicode text")
    assert _tree(tmp_path) == before


def _inject(line: str, key: str, value: Any, inner: str | None = None) -> str:
    """The JSON line with `"key": value` written again at the start of its object (or of the object at
    top-level field `inner`)."""
    pair = json.dumps(key) + ":" + json.dumps(value) + ","
    if inner is None:
        return "{" + pair + line[1:]
    at = line.index(json.dumps(inner) + ":{") + len(json.dumps(inner)) + 2
    return line[:at] + pair + line[at:]


def test_a_key_written_twice_is_refused_at_any_depth_of_any_record(tmp_path, example):
    lines = example.read_text().splitlines()
    cases = 0
    for number, text in enumerate(lines, 1):
        record = json.loads(text)
        places = [(key, None) for key in record]
        places += [(key, top) for top, value in record.items() if isinstance(value, dict) for key in value
                   if json.dumps(top) + ":{" in text]
        for key, inner in places:
            value = record[key] if inner is None else record[inner][key]
            path = tmp_path / "twice.ttcap"
            path.write_text("\n".join([*lines[:number - 1], _inject(text, key, value, inner), *lines[number:]]) + "\n")
            with pytest.raises(CaptureError, match=re.escape(f"{path}:{number}: the key {key!r} is written twice")):
                read(path)
            cases += 1
    assert cases > 50
    _one_line(run_cli("list", path), "is written twice")


@pytest.mark.parametrize("second", [
    {"type": "end", "compiles": 1, "launches": 1, "exit_code": 0},
    {"type": "end", "compiles": 0, "launches": 0, "exit_code": None, "lost": []},
    {"type": "header", "format": 1},
], ids=["end-without-lost", "end-with-empty-lost", "header"])
@pytest.mark.parametrize("command", ["list", "check"])
def test_a_second_end_or_header_cannot_make_a_lossy_capture_whole(tmp_path, example, second, command):
    records = _records(example)
    next(r for r in records if r["type"] == "end")["lost"] = ["a part deleted"]
    path = _write(tmp_path / "twice.ttcap", [*records, second])
    with pytest.raises(CaptureError, match=f"{len(records) + 1}: a second"):
        read(path)
    _one_line(run_cli(command, path), f"{path}:{len(records) + 1}: a second")


@pytest.mark.parametrize("data, fragment", [
    (b"", "empty; a capture starts with its header line"),
    (b"  \n\n", "empty; a capture starts with its header line"),
    (b'{"format":1,"type":"header"}\r{"type":"end"}\r', "its lines end in a carriage return alone"),
    (b'{"format":1,"type":"hea', ":1: a torn header"),
    (b'{"format":1,"ty', ":1: a torn header"),
], ids=["empty", "blank", "cr-only", "torn-header", "torn-early"])
def test_a_file_without_a_whole_header_line_says_what_it_holds(tmp_path, data, fragment):
    path = tmp_path / "run.ttcap"
    path.write_bytes(data)
    _one_line(run_cli("list", path), fragment)


@pytest.mark.parametrize("cut", [0.3, 0.6, 0.9])
def test_a_cut_short_gzip_is_one_line_when_the_kernel_is_not_in_what_is_left(tmp_path, example, cut):
    whole = gzip.compress(example.read_bytes())
    path = tmp_path / "cut.ttcap.gz"
    path.write_bytes(whole[:int(len(whole) * cut)])
    try:
        read(path)
    except CaptureError as error:  # cut inside the header: refused, one line
        _one_line(run_cli("report", f"{path}:nope"), str(error))
        return
    run = run_cli("report", f"{path}:nope")
    _one_line(run, "no kernel 'nope'", "the capture is incomplete", "cut short")
    assert run.stderr.count("\n") == 1


@pytest.mark.parametrize("tail", ["a b", "x\x1by", "1abc", "a-b", " ", "\u202ek"], ids=ascii)
@pytest.mark.parametrize("command", ["list", "check", "report"])
def test_a_kernel_part_that_is_not_a_name_is_refused_never_ignored(example, tail, command):
    _one_line(run_cli(command, f"{example}:{tail}"), f"{example}:", "kernel")


@pytest.mark.parametrize("name", ["ädd", "ärger_kernel", "_π", "Ω2"])
def test_a_non_ascii_identifier_is_a_name_in_every_reference(tmp_path, example, name):
    assert parse_capture_ref(f"{example}:{name}#2:BLOCK=4@sm_90").name == name
    kernel = tmp_path / "u.py"
    kernel.write_text("")
    assert parse_file_ref(f"{kernel}:{name}").name == name
    records = _records(example)
    for record in records:
        if record["type"] == "compile" and record["name"] == "scale_add":
            record["name"] = name
    path = tmp_path / "named.ttcap"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    listing = json.loads(run_cli("list", f"{path}:{name}", "--json").output)
    assert {row["kernel"] for row in listing["compiles"]} == {name}


def _with_extra_source(example: Path, tmp_path: Path, extra: str, text: str = "y = 1\n") -> Path:
    records = _records(example)
    digest = hashlib.sha256(text.encode()).hexdigest()
    records.insert(1, {"type": "source", "sha256": digest, "path": extra, "text": text})
    for record in records:
        if record["type"] == "compile":
            record["sources"] = {**record["sources"], extra: digest}
    return _write(tmp_path / "layout.ttcap", records)


@pytest.mark.parametrize("extra, fragment", [
    ("<kernel>/x.py", "is a file and also the folder of"),
    ("<dir>/" + "a" * 300 + ".py", "has a name of 303 bytes"),
    ("<dir>/" + "/".join(["b" * 200] * 25) + ".py", "is too long a path to write"),
], ids=["file-and-folder", "long-name", "long-path"])
def test_captured_files_that_cannot_be_laid_out_are_named_as_the_cause(tmp_path, example, extra, fragment):
    kernel = next(r for r in _records(example) if r["type"] == "compile")["file"]
    extra = extra.replace("<kernel>", kernel).replace("<dir>", str(Path(kernel).parent))
    path = _with_extra_source(example, tmp_path, extra)
    before = _tree(tmp_path)
    _one_line(run_cli("report", f"{path}:scale_add#1", "--source", "captured"),
              "the capture's files cannot be laid out", fragment)
    assert _tree(tmp_path) == before


@pytest.mark.parametrize("probe", ["extra-file", "the-kernels-own-file"])
def test_a_capture_never_learns_the_digest_of_a_file_here(tmp_path, example, probe):
    secret = tmp_path / "secret.txt"
    secret.write_text("the user's own data\n")
    here = hashlib.sha256(secret.read_bytes()).hexdigest()
    records = _records(example)
    for record in records:
        if record["type"] == "compile":
            if probe == "extra-file":
                record["sources"] = {**record["sources"], str(secret): "0" * 64}
            else:
                record["file"], record["sources"] = str(secret), {str(secret): "0" * 64}
    path = _write(tmp_path / "probe.ttcap", records)
    for args in (["report", f"{path}:scale_add#1"], ["check", path]):
        said = _one_line(run_cli(*args), "changed since the capture")
        assert not any(here[i:i + 8] in said for i in range(len(here) - 8)), said


PROGRAM = """import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


{action}
"""
ACTIONS = {"bare call": "open({sentinel!r}, 'w').write('ran')", "loop": "for _ in [1]:\n    open({sentinel!r}, 'w')",
           "with": "with open({sentinel!r}, 'w'):\n    pass", "in an if": "if True:\n    open({sentinel!r}, 'w')"}
LIBRARY = {"definitions only": "X = 1", "a main guard": "if __name__ == '__main__':\n    open({sentinel!r}, 'w')"}


def _kernel_capture(tmp_path: Path, example: Path, source: str, module: str | None) -> Path:
    """A capture of one compile and launch of `k` in prog.py (written with `source`), its record's module
    `module` (None: no module field)."""
    kernel = tmp_path / "prog.py"
    kernel.write_text(source)
    digest = hashlib.sha256(kernel.read_bytes()).hexdigest()
    records = _records(example)
    compile_record = {"type": "compile", "id": "c1", "name": "k", "qualname": "k", "file": str(kernel),
                      "def_line": 5, "sha256": digest, "sources": {str(kernel): digest},
                      "params": ["x_ptr", "n", "BLOCK"],
                      "signature": "*fp32:16, i32, 256", "constexprs": {"BLOCK": 256}, "options": {},
                      **({"module": module} if module is not None else {})}
    launches = {"type": "launches", "compile": "c1", "site": f"{kernel}:12", "count": 1, "grids": [[1, 1, 1]],
                "args": [{"x_ptr": {"dtype": "float32", "shape": [256], "strides": [1]}, "n": 256}]}
    return _write(tmp_path / "prog.ttcap", [records[0], compile_record, launches, records[-1]])


@pytest.mark.parametrize("module", ["os", "prog", "__main__", "ttinspect", None])
@pytest.mark.parametrize("action", [*ACTIONS, *LIBRARY])
def test_the_file_not_the_capture_decides_whether_a_program_runs(tmp_path, example, module, action):
    sentinel = tmp_path / "ran"
    source = PROGRAM.format(action={**ACTIONS, **LIBRARY}[action].format(sentinel=str(sentinel)))
    path = _kernel_capture(tmp_path, example, source, module)
    program = action in ACTIONS
    assert is_program(tmp_path / "prog.py") == program
    options = SimpleNamespace(settings={}, arch=None, source=None)
    assert translate(f"{path}:k", options).script == (program or module == "__main__")
    assert replay_plan(f"{path}:k")[2].script == (program or module == "__main__")
    assert not sentinel.exists()


@pytest.mark.parametrize("module", ["os", "pkg.prog", "prog"])
def test_a_file_of_a_package_is_imported_as_python_imports_it_whatever_the_capture_says(tmp_path, example, module):
    """Its name comes from its place in the package, not from the capture; only `__main__` narrows it."""
    (tmp_path / "__init__.py").write_text("")
    path = _kernel_capture(tmp_path, example, PROGRAM.format(action="print('acts')"), module)
    assert is_program(tmp_path / "prog.py")
    assert not translate(f"{path}:k", SimpleNamespace(settings={}, arch=None, source=None)).script


def test_a_program_named_by_any_module_is_loaded_for_its_definitions(tmp_path, example):
    """End to end: the whole command, a capture saying `"module": "os"` of a script whose top level writes a
    file: the kernel is compiled, the script's statement never runs."""
    sentinel = tmp_path / "ran"
    path = _kernel_capture(tmp_path, example, PROGRAM.format(action=ACTIONS["bare call"].format(
        sentinel=str(sentinel))), "os")
    run = run_cli("report", f"{path}:k", "--arch", "sm_90", "--json")
    assert run.exit_code == 0, run.output
    assert not sentinel.exists()


@pytest.mark.parametrize("message", ["\x1b]0;pwn\x07", "\x1b[2J", "a\rb", "\u202eevil", "\x9b31m",
                                     "\x1b]52;c;eA==\x07"], ids=ascii)
def test_a_warning_at_import_is_shown_quoted(tmp_path, message):
    kernel = tmp_path / "w.py"
    kernel.write_text(f"import warnings\nimport triton\nwarnings.warn({message!r})\n\n\n@triton.jit\ndef k(x):\n"
                      "    pass\n")
    run = run_cli("list", kernel)
    assert run.exit_code == 0, run.output
    assert "UserWarning" in run.stderr and not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]", run.stderr)


def test_html_of_a_capture_leaves_no_page_behind_when_it_fails(tmp_path, monkeypatch):
    """The index is written last: when anything fails after some compiles' pages are written (here the
    index itself), the pages this run wrote and the folder it made are removed."""
    from ttinspect.html import capture_index

    rows = [SimpleNamespace(report=object(), row={"kernel": f"k{i}", "number": 1, "of": 1}) for i in range(3)]
    monkeypatch.setattr(capture_index, "check_capture", lambda text, options: ({}, rows))
    monkeypatch.setattr(capture_index, "write_html", lambda report, path, **_: (path.write_text("page"), path)[1])

    def fails(*_):
        raise UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")

    monkeypatch.setattr(capture_index, "render_index", fails)
    with pytest.raises(UnicodeEncodeError):
        capture_index.write_capture_html("run.ttcap", tmp_path / "x.html")
    assert list(tmp_path.iterdir()) == []
