"""The capture file (format 1): written by the session and joined by the merge, read back the same; a torn
last line is dropped with a warning, any other damage is one CaptureError naming file:line; the session never
raises into the program and stays bounded."""

from __future__ import annotations

import gzip
import json
import os
import sys
from pathlib import Path

import pytest

from ttinspect.capture import format as capture_format
from ttinspect.capture import session as capture_session
from ttinspect.capture.format import CaptureError, looks_like_capture, read
from ttinspect.capture.merge import merge
from ttinspect.capture.session import Session
from ttinspect.errors import EXIT_USAGE

sys.path.insert(0, str(Path(__file__).parent / "data" / "captures"))
from make_example import write_example  # noqa: E402

EXAMPLE = Path(__file__).parent / "data" / "captures" / "example.ttcap"
HEADER = {"tool": "ttinspect", "tool_version": "0", "created": "2025-01-01T00:00:00+00:00", "argv": ["prog"],
          "cwd": "/", "python": "3.11.7", "triton": "3.9.0", "torch": None, "interpreter": False, "device": None}


def compile_record(name: str = "kern", **changes) -> dict:
    return {"name": name, "params": ["x_ptr", "n", "BLOCK"], "signature": "*fp32:16, i32, 64",
            "constexprs": {"BLOCK": 64}, "options": {"num_warps": 4}, "target": None, **changes}


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("compress", [False, True])
def test_round_trip(tmp_path, compress):
    path = write_example(tmp_path, name="run.ttcap.gz" if compress else "run.ttcap", compress=compress)
    assert (path.read_bytes()[:2] == capture_format.GZIP_MAGIC) == compress
    capture = read(path)
    assert capture.complete and capture.end.exit_code == 0 and not capture.warnings
    assert [(c.id, c.name, c.number) for c in capture.compiles] == [
        ("k1", "tiled_mm", 1), ("k2", "tiled_mm", 2), ("k3", "scale_add", 1), ("k4", "scale_add", 2)]
    first = capture.compiles[0]
    kernel_file = str(tmp_path / "example_kernels.py")
    assert first.file == kernel_file and first.def_line == 16 and first.sources == {kernel_file: first.sha256}
    assert capture.source(first.sha256).text == (tmp_path / "example_kernels.py").read_text()
    assert first.constexprs == {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "EVEN_K": True}
    assert capture.header.device["name"] == "NVIDIA H100 80GB HBM3" and capture.header.argv[1] == "train.py"
    assert capture.launch_count("k2") == 13 and capture.launches_of("k2")[0].grids == ((8, 16, 1),)
    assert capture.launches_of("k3")[0].args[0]["x_ptr"] == {"dtype": "float32", "shape": [1000], "strides": [1]}
    tuned = capture.autotune[0]
    assert tuned.best == 1 and tuned.compiles == ("k1", "k2") and tuned.timings_ms == (0.214, 0.171)
    assert capture.heuristics[0].values == {"EVEN_K": True} and capture.heuristics[0].compile == "k2"
    assert [c.id for c in capture.named("scale_add")] == ["k3", "k4"]


def test_checked_in_example_reads_and_says_it_is_synthetic():
    capture = read(EXAMPLE)
    assert "synthetic" in capture.header.extra["note"] and len(capture.compiles) == 4 and capture.complete
    assert all(c.file == "/ttinspect-example/example_kernels.py" for c in capture.compiles)
    assert looks_like_capture(EXAMPLE)


def test_gzip_is_told_by_its_bytes_not_the_name(tmp_path):
    plain = tmp_path / "plain.ttcap.gz"  # named .gz, never compressed (a run that ended before compressing)
    plain.write_bytes(EXAMPLE.read_bytes())
    packed = tmp_path / "packed.ttcap"
    packed.write_bytes(gzip.compress(EXAMPLE.read_bytes()))
    assert read(plain).compiles == read(packed).compiles == read(EXAMPLE).compiles
    assert looks_like_capture(packed) and looks_like_capture(plain)
    assert not looks_like_capture(Path(__file__))


def test_torn_last_line_is_dropped_with_a_warning(tmp_path):
    torn = tmp_path / "torn.ttcap"
    torn.write_bytes(EXAMPLE.read_bytes() + b'{"type":"launches","compile":"k1","si')
    capture = read(torn)
    last = len(EXAMPLE.read_text().splitlines()) + 1
    assert capture.warnings == (f"{torn}:{last}: the last line is incomplete (the run stopped while writing it); "
                                "it was left out",)
    assert capture.compiles == read(EXAMPLE).compiles


def test_cut_gzip_reads_what_it_holds(tmp_path):
    cut = tmp_path / "cut.ttcap.gz"
    data = gzip.compress(EXAMPLE.read_bytes())
    cut.write_bytes(data[:-60])  # the last lines lost in transfer
    capture = read(cut)
    assert any("gzip stream ends early" in w for w in capture.warnings) and capture.compiles


def test_last_launches_line_wins(tmp_path):
    path = tmp_path / "x.ttcap"
    with path.open("w") as out:
        out.write(capture_format.encode({"format": 1, "type": "header", **HEADER}))
        out.write(capture_format.encode({"type": "compile", "id": "k1", **compile_record()}))
        for count in (1, 2, 4):
            out.write(capture_format.encode({"type": "launches", "compile": "k1", "site": "a.py:3", "count": count,
                                             "grids": [[1, 1, 1]], "args": []}))
        out.write(capture_format.encode({"type": "device", "device": {"name": "GPU", "arch": 90}}))
        out.write(capture_format.encode({"type": "from-a-later-ttinspect", "x": 1}))
    capture = read(path)
    assert [(e.site, e.count) for e in capture.launches] == [("a.py:3", 4)]
    assert capture.header.device == {"name": "GPU", "arch": 90} and not capture.complete


# One damage per row: (what is written after a valid header and compile k1, a fragment of the error).
DAMAGES = [
    ('not json\n', "damaged line, not JSON"),
    ('[1, 2]\n', "a JSON list where a record (object) belongs"),
    ('{"type":"launches","compile":"k9","site":"a.py:1","count":1}\n', "names compile 'k9'"),
    ('{"type":"launches","compile":"k1","site":"a.py:1","count":"many"}\n', "'count' of the launches record"),
    ('{"type":"compile","id":"k1","name":"k","params":[],"signature":""}\n', "compile id 'k1' also at line 2"),
    ('{"type":"compile","id":"k2","name":"k","params":[]}\n', "has no 'signature'"),
    ('{"type":"autotune","name":"k","configs":[{}],"best":3}\n', "'best' (3) is no index"),
    ('{"format":1,"type":"header"}\n', "a second header"),
    ('{"no":"type"}\n', 'a record without a "type"'),
    ('{"type":"launches","compile":"k1","site":"a.py:1","count":1}\n\xff\xfe\n', "not UTF-8"),
    ('{"type":"launches","compile":"k1","site":"a.py:1","count":1,"grids":[[1,1,1]],"args":[],"pairs":[[0,0]]}\n',
     "'pairs' holds [0, 0], not [an index of 'grids', an index of 'args'] (the record has 1 grids and 0 argument"),
    ('{"type":"launches","compile":"k1","site":"a.py:1","count":1,"pairs":[[0,99]]}\n',
     "'pairs[0][1]' of the launches record is 99"),
]


@pytest.mark.parametrize("tail, fragment", DAMAGES, ids=[d[1][:24] for d in DAMAGES])
def test_damage_is_one_error_naming_file_and_line(tmp_path, tail, fragment):
    path = tmp_path / "bad.ttcap"
    start = (capture_format.encode({"format": 1, "type": "header", **HEADER})
             + capture_format.encode({"type": "compile", "id": "k1", **compile_record()}))
    path.write_bytes(start.encode() + tail.encode("latin-1") + capture_format.encode({"type": "end"}).encode())
    with pytest.raises(CaptureError) as raised:
        read(path)
    message = str(raised.value)
    assert message.startswith(f"{path}:") and fragment in message and "\n" not in message, message
    assert raised.value.exit_code == EXIT_USAGE


@pytest.mark.parametrize("content, fragment", [
    (b"", "empty"),
    (b'{"type":"compile"}\n', "not a ttinspect capture"),
    (b'{"format":2,"type":"header"}\n', "format 2 was written by a later ttinspect"),
    (b'{"type":"header"}\n', "no format number"),
    (b"\x1f\x8bnot really gzip", "damaged gzip data"),
])
def test_not_a_capture(tmp_path, content, fragment):
    path = tmp_path / "x.ttcap"
    path.write_bytes(content)
    with pytest.raises(CaptureError, match=fragment):
        read(path)


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(CaptureError, match="no such capture file"):
        read(tmp_path / "absent.ttcap")
    with pytest.raises(CaptureError, match="a directory"):
        read(tmp_path)


# --- the session ------------------------------------------------------------------------------------------

def test_session_records_each_compile_once_and_bounds_summaries(tmp_path):
    session = Session(tmp_path / "1-1.ttcap", HEADER)
    first = session.add_compile(compile_record())
    assert session.add_compile(compile_record()) == first and session.add_compile(compile_record("other")) == "k2"
    asked = []

    grids, summaries = capture_session.MAX_GRIDS, capture_session.MAX_ARGS

    def summary(i: int):
        asked.append(i)
        return {"n": i % (summaries + 3)}

    for i in range(1000):
        session.add_launch(first, "a.py:1", (i % (grids + 5), 1, 1), lambda i=i: summary(i))
    session.close(exit_code=0)
    capture = read(tmp_path / "1-1.ttcap")
    entry = capture.launches_of(first)[0]
    assert entry.count == 1000 and len(entry.grids) == grids and len(entry.args) == summaries
    assert len(asked) <= 64 + grids + 10  # the first 64 launches', each new grid's, then at the powers of two
    # which kept grid went with which kept summary: launch i had grid i % (grids + 5) and n = i % (summaries + 3)
    summarized = [*range(64), 127, 255, 511]  # the launches whose count was ≤ 64 or a power of two
    assert set(entry.pairs) == {(i % (grids + 5), i % (summaries + 3)) for i in summarized
                                if i % (grids + 5) < grids and i % (summaries + 3) < summaries}
    assert capture.end.launches == 1000 and capture.end.compiles == 2
    # the count line is re-written as it doubles, not per launch
    assert sum(1 for r in lines_of(tmp_path / "1-1.ttcap") if r["type"] == "launches") <= 12


def test_session_records_which_grid_went_with_which_arguments(tmp_path):
    """A site launched at several shapes (a test suite's) keeps each grid with its own arguments, a grid first
    seen after the 64th launch too."""
    session = Session(tmp_path / "1-1.ttcap", HEADER)
    compile_id = session.add_compile(compile_record())
    for n in [1, 2, 3] * 30 + [9]:
        session.add_launch(compile_id, "a.py:1", (n, 1, 1), {"n": n * 64})
    session.close()
    entry = read(tmp_path / "1-1.ttcap").launches[0]
    assert entry.grids == ((1, 1, 1), (2, 1, 1), (3, 1, 1), (9, 1, 1)) and entry.count == 91
    assert [entry.args[a]["n"] // 64 == entry.grids[g][0] for g, a in entry.pairs] == [True] * 4


def test_source_recorded_once_per_content(tmp_path):
    kernel = tmp_path / "k.py"
    kernel.write_text("x = 1\n")
    big = tmp_path / "big.py"
    big.write_text("#" * (capture_session.MAX_SOURCE_TEXT + 1))
    session = Session(tmp_path / "1-1.ttcap", HEADER)
    sha = session.add_source(kernel)
    assert session.add_source(kernel) == sha and session.add_source(tmp_path / "absent.py") is None
    session.add_source(big)
    session.close()
    sources = read(tmp_path / "1-1.ttcap").sources
    assert len(sources) == 2 and sources[sha].text == "x = 1\n"
    assert [s.text for s in sources.values() if s.path == str(big)] == [None]


def test_a_summary_that_fails_or_a_list_grid_costs_nothing_else(tmp_path, capfd):
    session = Session(tmp_path / "1-1.ttcap", HEADER)
    compile_id = session.add_compile(compile_record())

    def broken():
        raise RuntimeError("an argument that cannot be described")

    for grid in ([4, 1, 1], (4, 1, 1), None):
        session.add_launch(compile_id, "a.py:1", grid, broken)
    session.add_launch(compile_id, "a.py:1", (4, 1, 1), {"n": 1})
    session.close()
    entry = read(tmp_path / "1-1.ttcap").launches[0]
    assert (entry.count, entry.grids, entry.args) == (4, ((4, 1, 1),), ({"n": 1},))
    assert capfd.readouterr().err == ""


def test_session_never_raises_into_the_program(tmp_path, capfd):
    session = Session(tmp_path / "1-1.ttcap", HEADER)
    compile_id = session.add_compile(compile_record(constexprs={"X": object()}))  # not JSON: written as text
    session._stream.close()  # the disk went away under it
    session.add_launch(compile_id, "a.py:1", (1, 1, 1))
    session.add_autotune({"name": "k", "configs": []})
    session.add_launch(compile_id, "a.py:1", (1, 1, 1))
    session.close()
    err = capfd.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("ttinspect: warning: capture stopped recording") and session.stopped
    assert read(tmp_path / "1-1.ttcap").compiles[0].constexprs["X"].startswith("<object object")


def test_session_is_bounded(tmp_path, monkeypatch, capfd):
    monkeypatch.setattr(capture_session, "MAX_SITES", 3)
    session = Session(tmp_path / "1-1.ttcap", HEADER)
    compile_id = session.add_compile(compile_record())
    for site in range(10):
        session.add_launch(compile_id, f"a.py:{site}", (1, 1, 1))
    session.close()
    assert len(read(tmp_path / "1-1.ttcap").launches) == 3
    err = capfd.readouterr().err.splitlines()
    assert len(err) == 1 and "capture limit reached: more than 3 launch sites" in err[0]


def test_session_refused_part_is_one_warning(tmp_path, capfd):
    session = Session(tmp_path / "absent-folder" / "1-1.ttcap", HEADER)
    assert session.stopped and session.add_compile(compile_record()) is None
    assert capfd.readouterr().err.count("ttinspect: warning: capture stopped recording") == 1


# --- joining the parts of a run ---------------------------------------------------------------------------

def _part(folder: Path, name: str, pid: int, ppid: int, launches: int, *, ended: bool, other: bool = False) -> None:
    session = Session(folder / name, {**HEADER, "created": f"2025-01-01T00:00:0{pid % 10}+00:00"})
    session._header.update(pid=pid)  # what a real process's pid would be
    if other:
        session.add_compile(compile_record("only_here"))
    compile_id = session.add_compile(compile_record())
    for _ in range(launches):
        session.add_launch(compile_id, "a.py:1", (1, 1, 1), {"n": 4})
    session.add_autotune({"name": "kern", "configs": [{}], "best": 0, "compiles": [compile_id]})
    if ended:
        session.close()
    else:
        session._write_sites()
        session._stream.close()
    # the header's pid and ppid, as the processes of a run would have them
    lines = (folder / name).read_text().splitlines(keepends=True)
    lines[0] = capture_format.encode({**json.loads(lines[0]), "pid": pid, "ppid": ppid})
    (folder / name).write_text("".join(lines))


@pytest.mark.parametrize("child_ended", [True, False])
def test_merge_joins_processes(tmp_path, child_ended):
    parts = tmp_path / ".run.parts"
    parts.mkdir()
    _part(parts, "100-1.ttcap", 100, 1, 5, ended=True)
    _part(parts, "101-1.ttcap", 101, 100, 7, ended=child_ended, other=True)  # a child: its own compile first
    out = tmp_path / "run.ttcap"
    merged = merge(parts, out, base_header={"argv": ["python", "x.py"], "cwd": "/w"}, exit_code=0, compress=False,
                   force=False)
    assert not parts.exists() and merged.processes == 2 and merged.launches == 12
    capture = read(out)
    assert [(c.id, c.name) for c in capture.compiles] == [("k1", "kern"), ("k2", "only_here")]
    assert [(e.compile, e.count, e.args) for e in capture.launches] == [("k1", 12, ({"n": 4},))]
    assert [a.compiles for a in capture.autotune] == [("k1",)]
    assert capture.end.exit_code == 0 and capture.header.argv == ("python", "x.py")
    assert capture.complete == child_ended  # a child that never closed its part lost its last counts (issue 38)
    assert capture.header.extra["processes"] == 2


def test_merge_keeps_which_grid_went_with_which_arguments(tmp_path):
    """Two processes launching one kernel from one line at different shapes: the joined pairs use the joined
    file's indices; a part written without pairs makes them unknown for the site."""
    parts = tmp_path / ".run.parts"
    parts.mkdir()
    for pid, sizes in ((100, (2, 3)), (101, (5, 3))):
        session = Session(parts / f"{pid}-1.ttcap", {**HEADER, "created": f"2025-01-01T00:00:0{pid % 10}+00:00"})
        compile_id = session.add_compile(compile_record())
        for n in sizes:
            session.add_launch(compile_id, "a.py:1", (n, 1, 1), {"n": n})
        session.close()
    out = tmp_path / "run.ttcap"
    merge(parts, out, base_header={}, exit_code=0, compress=False, force=False)
    (entry,) = read(out).launches
    assert {(entry.grids[g][0], entry.args[a]["n"]) for g, a in entry.pairs} == {(2, 2), (3, 3), (5, 5)}
    # a part from before pairs were recorded
    parts.mkdir()
    _part(parts, "100-1.ttcap", 100, 1, 2, ended=True)
    lines = [json.loads(line) for line in (parts / "100-1.ttcap").read_text().splitlines()]
    (parts / "100-1.ttcap").write_text("".join(capture_format.encode({k: v for k, v in r.items() if k != "pairs"})
                                               for r in lines))
    _part(parts, "101-1.ttcap", 101, 100, 2, ended=True)
    merge(parts, out, base_header={}, exit_code=0, compress=False, force=True)
    assert read(out).launches[0].pairs is None


def test_merge_without_an_ended_root_has_no_end(tmp_path):
    parts = tmp_path / ".run.parts"
    parts.mkdir()
    _part(parts, "100-1.ttcap", 100, 1, 3, ended=False)
    merged = merge(parts, tmp_path / "run.ttcap", base_header={}, exit_code=-9, compress=False, force=False)
    assert not merged.complete and not read(tmp_path / "run.ttcap").complete
    assert read(tmp_path / "run.ttcap").launch_count("k1") == 3


def test_merge_keeps_the_parts_when_the_file_cannot_be_written(tmp_path):
    parts = tmp_path / ".run.parts"
    parts.mkdir()
    _part(parts, "100-1.ttcap", 100, 1, 1, ended=True)
    out = tmp_path / "run.ttcap"
    out.write_text("the user's own file")  # appeared while the program ran
    with pytest.raises(Exception, match=f"each process's part is kept in {parts}"):
        merge(parts, out, base_header={}, exit_code=0, compress=False, force=False)
    assert out.read_text() == "the user's own file" and os.listdir(parts) == ["100-1.ttcap"]
