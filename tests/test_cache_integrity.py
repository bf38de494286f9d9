"""A cache that cannot lie: damaged entries are compiled again (never printed as the kernel), and a
cache that cannot be written — read-only, a file in the way, a full disk — costs one warning line.
Through the public CLI, in fresh processes, as a user would meet it."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import run_process

from ttinspect.caches import store as cache
from ttinspect.caches.info import cache_info, clear

REPO = Path(__file__).resolve().parents[1]
USER_FILE = REPO / "tests" / "data" / "user_kernels" / "my_mm.py"


def run_in_cache(*args: str, cache_dir: Path, check: bool = True, **env: str) -> subprocess.CompletedProcess:
    """`ttinspect ARGS` as a process whose cache is `cache_dir`; exit 0 asserted unless `check=False`."""
    return run_process(*args, env={"TTINSPECT_CACHE_DIR": str(cache_dir), **env}, check=check)


def entries(root: Path) -> list[Path]:
    return sorted(p for p in root.glob("??/*") if p.is_dir() and not p.name.startswith("."))


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    """A cache holding opt for sm_90, and what its PTX dump and report look like when whole."""
    root = tmp_path_factory.mktemp("integrity")
    dump = run_in_cache("dump", "opt", "--stage", "ptx", "--arch", "sm_90", cache_dir=root).stdout
    report = run_in_cache("report", "opt", "--arch", "sm_90", "--json", cache_dir=root).stdout
    return root, dump, report


@pytest.fixture
def cache_copy(warm, tmp_path):
    root, dump, report = warm
    copy = tmp_path / "cache"
    shutil.copytree(root, copy)
    (entry,) = entries(copy)
    return copy, entry, dump, report


# --- damage is detected, reported in one line, and repaired -----------------------------------------

@pytest.mark.parametrize("damage", ["garbage_ptx", "truncated_ptx", "missing_ttgir", "garbage_metadata",
                                    "missing_metadata", "missing_manifest", "garbage_manifest"])
def test_a_damaged_entry_is_compiled_again_not_shown(cache_copy, damage):
    root, entry, dump, report = cache_copy
    if damage == "garbage_ptx":
        (entry / "kernel.ptx").write_text("garbage\n")
    elif damage == "truncated_ptx":
        data = (entry / "kernel.ptx").read_bytes()
        (entry / "kernel.ptx").write_bytes(data[: len(data) // 2])
    elif damage == "missing_ttgir":
        (entry / "kernel.ttgir").unlink()
    elif damage == "garbage_metadata":
        (entry / "metadata.json").write_text("{")
    elif damage == "missing_metadata":
        (entry / "metadata.json").unlink()
    elif damage == "missing_manifest":
        (entry / "manifest.json").unlink()
    else:
        (entry / "manifest.json").write_bytes(b"\xff\xfe")
    shown = run_in_cache("dump", "opt", "--stage", "ptx", "--arch", "sm_90", cache_dir=root)
    assert shown.stdout == dump
    assert "garbage" not in shown.stdout
    reported = run_in_cache("report", "opt", "--arch", "sm_90", "--json", cache_dir=root)
    assert reported.stdout == report
    # Only the files a command reads are checked: the PTX dump never reads the TTGIR, the report does.
    first = reported if damage == "missing_ttgir" else shown
    warnings = [line for line in first.stderr.splitlines() if line.strip()]
    assert len(warnings) == 1 and "damaged" in warnings[0] and "compiling it again" in warnings[0], first.stderr
    if damage != "missing_ttgir":
        assert reported.stderr == ""  # repaired for good
    again = run_in_cache("dump", "opt", "--stage", "ptx", "--arch", "sm_90", cache_dir=root)
    assert again.stdout == dump and again.stderr == ""


def test_report_rebuilds_when_a_stage_it_reads_is_missing(cache_copy):
    root, entry, _, report = cache_copy
    (entry / "kernel.ttgir").unlink()
    done = run_in_cache("report", "opt", "--arch", "sm_90", "--json", cache_dir=root)
    assert done.stdout == report and "kernel.ttgir is missing" in done.stderr


def test_a_damaged_derived_file_is_derived_again(cache_copy):
    root, entry, _, _ = cache_copy
    sass = run_in_cache("dump", "opt", "--stage", "sass", "--arch", "sm_90", cache_dir=root).stdout
    (entry / "kernel.sass").write_text("not sass\n")
    done = run_in_cache("dump", "opt", "--stage", "sass", "--arch", "sm_90", cache_dir=root)
    assert done.stdout == sass and "deriving it again" in done.stderr


def test_a_user_file_kernel_is_rebuilt_from_its_file(tmp_path):
    """The warm path of a file reference (a memo naming the entry) repairs too."""
    root = tmp_path / "cache"
    args = ("dump", f"{USER_FILE}:small", "--stage", "ptx", "--arch", "sm_80")
    first = run_in_cache(*args, cache_dir=root).stdout
    for entry in entries(root):
        (entry / "kernel.ptx").write_text("garbage\n")
    done = run_in_cache(*args, cache_dir=root)
    assert done.stdout == first and "compiling it again" in done.stderr


def test_staging_leftovers_of_a_killed_writer_are_ignored(cache_copy):
    """A process killed while storing leaves a `.<key>-*` directory: never read, counted by cache-info,
    removed by --clear."""
    root, entry, dump, _ = cache_copy
    half = entry.parent / f".{entry.name[:12]}-killed"
    half.mkdir()
    (half / "kernel.ptx").write_text("half written")
    shutil.rmtree(entry)
    assert run_in_cache("dump", "opt", "--stage", "ptx", "--arch", "sm_90", cache_dir=root).stdout == dump
    info = cache_info(root)
    assert info.leftovers == 1 and info.entries == 1
    cleared = clear(root)
    assert cleared.entries == 1 and cleared.removed["leftovers"] == 1 and not half.exists() \
        and cache_info(root).entries == 0


def test_a_process_killed_mid_compile_leaves_a_usable_cache(tmp_path):
    root = tmp_path / "cache"
    (tmp_path / "tmp").mkdir()  # a SIGKILLed process cannot remove its temporary folders: keep them in ours
    environ = {**os.environ, "TTINSPECT_CACHE_DIR": str(root), "TRITON_CACHE_DIR": str(tmp_path / "triton"),
               "TMPDIR": str(tmp_path / "tmp")}
    for delay in (0.5, 2.0, 4.0):  # before, during and after Triton's work, depending on the machine
        process = subprocess.Popen([sys.executable, "-m", "ttinspect", "report", "tileon", "--arch", "sm_80"],
                                   env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait()
        for entry in entries(root):
            cache.read(entry, cache.METADATA)  # whatever is at an entry's name is whole
    done = run_in_cache("report", "tileon", "--arch", "sm_80", "--json", cache_dir=root)
    assert json.loads(done.stdout)


def test_eight_processes_at_once(tmp_path):
    """Four on the same key, four on different keys, all starting cold on one cache directory."""
    root = tmp_path / "cache"
    environ = {**os.environ, "TTINSPECT_CACHE_DIR": str(root)}
    commands = [["dump", "add", "--stage", "ptx", "--arch", "sm_90"]] * 4 + [
        ["dump", "add", "--stage", "ptx", "--arch", arch] for arch in ("sm_80", "sm_86", "sm_89", "sm_120")]
    processes = [subprocess.Popen([sys.executable, "-m", "ttinspect", *c], env=environ, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for c in commands]
    results = [(p.communicate(timeout=600), p.returncode) for p in processes]
    assert all(code == 0 for _, code in results), [err for (_, err), _ in results]
    same = {out for (out, _), _ in results[:4]}
    assert len(same) == 1
    assert len({out for (out, _), _ in results[4:]}) == 4
    found = entries(root)
    assert len(found) == 5
    for entry in found:
        for name in cache.manifest(entry):
            cache.read(entry, name)
    assert not [p for p in root.glob("??/.*")]  # no staging left behind


# --- a cache that cannot be written -----------------------------------------------------------------

def test_a_file_where_the_cache_should_be(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("mine")
    done = run_in_cache("dump", "add", "--stage", "ttir", "--arch", "sm_90", cache_dir=blocker)
    assert "tt.func" in done.stdout
    assert done.stderr.count("\n") == 1 and "a file is in the way" in done.stderr
    assert blocker.read_text() == "mine"  # nothing the user had is touched


def _make_read_only(path: Path) -> bool:
    """Permission bits for a user; root writes through them, so the immutable attribute (chattr +i)."""
    if os.geteuid() != 0:
        path.chmod(0o500)
        return True
    done = subprocess.run(["chattr", "+i", str(path)], capture_output=True)
    return done.returncode == 0


def _make_writable(path: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(path)], capture_output=True)
    path.chmod(0o700)


def test_a_read_only_cache_directory(tmp_path):
    root = tmp_path / "ro"
    root.mkdir()
    if not _make_read_only(root):
        pytest.skip("cannot make a directory read-only here (root without chattr +i)")
    try:
        done = run_in_cache("dump", "add", "--stage", "ttir", "--arch", "sm_90", cache_dir=root)
    finally:
        _make_writable(root)
    assert "tt.func" in done.stdout and "working without a cache" in done.stderr
    assert done.stderr.count("\n") == 1 and not list(root.iterdir())


@pytest.mark.parametrize("code", [errno.EROFS, errno.EACCES, errno.ENOSPC])
def test_unwritable_cache_falls_back_with_one_warning(tmp_path, monkeypatch, capsys, code):
    """Read-only file systems, permissions and a full disk, injected where the entry is written."""
    from ttinspect import inspect

    monkeypatch.setenv("TTINSPECT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_fallback", None)
    monkeypatch.setattr(cache, "_warned", set())
    real = cache.tempfile.mkdtemp

    def failing(suffix=None, prefix=None, dir=None):  # the staging directory of an entry cannot be made
        if dir is not None and str(tmp_path / "cache") in str(dir):
            raise OSError(code, os.strerror(code), str(dir))
        return real(suffix, prefix, dir)

    monkeypatch.setattr(cache.tempfile, "mkdtemp", failing)
    report = inspect("add", arch="sm_90")
    entry = report.build.artifacts.directory
    assert "tt.func" in report.build.artifacts.text("ttir")
    err = capsys.readouterr().err
    assert err.count("ttinspect: warning:") == 1 and "working without a cache" in err
    assert cache._fallback is not None and entry.is_relative_to(cache._fallback)
    assert not list((tmp_path / "cache").glob("??/*"))


def test_no_space_anywhere_is_one_clear_error(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from ttinspect.cli.main import cli

    monkeypatch.setenv("TTINSPECT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_fallback", None)

    def full(base, key, files):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(base))

    monkeypatch.setattr(cache, "_store_in", full)
    result = CliRunner().invoke(cli, ["dump", "add", "--stage", "ttir", "--arch", "sm_90", "--set", "BLOCK_SIZE=512"])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("ttinspect: error: cannot store a compiled kernel: no space left on device")
    assert "Traceback" not in result.stderr


def test_derived_files_on_a_read_only_entry_are_still_shown(tmp_path, monkeypatch, capsys):
    entry = cache.store("cd" * 32, {"metadata.json": b"{}", "kernel.ptx": b"ptx"}, root=tmp_path)
    monkeypatch.setattr(cache, "_warned", set())

    def refuse(*args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(cache.tempfile, "mkstemp", refuse)
    assert cache.add_file(entry, "kernel.sass", b"sass") is None
    assert "derived files are not kept" in capsys.readouterr().err
    monkeypatch.undo()
    monkeypatch.setenv("TTINSPECT_CACHE_DIR", str(tmp_path / "c2"))
    from ttinspect.engine.builds import build

    built = build("add", arch="sm_90")
    monkeypatch.setattr(cache.tempfile, "mkstemp", refuse)
    assert ".text.add_kernel" in built.artifacts.text("sass")  # shown, though not kept
    assert not (built.artifacts.directory / "kernel.sass").exists()


# --- the store itself -------------------------------------------------------------------------------

def test_every_read_is_checked_against_the_manifest(tmp_path):
    entry = cache.store("ef" * 32, {"metadata.json": b"{}", "kernel.ptx": b"ptx"}, root=tmp_path)
    assert json.loads((entry / "manifest.json").read_text())["kernel.ptx"] == cache.digest(b"ptx")
    assert cache.read(entry, "kernel.ptx") == b"ptx"
    (entry / "kernel.ptx").write_bytes(b"ptY")
    with pytest.raises(cache.Damaged, match="does not match its digest"):
        cache.read(entry, "kernel.ptx")
    with pytest.raises(cache.Damaged, match="kernel.llir is missing"):
        cache.read(entry, "kernel.llir")
    cache.add_file(entry, "kernel.sass", b"sass")
    assert cache.read(entry, "kernel.sass") == b"sass"
    (entry / "kernel.sass.sha256").write_text("0" * 64)
    with pytest.raises(cache.Damaged):
        cache.read(entry, "kernel.sass")


def test_clear_removes_only_what_ttinspect_wrote(tmp_path):
    root = tmp_path  # empty when ttinspect first writes: tagged as its own
    cache.store("ab" * 32, {"metadata.json": b"{}"}, root=root)
    assert cache.is_tagged(root)
    (root / "notes.txt").write_text("the user's")
    (root / "zz").mkdir()
    (root / "zz" / "keep").write_text("not ours")
    (root / "ab" / "mine.txt").write_text("not ours either")
    (root / "autotune").mkdir()
    (root / "autotune" / "opt.json").write_text("{}")
    for empty in ("mywork/placeholder", "ab/keepdir", "refs/notes"):  # the user's empty folders: kept too
        (root / empty).mkdir(parents=True)
    (root / ".git").mkdir()
    cleared = clear(root)
    assert cleared.removed == {"compiled entries": 1} and cleared.freed_bytes > 0
    assert cleared.strays == [".git", "ab/keepdir", "ab/mine.txt", "mywork", "notes.txt", "refs/notes", "zz"]
    assert all((root / empty).is_dir() for empty in ("mywork/placeholder", "ab/keepdir", "refs/notes", ".git"))
    assert (root / "notes.txt").exists() and (root / "zz" / "keep").exists() and (root / "ab" / "mine.txt").exists()
    assert (root / "autotune" / "opt.json").exists() and not (root / "ab" / ("ab" * 32)).exists()


@pytest.mark.parametrize("foreign", ["derived/mydata.csv", "refs/bib.json", "notes.txt", "ab/keep", "rendered/x",
                                     "tritoncache-index/list.txt", ".ssh/id_ed25519", ".bashrc", "ab/.git/config",
                                     ".trash-notes"])
def test_clear_refuses_a_folder_that_is_not_ttinspects(tmp_path, foreign):
    """TTINSPECT_CACHE_DIR pointed at the user's folder: ttinspect uses it but never tags it, and --clear
    removes nothing at all from a folder holding anything ttinspect never writes."""
    root = tmp_path / "mine"
    (root / foreign).parent.mkdir(parents=True)
    (root / foreign).write_text("the user's")
    cache.store("cd" * 32, {"metadata.json": b"{}"}, root=root)
    assert not cache.is_tagged(root)
    before = sorted(str(p.relative_to(root)) for p in root.rglob("*"))
    done = run_in_cache("cache-info", "--clear", cache_dir=root, check=False)
    assert done.returncode == 2 and done.stdout == ""
    named = (foreign, foreign.rsplit("/", 1)[0])  # the file, or the folder of the user's that holds it
    assert done.stderr.count("\n") == 1 and "is not ttinspect's cache" in done.stderr
    assert any(f" {name}" in done.stderr for name in named), done.stderr
    assert sorted(str(p.relative_to(root)) for p in root.rglob("*")) == before


def test_clear_takes_an_untagged_cache_with_only_ttinspects_layout(tmp_path):
    """A cache an older ttinspect made (no tag): every name is ttinspect's, so it is cleared and tagged."""
    root = tmp_path / "old"
    entry = cache.store("ef" * 32, {"metadata.json": b"{}"}, root=root)
    (root / cache.TAG).unlink()
    for name in ("derived/ab/" + "12" * 32 + "/kernel.sass", "refs/ab/" + "34" * 32 + ".json"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")
    cleared = clear(root)
    assert cleared.removed == {"compiled entries": 1, "derived folders": 1, "reference memos": 1}
    assert not entry.exists() and cache.is_tagged(root) and cleared.strays == []


@pytest.mark.parametrize("make", ["file", "symlink", "dangling"])
def test_a_cache_path_that_is_not_a_directory(tmp_path, make):
    root = tmp_path / "cache"
    (tmp_path / "file").write_text("the user's")
    if make == "file":
        root = tmp_path / "file"
    else:
        root.symlink_to(tmp_path / ("file" if make == "symlink" else "nowhere"))
    for command in (("cache-info",), ("cache-info", "--clear")):
        done = run_in_cache(*command, cache_dir=root, check=False)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and "not a directory" in done.stderr
    assert (tmp_path / "file").read_text() == "the user's"


def test_cache_info_command(cache_copy):
    root, entry, _, _ = cache_copy
    shown = run_in_cache("cache-info", cache_dir=root).stdout
    assert str(root) in shown and "compiled entries 1" in shown and "sm_90 (1)" in shown
    data = json.loads(run_in_cache("cache-info", "--json", cache_dir=root).stdout)
    assert data["entries"] == 1 and data["by_target"] == {"sm_90": 1} and data["total_bytes"] > 0
    cleared = run_in_cache("cache-info", "--clear", cache_dir=root).stdout
    assert cleared.startswith("removed 1 compiled entries") and not entry.exists()


def test_a_damaged_autotune_result_is_one_line(tmp_path):
    (tmp_path / "autotune").mkdir()
    (tmp_path / "autotune" / "opt.json").write_text("{not json")
    done = run_in_cache("dump", "opt", "--config", "best", cache_dir=tmp_path, check=False)
    assert done.returncode == 2 and "cannot be read" in done.stderr and done.stderr.count("\n") == 1


def test_a_deeply_nested_manifest_is_damage_not_a_crash(cache_copy):
    root, entry, dump, _ = cache_copy
    (entry / "manifest.json").write_text("[" * 100_000 + "]" * 100_000)
    done = run_in_cache("dump", "opt", "--stage", "ptx", "--arch", "sm_90", cache_dir=root)
    assert done.stdout == dump and "compiling it again" in done.stderr
    assert json.loads(run_in_cache("cache-info", "--json", cache_dir=root).stdout)["damaged"] == 0


@pytest.mark.parametrize("record", ['{"builds": null}', '{"builds": [null]}', '{"builds": [{"entry": 3}]}',
                                    "[" * 50_000, '{"builds": "x"}'])
def test_a_damaged_reference_record_resolves_again(tmp_path, record):
    root = tmp_path / "cache"
    args = ("dump", f"{USER_FILE}:small", "--stage", "ttir", "--arch", "sm_80")
    first = run_in_cache(*args, cache_dir=root).stdout
    for memo in (root / "refs").glob("*/*.json"):
        memo.write_text(record)
    assert run_in_cache(*args, cache_dir=root).stdout == first


def test_a_closed_pipe_is_not_an_error(warm):
    root, _, _ = warm
    environ = {**os.environ, "TTINSPECT_CACHE_DIR": str(root)}
    for command in ("dump opt --stage ptx --arch sm_90", "report opt --arch sm_90", "list", "--help",
                    "diff opt@sm_90 opt@sm_90 --stage ptx"):
        done = subprocess.run(f"{sys.executable} -m ttinspect {command} | head -n 1 > /dev/null; "
                              "echo ${PIPESTATUS[0]}", shell=True, executable="/bin/bash", env=environ,
                              capture_output=True, text=True, timeout=600)
        assert done.stdout.strip() == "0" and done.stderr == "", (command, done.stdout, done.stderr)


def test_ctrl_c_is_one_line_and_exit_130(tmp_path):
    # Triton's own cache empty too, so that the compile is still running when Ctrl-C comes.
    environ = {**os.environ, "TTINSPECT_CACHE_DIR": str(tmp_path), "TRITON_CACHE_DIR": str(tmp_path / "triton")}
    process = subprocess.Popen([sys.executable, "-m", "ttinspect", "report", "tileon", "--arch", "sm_90"],
                               env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=600)
    assert process.returncode == 130 and err.strip() == "ttinspect: interrupted", (process.returncode, err)


def test_a_damaged_entry_in_a_read_only_cache_is_still_not_shown(cache_copy):
    root, entry, dump, _ = cache_copy
    (entry / "kernel.ptx").write_text("garbage\n")
    if not _make_read_only(entry.parent) or not _make_read_only(entry):
        pytest.skip("cannot make a directory read-only here")
    try:
        done = run_in_cache("dump", "opt", "--stage", "ptx", "--arch", "sm_90", cache_dir=root)
    finally:
        _make_writable(entry)
        _make_writable(entry.parent)
    assert done.stdout == dump
    assert "damaged" in done.stderr and "working without a cache" in done.stderr
    assert (entry / "kernel.ptx").read_text() == "garbage\n"  # could not be repaired, was not shown
