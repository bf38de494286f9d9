"""Issue 39's measure: public libraries ttinspect had never used, each kernel reached as a new user would —
a module reference, or a short driver captured with `ttinspect capture --as ARCH` — recorded per kernel
(worked or not, the error's one line, the user's effort) as JSON and a Markdown table (docs/real-kernels.md).

    python scripts/real_libraries.py                          # every library of the manifest
    python scripts/real_libraries.py --only sageattention     # one library (repeatable)
    python scripts/real_libraries.py --from-json tests/data/real_libraries/results.json   # the table again

Run it with the Python of the venv the libraries are installed in (its `ttinspect` is the one beside it).
The manifest is scripts/real_libraries/manifest.toml. A kernel *works* when `ttinspect report REF --json`
exits 0 and gives the compile's facts (registers, num_warps) for the manifest's target.

The user's effort is what they typed, at 40 characters a minute (reading the library's README and
thinking included), plus 10 s for each command run:

    minutes = characters / 40 + commands × 10 / 60

A captured kernel costs its driver's code (non-blank lines, stripped), the capture command, `ttinspect list`
and its `report`. The driver, capture and list are shared by every kernel that driver reached, so each
kernel carries its share (`effort_min`); `effort_alone_min` is the whole cost for that one kernel. A kernel
reached by a module reference costs the `report` command as typed (one command). Where both work, the
cheaper counts. Exit 0 when the run finished (whatever the rows say), 2 on a bad manifest or options.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "scripts" / "real_libraries"
MANIFEST = FOLDER / "manifest.toml"
RESULTS = ROOT / "tests" / "data" / "real_libraries"
CHARS_PER_MINUTE = 40
SECONDS_PER_COMMAND = 10


@dataclass
class Kernel:
    library: str
    kernel: str
    file: str
    driver: str | None
    module: str | None
    program: str | None = None  # the library's own program (its tests), as typed, run in its source folder


@dataclass
class Library:
    name: str
    version: str
    pip: str
    kernels: list[Kernel]
    tests_from: str | None = None  # "sdist": the library's source distribution holds the programs (its tests)


@dataclass
class Row:
    library: str
    version: str
    kernel: str
    file: str
    worked: bool = False
    how: str | None = None                 # "capture --as" | "own tests" | "module ref"
    error: str | None = None               # the first failure's one line, when nothing worked
    capture_error: str | None = None       # the capture path's one line, when it failed
    module_error: str | None = None
    program_error: str | None = None
    last_report: str | None = None         # the report command typed last (its characters count)
    commands: list[str] = field(default_factory=list)   # what the user typed, in order
    compiles: int | None = None            # compiles of this kernel in the capture (autotune configs, specializations)
    effort_min: float | None = None
    effort_alone_min: float | None = None
    seconds: float = 0.0                   # machine time of the report(s)


class ManifestError(Exception):
    pass


def load(path: Path) -> tuple[str, list[Library]]:
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ManifestError(f"{path}: {error}") from error
    arch = data.get("defaults", {}).get("arch", "sm_90")
    libraries = []
    for number, raw in enumerate(data.get("library", []), start=1):
        missing = [key for key in ("name", "version", "pip") if key not in raw]
        if missing:
            raise ManifestError(f"{path}: library #{number} lacks {', '.join(missing)}")
        kernels = []
        for entry in raw.get("kernel", []):
            reached = entry.get("driver") or entry.get("module") or entry.get("program")
            if "kernel" not in entry or "file" not in entry or not reached:
                raise ManifestError(f"{path}: {raw['name']}: a kernel needs `kernel`, `file` and a driver, module "
                                    "or program")
            if entry.get("program") and raw.get("tests_from") != "sdist":
                raise ManifestError(f"{path}: {raw['name']}: a program runs in the library's source: "
                                    'tests_from = "sdist"')
            kernels.append(Kernel(raw["name"], entry["kernel"], entry["file"], entry.get("driver"),
                                  entry.get("module"), entry.get("program")))
        libraries.append(Library(raw["name"], raw["version"], raw["pip"], kernels, raw.get("tests_from")))
    return arch, libraries


def minutes(characters: float, commands: float) -> float:
    return round(characters / CHARS_PER_MINUTE + commands * SECONDS_PER_COMMAND / 60, 2)


def driver_characters(path: Path) -> int:
    return sum(len(line.strip()) for line in path.read_text().splitlines() if line.strip())


def one_line(text: str) -> str:
    """The line that says why: ttinspect's own (capture --as's refusal, an error), else the last line of a
    traceback or of the output."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith(("ttinspect: captured", "warn_once(", "frame #"))
             and "UserWarning" not in line]
    for prefix in ("ttinspect capture --as", "ttinspect: error:"):
        chosen = [line for line in lines if line.startswith(prefix)]
        if chosen:
            return chosen[-1][:400]
    raised = exception_line(text)
    if raised is not None:
        return raised[:400]
    # pytest's own report: the last `E   SomeError: ...` line says why, its summary ("1 failed in 4s") does not
    chosen = [line for line in lines if line.startswith("E ") and "Error" in line]
    if chosen:
        return chosen[-1][:400]
    chosen = [line for line in lines if line.startswith("what():")]
    if chosen:
        return chosen[-1][:400]
    return lines[-1][:400] if lines else "(no output)"


def exception_line(text: str) -> str | None:
    """The exception's own line of the last Python traceback: the first unindented line after its header.
    The traceback's last line is not always it: an exception's message may run on (torch's dispatcher lists
    every key it is "registered at")."""
    raw = text.splitlines()
    headers = [at for at, line in enumerate(raw) if line.startswith("Traceback (most recent call last):")]
    if not headers:
        return None
    for line in raw[headers[-1] + 1:]:
        if line.strip() and not line[0].isspace() and not line.startswith("ttinspect:"):
            return line.strip()
    return None


class Runner:
    def __init__(self, python: Path, arch: str, workdir: Path, timeout: int):
        self.python = python
        self.ttinspect = python.parent / "ttinspect"
        self.arch = arch
        self.workdir = workdir
        self.timeout = timeout
        self.env = dict(os.environ, TRITON_DEFAULT_FP_FUSION="1", PYTHONWARNINGS="ignore")
        self.captures: dict[str, tuple[Path, str | None, list[dict]]] = {}
        self.reran: dict[str, list[str]] = {}  # drivers captured again with --values, then --run-kernels, as lines said
        self.sources: dict[str, Path | str] = {}  # a library's unpacked source distribution, or why not
        self.checks: dict[Path, list[dict]] = {}  # a capture's `check` rows

    def run(self, argv: list[str], cwd: Path | None = None, timeout: int | None = None) -> tuple[int, str, str]:
        # a session of its own: on the time limit the whole group ends (a capture's program included, which a
        # SIGKILL of the capture alone would leave running)
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                cwd=cwd or self.workdir, env=self.env, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout or self.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return 124, "", f"timed out after {timeout or self.timeout} s: {shlex.join(argv)}"
        return proc.returncode, out, err

    def capture(self, driver: str) -> tuple[Path, str | None, list[dict]]:
        """The driver captured once (its kernels share it): the file, the run's one-line failure, the compiles."""
        if driver not in self.captures:
            stem = Path(driver).stem.removeprefix("drive_")
            path = self.workdir / f"{Path(driver).parent.name}_{stem}.ttcap"
            self.captures[driver] = self.captured(path, [str(self.python), str(FOLDER / driver)], driver,
                                                  follow_advice=True)
        return self.captures[driver]

    def capture_program(self, library: Library, program: str) -> tuple[Path, str | None, list[dict]]:
        """The library's own program (its tests), run in its source folder, captured once; not run again with
        --run-kernels: a test runner catches each refusal and goes on, so its launches are already recorded."""
        key = program_key(library, program)
        if key not in self.captures:
            folder = self.source(library)
            path = self.workdir / f"{library.name}_{len(self.captures)}.ttcap"
            if isinstance(folder, str):
                self.captures[key] = (path, folder, [])
            else:
                argv = shlex.split(program)
                argv = [str(self.python) if argv[0] == "python" else argv[0], *argv[1:]]
                self.captures[key] = self.captured(path, argv, key, cwd=folder)
        return self.captures[key]

    def source(self, library: Library) -> Path | str:
        """The library's source distribution, unpacked (its tests are there), or the one line why not."""
        if library.name not in self.sources:
            target = self.workdir / "sources" / library.name
            target.mkdir(parents=True, exist_ok=True)
            download = [str(self.python), "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                        f"{library.name}=={library.version}", "-d", str(target)]
            # without build isolation first (an sdist whose setup.py needs torch, as flash-attn's), then with it
            # (a build backend the venv lacks, as hatchling for native-sparse-attention)
            code, out, err = self.run([*download, "--no-build-isolation"])
            if code != 0:
                code, out, err = self.run(download)
            archives = sorted(target.glob("*.tar.gz")) + sorted(target.glob("*.zip"))
            if code != 0 or not archives:
                self.sources[library.name] = f"no source distribution: {one_line(err + out)}"
            else:
                shutil.unpack_archive(archives[0], target)
                tops = [p for p in target.iterdir() if p.is_dir()]
                self.sources[library.name] = tops[0] if len(tops) == 1 else target
        return self.sources[library.name]

    def captured(self, path: Path, program: list[str], key: str, *, cwd: Path | None = None,
                 follow_advice: bool = False) -> tuple[Path, str | None, list[dict]]:
        argv = [str(self.ttinspect), "capture", "--as", self.arch, "-o", str(path), "--force", "--", *program]
        code, out, err = self.run(argv, cwd=cwd)
        for flag in ("--values", "--run-kernels"):  # the refusal's advice, followed in its order as a user would
            if follow_advice and code != 0 and flag in err:
                self.reran.setdefault(key, []).append(flag)  # each followed flag is a command the user typed
                code, out, err = self.run(argv[:4] + [flag] + argv[4:], cwd=cwd)
        failure = None if code == 0 else one_line(err + out)
        compiles: list[dict] = []
        if path.exists():
            code, out, err = self.run([str(self.ttinspect), "list", str(path), "--json"])
            if code == 0:
                compiles = json.loads(out)["compiles"]
            else:
                failure = failure or one_line(err + out)
        return path, failure, compiles

    def checked(self, path: Path) -> list[dict]:
        """`ttinspect check CAPTURE --format json`: every compile of the capture compiled for the target, one
        row each (what `capture` advises after the run); [] when it failed. Longer than a report: it compiles
        every config an autotuner would time."""
        if path not in self.checks:
            code, out, _ = self.run([str(self.ttinspect), "check", str(path), "--format", "json"],
                                    timeout=4 * self.timeout)
            try:
                self.checks[path] = json.loads(out)["compiles"] if code == 0 else []
            except (ValueError, KeyError, TypeError):
                self.checks[path] = []
        return self.checks[path]

    def report(self, argv_tail: list[str]) -> tuple[bool, str | None, float]:
        start = time.perf_counter()
        code, out, err = self.run([str(self.ttinspect), "report", *argv_tail, "--json"])
        seconds = time.perf_counter() - start
        if code != 0:
            return False, one_line(err + out), seconds
        try:
            data = json.loads(out)
            facts = data["facts"]
            ok = facts["registers"]["value"] is not None and facts["num_warps"]["value"] is not None
        except (ValueError, KeyError, TypeError) as error:
            return False, f"report --json gave no facts ({error})", seconds
        if data.get("target") != self.arch:
            return False, f"report compiled for {data.get('target')}, not {self.arch}", seconds
        return ok, None if ok else "report gave no registers or num_warps", seconds


def by_capture(runner: Runner, kernel: Kernel, row: Row, reached: dict[str, int]) -> None:
    """Through the library's driver: its code is the user's to write, shared by the kernels it reached."""
    assert kernel.driver is not None
    path, failure, compiles = runner.capture(kernel.driver)
    typed_capture = f"ttinspect capture --as {runner.arch} -o {path.stem}.ttcap -- python {Path(kernel.driver).name}"
    for flag in runner.reran.get(kernel.driver, []):  # the same command again, with the flag a refusal named
        typed_capture += f"\nttinspect capture --as {runner.arch} {flag} -o {path.stem}.ttcap " \
                         f"-- python {Path(kernel.driver).name}"
    row.capture_error = by_run(runner, kernel, row, (path, failure, compiles), typed_capture, "run",
                               driver_characters(FOLDER / kernel.driver), reached[kernel.driver], "capture --as")


def by_program(runner: Runner, library: Library, kernel: Kernel, row: Row, reached: dict[str, int]) -> None:
    """Through the library's own program (its tests): the user has it; only the commands are typed."""
    assert kernel.program is not None
    captured = runner.capture_program(library, kernel.program)
    typed_capture = f"ttinspect capture --as {runner.arch} -o {library.name}.ttcap -- {kernel.program}"
    row.program_error = by_run(runner, kernel, row, captured, typed_capture, "program", 0,
                               reached[program_key(library, kernel.program)], "own tests")


def by_run(runner: Runner, kernel: Kernel, row: Row, captured: tuple[Path, str | None, list[dict]],
           typed_capture: str, ran: str, written: int, sharing: int, how: str) -> str | None:
    """A capture's kernel reported (its own report, or the capture's `check`), the cost shared by the `sharing`
    kernels the capture reached, `written` characters of code included: None when it worked, else why not."""
    path, failure, compiles = captured
    outcome = recorded(runner, kernel, row, path, compiles, typed_capture)
    if outcome is None:
        return failure or f"the {ran} launched no {kernel.kernel} of {kernel.file}"
    typed, ok, error = outcome
    if not ok:
        return error
    take(row, how, written + typed, sharing)
    by_check(runner, kernel, row, path, written + len(typed_capture), sharing, how)
    return None


def program_key(library: Library, program: str) -> str:
    """A library's program as the captures and the reach counts know it (a driver is known by its path)."""
    return f"{library.name}: {program}"


def mine(entries: list[dict], kernel: Kernel) -> list[dict]:
    """A capture's compiles (or `check` rows) of the manifest's kernel: its name, in its file."""
    # `file` is the file's name, or a tail of its path where two files share a name (two dequant.py)
    return [c for c in entries if c["kernel"] == kernel.kernel and
            f"/{Path(c['file']).as_posix()}".endswith(f"/{kernel.file.lstrip('/')}")]


def recorded(runner: Runner, kernel: Kernel, row: Row, path: Path, compiles: list[dict],
             typed_capture: str) -> tuple[int, bool, str | None] | None:
    """The kernel's first compile in a capture reported: (characters typed for the capture and its list, whether
    the report gave the facts, its one-line error); None when the run launched no such kernel."""
    found = mine(compiles, kernel)
    typed_list = f"ttinspect list {path.stem}.ttcap"
    row.commands += [typed_capture, typed_list]
    if not found:
        return None
    row.compiles = len(found)
    first = found[0]["ref"]  # the capture's first compile of this kernel: the run's first launch or config
    suffix = first[first.rindex(":"):].removeprefix(":" + kernel.kernel)
    typed_report = f"ttinspect report {path.stem}.ttcap:{kernel.kernel}{suffix}"
    row.commands.append(typed_report)
    row.last_report = typed_report
    ok, error, seconds = runner.report([first])
    row.seconds += seconds
    release = re.search(r"REF@triton=(\d+\.\d+\.\d+)", error or "")
    if not ok and release:  # the compile error named the release that compiles the kernel: followed, as a user would
        typed_report += f"\n{typed_report}@triton={release[1]}"
        row.commands.append(typed_report.splitlines()[-1])
        row.last_report = typed_report
        ok, error, seconds = runner.report([f"{first}@triton={release[1]}"])
        row.seconds += seconds
    return len(typed_capture) + len(typed_list), ok, error


def take(row: Row, how: str, shared: int, sharing: int) -> None:
    """The way that worked, when it is the cheaper one: its shared cost split among the kernels it reached."""
    report = len(row.last_report or "")
    reports = len((row.last_report or "").splitlines()) or 1  # a report again under the release its error named
    effort = minutes(shared / sharing + report, 2 / sharing + reports)
    if not row.worked or effort < (row.effort_min or 0):
        row.worked, row.how = True, how
        row.effort_alone_min = minutes(shared + report, 2 + reports)
        row.effort_min = effort


def by_check(runner: Runner, kernel: Kernel, row: Row, path: Path, shared: int, sharing: int, how: str) -> None:
    """Every compile of the capture checked by one command, `ttinspect check CAPTURE` (the capture's own advice):
    the kernel works there when one of its compiles was compiled for the target (registers known) without an
    error; that command is shared like the capture, and no `list` is needed. Taken when it is the cheaper."""
    if not any(c.get("error") is None and c.get("registers") is not None and c.get("checked_target") == runner.arch
               for c in mine(runner.checked(path), kernel)):
        return
    typed = f"ttinspect check {path.stem}.ttcap"
    effort = minutes((shared + len(typed)) / sharing, 2 / sharing)
    if not row.worked or effort < (row.effort_min or 0):
        row.worked, row.how = True, how
        row.commands.append(typed)
        row.effort_min, row.effort_alone_min = effort, minutes(shared + len(typed), 2)


def by_module(runner: Runner, kernel: Kernel, row: Row) -> None:
    typed = f"ttinspect report {kernel.module}"
    row.commands.append(typed)
    ok, error, seconds = runner.report(shlex.split(kernel.module))
    row.seconds += seconds
    if not ok:
        row.module_error = error
        return
    effort = minutes(len(typed), 1)
    if not row.worked or effort < (row.effort_min or 0):
        row.worked, row.how, row.effort_min, row.effort_alone_min = True, "module ref", effort, effort


def measure(runner: Runner, libraries: list[Library], progress) -> list[Row]:
    rows = []
    for library in libraries:
        # How many kernels each driver or program reached: they share its cost (a first pass over the captures).
        reached: dict[str, int] = {}
        for kernel in library.kernels:
            ways = []
            if kernel.driver:
                ways.append((kernel.driver, runner.capture(kernel.driver)[2]))
            if kernel.program:
                ways.append((program_key(library, kernel.program),
                             runner.capture_program(library, kernel.program)[2]))
            for key, compiles in ways:
                reached[key] = reached.get(key, 0) + bool(mine(compiles, kernel))
        reached = {key: max(count, 1) for key, count in reached.items()}
        for kernel in library.kernels:
            row = Row(library.name, library.version, kernel.kernel, kernel.file)
            if kernel.driver:
                by_capture(runner, kernel, row, reached)
            if kernel.program:
                by_program(runner, library, kernel, row, reached)
            if kernel.module:
                by_module(runner, kernel, row)
            if not row.worked:
                # every way's own line: the capture's may hide why the module reference failed, and the other way
                row.error = "; then ".join(dict.fromkeys(e for e in (row.capture_error, row.program_error,
                                                                     row.module_error) if e)) or None
            rows.append(row)
            progress(f"{library.name} {kernel.kernel} ({kernel.file}): "
                     + (f"ok by {row.how}, {row.effort_min} min" if row.worked else f"FAIL {row.error}"))
    return rows


def median(values: list[float]) -> float | None:
    return round(statistics.median(values), 2) if values else None


def summary(rows: list[Row]) -> dict:
    worked = [row for row in rows if row.worked]
    return {
        "libraries": len({row.library for row in rows}),
        "kernels": len(rows),
        "worked": len(worked),
        "rate_percent": round(100 * len(worked) / len(rows), 1) if rows else None,
        "by_capture": sum(row.how == "capture --as" for row in worked),
        "by_module_ref": sum(row.how == "module ref" for row in worked),
        "by_own_tests": sum(row.how == "own tests" for row in worked),
        "median_effort_min": median([row.effort_min for row in worked]),
        "median_effort_alone_min": median([row.effort_alone_min for row in worked]),
    }


def table(rows: list[Row], title: str) -> str:
    lines = [title, "", "| library | version | kernels | worked | capture --as | own tests | module ref "
             "| median effort (min) | alone (min) |", "|---|---|---|---|---|---|---|---|---|"]
    for name in dict.fromkeys(row.library for row in rows):
        mine = [row for row in rows if row.library == name]
        part = summary(mine)
        lines.append(f"| {name} | {mine[0].version} | {part['kernels']} | {part['worked']} "
                     f"({part['rate_percent']:.0f} %) | {part['by_capture']} | {part['by_own_tests']} "
                     f"| {part['by_module_ref']} "
                     f"| {part['median_effort_min']} | {part['median_effort_alone_min']} |")
    total = summary(rows)
    lines.append(f"| **all** | | **{total['kernels']}** | **{total['worked']} ({total['rate_percent']:.0f} %)** "
                 f"| {total['by_capture']} | {total['by_own_tests']} | {total['by_module_ref']} "
                 f"| **{total['median_effort_min']}** "
                 f"| {total['median_effort_alone_min']} |")
    failed = [row for row in rows if not row.worked]
    if failed:
        lines += ["", "| library | kernel | file | why it failed |", "|---|---|---|---|"]
        lines += [f"| {row.library} | `{row.kernel}` | {row.file} | {(row.error or '').replace('|', '/')} |"
                  for row in failed]
    return "\n".join(lines)


def parse_options(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--only", action="append", default=[], metavar="LIBRARY", help="only this library")
    parser.add_argument("--python", type=Path, default=Path(sys.executable),
                        help="the Python that runs the drivers (its venv holds the libraries and ttinspect)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds for one command")
    parser.add_argument("--workdir", type=Path, help="keep the captures here (default: a temporary folder)")
    parser.add_argument("-o", "--output", type=Path, default=RESULTS,
                        help="the folder for results.json and results.md")
    parser.add_argument("--from-json", type=Path, metavar="FILE", help="no run: the table of a saved results.json")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    options = parse_options(argv)
    if options.from_json:
        try:
            data = json.loads(options.from_json.read_text())
            rows = [Row(**raw) for raw in data["rows"]]
        except (OSError, ValueError, KeyError, TypeError) as error:
            print(f"real_libraries: cannot read {options.from_json}: {error}", file=sys.stderr)
            return 2
        print(table(rows, data["title"]))
        return 0
    try:
        arch, libraries = load(options.manifest)
    except ManifestError as error:
        print(f"real_libraries: {error}", file=sys.stderr)
        return 2
    libraries = [lib for lib in libraries if not options.only or lib.name in options.only]
    if not libraries:
        print("real_libraries: no library matches --only", file=sys.stderr)
        return 2
    workdir = options.workdir or Path(tempfile.mkdtemp(prefix="ttinspect-real-libraries-"))
    workdir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    rows = measure(Runner(options.python, arch, workdir, options.timeout), libraries,
                   lambda line: print(line, file=sys.stderr, flush=True))
    command = " ".join(["python scripts/real_libraries.py", *(argv if argv is not None else sys.argv[1:])])
    title = (f"Libraries ttinspect had never seen: {len(rows)} kernels, target {arch}, `{command}` "
             f"({time.perf_counter() - start:.0f} s)")
    options.output.mkdir(parents=True, exist_ok=True)
    text = table(rows, title)
    (options.output / "results.json").write_text(json.dumps(
        {"title": title, "arch": arch, "summary": summary(rows),
         "effort": f"minutes = characters / {CHARS_PER_MINUTE} + commands x {SECONDS_PER_COMMAND} / 60",
         "rows": [asdict(row) for row in rows]}, indent=2) + "\n")
    (options.output / "results.md").write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
