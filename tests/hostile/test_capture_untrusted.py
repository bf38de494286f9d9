"""A capture from someone else is data (issue 38, the reading side): every field of every record type of a
valid capture mutated by type, depth and size; paths that climb out; special files named *.ttcap;
concatenated and inflating gzip. Each must be read and used (`list`, the reference's translation, the replay
plan) or refused with exit 2 in one line naming the capture's file:line and the field — never exit 70, a
traceback, a hang, or a file written outside ttinspect's store."""

from __future__ import annotations

import copy
import gzip
import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from cli_helpers import ERROR, run_cli
from ttinspect.capture import file_bytes
from ttinspect.capture.format import CaptureError, encode, read
from ttinspect.errors import EXIT_USAGE, TTInspectError
from ttinspect.refs.captured import replay_plan, translate

sys.path.insert(0, str(Path(__file__).parent.parent / "data" / "captures"))
from make_example import write_example  # noqa: E402

DEEP = "<a list nested 5,000 deep>"  # written as such by _write: json.dumps itself cannot nest so deep
# what a field is replaced by: each JSON type, a value nested 5,000 deep, a string past every bound
MUTATIONS: dict[str, Any] = {"number": 5, "string": "x", "list": [5], "dict": {"a": 5}, "null": None, "bool": True,
                             "deep": DEEP, "huge": "y" * 100_000, "negative": -1}
MISSING = object()
# (record type, path to the field): every top-level field of each record type of the example, and the
# nested values the rest of ttinspect reads
FIELDS = [
    *[("header", (k,)) for k in ("format", "tool", "tool_version", "created", "argv", "cwd", "python", "triton",
                                 "torch", "interpreter", "device", "processes", "note")],
    ("header", ("argv", 0)), ("header", ("device", "arch")), ("header", ("device", "name")),
    *[("source", (k,)) for k in ("sha256", "path", "text")],
    *[("compile", (k,)) for k in ("id", "name", "qualname", "module", "file", "def_line", "sha256", "sources",
                                  "inductor", "params", "signature", "constexprs", "options", "target",
                                  "triton_cache_key", "triton_cache_dir", "autotuned", "ptx_version")],
    ("compile", ("params", 0)), ("compile", ("constexprs", "BLOCK_M")), ("compile", ("options", "num_warps")),
    ("compile", ("target", "arch")), ("compile", ("target", "backend")), ("compile", ("target", "warp_size")),
    ("compile", ("sources", "<first>")),
    *[("launches", (k,)) for k in ("compile", "site", "count", "grids", "args")],
    ("launches", ("grids", 0)), ("launches", ("grids", 0, 0)), ("launches", ("args", 0)),
    ("launches", ("args", 0, "a_ptr")), ("launches", ("args", 0, "a_ptr", "shape")),
    ("launches", ("args", 0, "a_ptr", "strides")), ("launches", ("args", 0, "a_ptr", "dtype")),
    ("launches", ("args", 0, "M")),
    *[("autotune", (k,)) for k in ("name", "file", "key", "configs", "timings_ms", "best", "pruned_to", "compiles")],
    ("autotune", ("configs", 0)), ("autotune", ("configs", 0, "kwargs")), ("autotune", ("configs", 0, "num_warps")),
    ("autotune", ("timings_ms", 0)), ("autotune", ("compiles", 0)),
    *[("heuristics", (k,)) for k in ("name", "values", "compile")], ("heuristics", ("values", "EVEN_K")),
    *[("end", (k,)) for k in ("compiles", "launches", "exit_code", "lost")],
]


@pytest.fixture(scope="module")
def example(tmp_path_factory) -> Path:
    return write_example(tmp_path_factory.mktemp("example"))


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _set(record: dict[str, Any], where: tuple[Any, ...], value: Any) -> None:
    holder: Any = record
    for key in where[:-1]:
        holder = holder[key] if not (isinstance(holder, dict) and key not in holder) else holder.setdefault(key, {})
    last = where[-1]
    if last == "<first>":
        last = next(iter(holder))
    if value is MISSING:
        if isinstance(holder, dict):
            holder.pop(last, None)
        else:
            del holder[last]
    else:
        holder[last] = value


def _write(path: Path, records: list[dict[str, Any]]) -> None:
    text = "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in records)
    path.write_text(text.replace(json.dumps(DEEP), "[" * 5_000 + "]" * 5_000))


def _used(path: Path) -> None:
    """What the commands do with a capture short of compiling: read, list, translate every compile into a
    file reference, and plan the replay of every launched one. TTInspectError of exit 2 is a refusal."""
    capture = read(path)
    run = run_cli("list", path, "--json")
    assert run.exit_code == 0, run.output
    json.loads(run.output)
    options = SimpleNamespace(settings={}, arch=None, source="captured")
    for record in capture.compiles:
        ref = f"{path}:{record.name}#{record.number}"
        for step in (lambda: translate(ref, options), lambda: replay_plan(ref)):
            try:
                step()
            except TTInspectError as error:
                assert error.exit_code == EXIT_USAGE and "\n" not in str(error), str(error)


def _assert_refused(path: Path, line: int | None, *fragments: str) -> str:
    run = run_cli("list", path)
    lines = run.output.splitlines()
    assert run.exit_code == EXIT_USAGE and len(lines) == 1 and lines[0].startswith(ERROR), run.output
    where = f"{path}:{line}:" if line else f"{path}"
    assert where in lines[0] and all(f in lines[0] for f in fragments), (where, fragments, lines[0])
    return lines[0]


def _tree(folder: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))}


@pytest.mark.parametrize("kind, where", FIELDS, ids=[f"{k}.{'.'.join(map(str, w))}" for k, w in FIELDS])
def test_every_field_mutated_is_read_or_refused_in_one_line(tmp_path, example, kind, where):
    original = _records(example)
    line = next(i for i, r in enumerate(original) if r["type"] == kind)
    for label, value in [*MUTATIONS.items(), ("missing", MISSING)]:
        records = copy.deepcopy(original)
        try:
            _set(records[line], where, value)
        except (KeyError, IndexError, TypeError):  # the example has no such nested value to replace
            continue
        path = tmp_path / f"{label}.ttcap"
        _write(path, records)
        before = _tree(example.parent), _tree(tmp_path)
        try:
            read(path)
        except CaptureError:
            said = _assert_refused(path, None)
            top = where[0] if where[0] != "<first>" else ""
            assert f"{path}:{line + 1}: " in said and top in said or "names compile" in said, said
            continue
        _used(path)
        assert (_tree(example.parent), _tree(tmp_path)) == before  # nothing written beside the capture


CLIMBING = ["../../evil.py", "/ttinspect-example/../../tmp/evil.py", "/r/./k.py", "relative/k.py", "/r/k.py\n",
            "/r/k\x00.py", "", "/r/"]


@pytest.mark.parametrize("field", ["file", "sources", "triton_cache_dir", "source.path", "autotune.file"])
@pytest.mark.parametrize("climbing", CLIMBING, ids=repr)
def test_a_path_that_climbs_out_is_refused_before_anything_is_written(tmp_path, example, field, climbing):
    records = _records(example)
    if field == "source.path":
        line = next(i for i, r in enumerate(records) if r["type"] == "source")
        records[line]["path"] = climbing
    elif field == "autotune.file":
        line = next(i for i, r in enumerate(records) if r["type"] == "autotune")
        records[line]["file"] = climbing
    else:
        line = next(i for i, r in enumerate(records) if r["type"] == "compile")
        if field == "sources":
            records[line]["sources"] = {climbing: records[line]["sha256"]}
        else:
            records[line][field] = climbing
    path = tmp_path / "climb.ttcap"
    _write(path, records)
    before = _tree(tmp_path)
    run = run_cli("report", f"{path}:tiled_mm#1", "--source", "captured")
    lines = run.output.splitlines()
    assert run.exit_code == EXIT_USAGE and len(lines) == 1 and f"{path}:{line + 1}:" in lines[0], run.output
    assert "absolute path" in lines[0] or "control characters" in lines[0] or "a string" in lines[0], lines[0]
    assert _tree(tmp_path) == before


def test_captured_sources_are_written_only_under_the_store(tmp_path, example):
    """The issue's case, made legal: the kernel's file is not on this machine, `--source captured` writes
    the captured text under <cache>/captured-sources/ and nowhere else."""
    records = _records(example)
    text = next(r for r in records if r["type"] == "source")["text"]
    kernel = "/nowhere-on-this-machine/pkg/example_kernels.py"
    for record in records:
        if record["type"] == "source":
            record["path"] = kernel
        if record["type"] == "compile":
            record["file"], record["sources"] = kernel, {kernel: record["sha256"]}
    path = tmp_path / "moved.ttcap"
    _write(path, records)
    before = _tree(tmp_path)
    options = SimpleNamespace(settings={}, arch=None, source="captured")
    copied = Path(translate(f"{path}:scale_add#1", options).file_ref.rsplit(":", 1)[0])
    assert "captured-sources" in copied.parts and copied.read_text() == text
    assert _tree(tmp_path) == before and not Path("/nowhere-on-this-machine").exists()


@pytest.mark.parametrize("make, fragment", [
    (lambda p: os.mkfifo(p), "a FIFO"),
    (lambda p: p.symlink_to("/dev/zero"), "a character device"),
    (lambda p: p.mkdir(), "a directory"),
    (lambda p: p.symlink_to(p.parent / "nothing-here.ttcap"), "no such capture file"),
    (lambda p: p.symlink_to(p), "cannot read it"),
], ids=["fifo", "dev-zero", "directory", "dangling-link", "link-loop"])
@pytest.mark.parametrize("command", [["list"], ["report", ":k"], ["check"]])
def test_special_files_are_refused_before_they_are_read(tmp_path, make, fragment, command):
    path = tmp_path / "run.ttcap"
    make(path)
    args = [command[0], f"{path}{command[1] if len(command) > 1 else ''}"]
    run = run_cli(*args)
    lines = run.output.splitlines()
    assert run.exit_code == EXIT_USAGE and len(lines) == 1 and fragment in lines[0], run.output


def test_a_fifo_is_never_sniffed_as_a_capture(tmp_path):
    fifo = tmp_path / "run.log"
    os.mkfifo(fifo)
    run = run_cli("list", f"{fifo}:k")  # not named .ttcap: sniffed only when a regular file
    assert run.exit_code == EXIT_USAGE and len(run.output.splitlines()) == 1, run.output


def test_a_link_to_a_capture_is_read(tmp_path, example):
    link = tmp_path / "link.ttcap"
    link.symlink_to(example)
    assert read(link).compiles == read(example).compiles


def test_concatenated_gzip_members_are_all_read(tmp_path, example):
    lines = example.read_bytes().splitlines(keepends=True)
    path = tmp_path / "joined.ttcap.gz"
    path.write_bytes(b"".join(gzip.compress(b"".join(lines[i:i + 3])) for i in range(0, len(lines), 3)))
    assert read(path).compiles == read(example).compiles and read(path).complete


@pytest.mark.parametrize("tail, fragment", [(b"garbage", "trailing garbage"), (b"\x1f\x8b\x08rubbish", "damaged gzip")])
def test_bytes_after_the_last_gzip_member_are_refused(tmp_path, example, tail, fragment):
    path = tmp_path / "tail.ttcap.gz"
    path.write_bytes(gzip.compress(example.read_bytes()) + tail)
    _assert_refused(path, None, fragment)


def test_a_gzip_bomb_is_refused_at_the_bound(tmp_path, example):
    """1 GiB of newlines in 1,024 members of 1 KB each: inflated only up to the bound, then one line."""
    member = gzip.compress(b"\n" * (1 << 20))
    path = tmp_path / "bomb.ttcap.gz"
    path.write_bytes(gzip.compress(example.read_bytes().splitlines(keepends=True)[0]) + member * 1024)
    _assert_refused(path, None, "once uncompressed, too large for a capture")


def test_a_large_plain_file_is_refused_at_the_bound(tmp_path, example, monkeypatch):
    monkeypatch.setattr(file_bytes, "MAX_BYTES", 4096)
    path = tmp_path / "large.ttcap"
    path.write_bytes(example.read_bytes().splitlines(keepends=True)[0] + b"\n" * 5000)
    _assert_refused(path, None, "too large for a capture")


@pytest.mark.parametrize("count", [10_000])
def test_many_records_are_listed_in_linear_time(tmp_path, example, count):
    records = _records(example)
    header, compile_record = records[0], next(r for r in records if r.get("name") == "scale_add")
    many = [header] + [{**compile_record, "id": f"k{i}"} for i in range(count)]
    many += [{"type": "launches", "compile": f"k{i}", "site": f"/w/a.py:{i}", "count": 1, "grids": [[i, 1, 1]],
              "args": []} for i in range(count)]
    path = tmp_path / "many.ttcap"
    _write(path, many)
    listing = json.loads(run_cli("list", path, "--json").output)
    assert len(listing["compiles"]) == count


def test_a_deep_line_and_a_huge_source_text(tmp_path, example):
    records = _records(example)
    path = tmp_path / "deep.ttcap"
    path.write_text(encode(records[0]) + "[" * 100_000 + "]" * 100_000 + "\n")
    _assert_refused(path, 2, "nested too deeply")
    records[1]["text"] = "z" * (9 << 20)
    _write(path, records)
    _assert_refused(path, 2, "'text' of the source record", "at most")


def test_what_the_run_lost_is_said_and_makes_it_incomplete(tmp_path, example):
    records = _records(example)
    end = next(r for r in records if r["type"] == "end")
    end["lost"] = ["the records of pid 12 (a forked child) after the parent exited", "a part deleted"]
    path = tmp_path / "lost.ttcap"
    _write(path, records)
    capture = read(path)
    assert not capture.complete and capture.end.lost == tuple(end["lost"])
    assert capture.warnings == (f"{path}: the run lost part of its recording: the records of pid 12 (a forked "
                                "child) after the parent exited (and 1 more loss(es)); what was kept is read",)
    run = run_cli("list", path)
    assert run.exit_code == 0 and "lost part of its recording" in run.output
