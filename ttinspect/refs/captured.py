"""A kernel a run compiled, named in its capture: `step.ttcap:matmul_kernel#2:num_stages=4@sm_100`.

`ttinspect capture` (ttinspect/capture/) records every distinct compile of a run: the kernel's file and
name, the signature as the JIT specialized it, its constexprs and options, the target. A reference to one
of them is turned here into what makes ttinspect compile the same specialization — the kernel's file, the
captured signature as `--signature`, the constexprs and options as settings, the captured target as the
default `--arch` — and refs/resolver.py builds that as it builds a file reference, so every command takes
it. `#N` counts the compiles of that kernel's name in the capture's order, from 1 (needed only when there
are several); `:k=v,...` and `--set` change the captured values, `@ARCH` and `--arch` the target.

    step.ttcap:attn_fwd#2       step.ttcap.gz:matmul_kernel:num_stages=4@sm_100     ./run.log:k (sniffed)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Mapping

from ttinspect.caches.store import warn
from ttinspect.errors import UsageError
from ttinspect.files.source_files import is_regular_file
from ttinspect.kernel.argument_types import TlDtype
from ttinspect.kernel.overrides import parse_settings
from ttinspect.kernel.variants import config_value_text
from ttinspect.refs.release_suffix import split_triton

if TYPE_CHECKING:
    from ttinspect.capture.format import Capture, Compile
    from ttinspect.capture.replay_plan import ReplayPlan

# the path: a name ending in .ttcap or .ttcap.gz, followed by the kernel part or nothing
_SUFFIX = re.compile(r"\.ttcap(?:\.gz)?(?=[:@]|$)")
# What follows the path: [:NAME[#N]][:KEY=VALUE,...][@ARCH]; a NAME is a Python identifier (`ädd` too: the
# capture's reader admits what str.isidentifier does), checked again once matched
_TAIL = re.compile(r"^(?::(?P<name>[^\W\d]\w*)(?:#(?P<number>[^:@]*))?)?(?::(?P<inline>[^@]*))?"
                   r"(?:@(?P<arch>[^@]+))?$")
_GRAMMAR = "FILE.ttcap:KERNEL[#N][:KEY=VALUE,...][@ARCH]"


@dataclass(frozen=True)
class CaptureRef:
    path: Path
    name: str | None  # None: the whole capture (list, check, html)
    number: int | None  # the N of NAME#N, 1-based
    inline: tuple[str, ...] = ()
    arch: str | None = None
    release: str | None = None  # `@triton=X.Y.Z`: every compile named is made by that Triton (release_suffix.py)


def capture_path(text: str) -> str | None:
    """The capture file `text` names (a path ending in .ttcap or .ttcap.gz, or an existing file that starts
    with a capture's header line), else None. Reads at most the file's first line."""
    match = _SUFFIX.search(text)
    if match is not None:
        return text[:match.end()]
    head = re.split(r"[:@]", text, maxsplit=1)[0]
    if head and not head.endswith(".py") and is_regular_file(Path(head)):
        from ttinspect.capture.format import looks_like_capture  # the capture reader: kept off every other kind

        return head if looks_like_capture(head) else None
    return None


def parse_capture_ref(text: str) -> CaptureRef:
    """FILE.ttcap[:KERNEL[#N]][:KEY=VALUE,...][@ARCH][@triton=X.Y.Z], parsed; the release is kept, never taken
    for a target."""
    head, release = split_triton(text)  # the messages below quote the reference as given
    path = capture_path(head)
    if path is None:
        raise UsageError(f"{text!r} is not a capture reference (FILE.ttcap:KERNEL[#N][:KEY=VALUE,...][@ARCH])")
    rest = _TAIL.match(head[len(path):])
    if rest is None or rest["name"] is not None and not rest["name"].isidentifier():
        raise UsageError(f"{text!r}: a capture reference is {_GRAMMAR}, e.g. step.ttcap:matmul_kernel#2@sm_90")
    if rest["name"] is None and rest["inline"]:  # `run.ttcap:a b`: no name, so no filter (`run.ttcap:` is none)
        raise UsageError(f"{text!r}: {rest['inline']!r} is not a kernel name (a Python identifier); a capture "
                         f"reference is {_GRAMMAR} (`ttinspect list {path}` shows its kernels)")
    number = None
    if rest["number"] is not None:
        digits = rest["number"]
        if not digits.isdigit() or int(digits) == 0:
            raise UsageError(f"{text!r}: #{digits} is not a compile number; #1 is the first compile of "
                             f"{rest['name']} in the capture (numbers are 1-based)")
        number = int(digits)
    inline = tuple(item for item in (rest["inline"] or "").split(",") if item.strip())
    return CaptureRef(Path(path).expanduser(), rest["name"], number, inline, rest["arch"], release)


def load(path: Path, quiet: bool = False) -> Capture:
    """The capture, its reader's warnings (a torn last line, what the run lost) said once each; `quiet`: not
    yet — the caller says them (`say_warnings`) once the capture holds what it asked for, and a refusal says
    them in its own line instead (one line, not a warning and an error about one cause)."""
    capture = _read_once(Path(path))
    if not quiet:
        say_warnings(capture)
    return capture


# the captures read in this process, by path and the file's identity: a command reads one capture for its
# listing, each reference's translation and its recorded values, and a capture of many records is slow to parse
_READ: dict[tuple[str, int, int, int], Capture] = {}


def _read_once(path: Path) -> Capture:
    from ttinspect.capture.format import read  # as in capture_path

    try:
        stat = path.stat()
    except OSError:  # not there or not readable: `read` says so in its own line
        return read(path)
    key = (str(path.resolve()), stat.st_ino, stat.st_size, stat.st_mtime_ns)
    if key not in _READ:
        if len(_READ) >= 4:  # a diff reads two captures; keep a few, never a whole session's
            _READ.pop(next(iter(_READ)))
        _READ[key] = read(path)
    return _READ[key]


def recorded_values(text: str) -> dict[str, tuple[int, ...]]:
    """The integer arguments the recorded launches of the compile `text` names were given (`N`: (4096,)), each
    name's distinct values over every launch site and argument set, in the order recorded; {} when the capture
    recorded no launch of it (compiled only, or launched by a process it did not follow). The same launches
    `predict CAP` times (perf/capture_profile.py); a bool is not an integer here."""
    ref = parse_capture_ref(text)
    capture = load(ref.path, quiet=True)
    record = pick(capture, ref, text)
    values: dict[str, tuple[int, ...]] = {}
    for launch in capture.launches_of(record.id):
        for args in launch.args:
            for name, value in args.items():
                if isinstance(value, int) and not isinstance(value, bool) and value not in values.get(name, ()):
                    values[name] = (*values.get(name, ()), value)
    return values


def say_warnings(capture: Capture) -> None:
    for message in capture.warnings:
        warn(message)


def _incomplete(capture: Capture) -> str:
    """What an incomplete capture's refusal adds: why the kernel may be missing from it."""
    if not capture.warnings:
        return ""
    first = re.sub(rf"^{re.escape(str(capture.path))}(?::\d+)?: ", "", capture.warnings[0])
    return f"; the capture is incomplete: {first}"


def named(capture: Capture, name: str) -> tuple[Compile, ...]:
    """The compiles of kernel `name`, in the capture's order; none is one line listing the kernels there."""
    found = capture.named(name)
    if not found:
        names = ", ".join(sorted({c.name for c in capture.compiles})) or "none"
        raise UsageError(f"{capture.path}: no kernel {name!r} in the capture (kernels: {names}){_incomplete(capture)}")
    return found


def pick(capture: Capture, ref: CaptureRef, text: str) -> Compile:
    """The compile record `ref` names: one line listing the kernels, or the compiles of one, when it is
    not there or is not one."""
    if ref.name is None:
        raise UsageError(f"{text}: name a kernel, as {text}:NAME (`ttinspect list {ref.path}` shows its "
                         f"{len(capture.compiles)} compiles)")
    found = named(capture, ref.name)
    count = len(found)
    if ref.number is None:
        if count == 1:
            return found[0]
        raise UsageError(f"{ref.path}: {ref.name} was compiled {count} times in the run: name one, "
                         f"{ref.name}#1 to {ref.name}#{count} (`ttinspect list {ref.path}` shows them)")
    if ref.number > count:
        raise UsageError(f"{text}: the capture holds {count} compile(s) of {ref.name}, numbered from 1 to "
                         f"{count}{_incomplete(capture)}")
    return found[ref.number - 1]


def kernel_name(capture: Capture, record: Compile) -> str:
    """NAME, or NAME#N when the capture holds several compiles of it: as `FILE.ttcap:NAME#N` takes it."""
    return record.name + (f"#{record.number}" if len(capture.named(record.name)) > 1 else "")


def replay_plan(text: str) -> tuple[Capture, Compile, ReplayPlan]:
    """A captured reference as the replay of its most frequent launch (capture/replay_plan.py), with the
    reference's own `:KEY=VALUE` changes on top and labelled with them."""
    from ttinspect.capture.replay_plan import plan  # as in capture_path: the capture reader, only for a replay

    ref = parse_capture_ref(text)
    if ref.release is not None:
        raise UsageError(f"{text}: a replay runs the kernel with this machine's Triton; @triton={ref.release} names "
                         "a release to compile with (report, check, predict, diff take it)")
    capture = load(ref.path, quiet=True)
    record = pick(capture, ref, text)
    say_warnings(capture)
    changes = parse_settings(list(ref.inline), ref=text)
    label = f"{ref.path.name}:{kernel_name(capture, record)}" + (":" + ",".join(ref.inline) if changes else "")
    return capture, record, plan(capture, record, label, changes)


def target_arch(target: Mapping[str, Any] | None) -> str | None:
    """ttinspect's name of a captured target: sm_90 for CUDA's 90, gfx942 as HIP names it; None unknown."""
    if not target or target.get("arch") in (None, ""):
        return None
    arch = target["arch"]
    if str(target.get("backend", "cuda")) == "cuda" and isinstance(arch, int):
        return f"sm_{arch}"
    return str(arch)


def captured_settings(record: Compile, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The record's constexprs and compile options as `--set` values (a dtype as `tl.float16`: a TlDtype).
    A value the capture kept only as a description ({"repr": ...}, {"jit_function": ...}) is refused in one
    line unless `given` sets it."""
    out: dict[str, Any] = {}
    for key, value in {**record.constexprs, **record.options}.items():
        if value is None or key in (given or {}):  # an option the run left at its default; one set on top
            continue
        if isinstance(value, dict):
            raise UsageError(f"{record.name}: the capture describes {key} as {str(value)[:80]}, not a value "
                             f"ttinspect can pass again; give it with :{key}=VALUE or --set {key}=VALUE")
        out[key] = TlDtype(value[3:]) if isinstance(value, str) and value.startswith("tl.") else value
    return out


@dataclass(frozen=True)
class Translated:
    """What a capture reference means as a file reference."""

    file_ref: str  # PATH:NAME, with the path of the file to compile
    signature: str
    settings: dict[str, Any]  # captured constexprs and options, then the reference's own and --set
    arch: str | None
    label: str  # step.ttcap:matmul_kernel#2, and the settings given on top
    note: str  # where it ran: launches and sites
    script: bool = False  # the kernel's file is a program (capture/program_file.py): loaded for its definitions


def translate(text: str, options: Any) -> Translated:
    """`options`: the command's RefOptions (its settings, arch and source choice)."""
    from ttinspect.capture.program_file import loads_definitions_only  # as in capture_path
    # which file a captured compile names, only for a capture reference: telling one (is_capture_ref) runs on
    # every command's warm path
    from ttinspect.refs.captured_source import kernel_file, release_note

    ref = parse_capture_ref(text)
    capture = load(ref.path, quiet=True)
    record = pick(capture, ref, text)
    say_warnings(capture)
    shown = f"{ref.path.name}:{kernel_name(capture, record)}"
    path = kernel_file(capture, record, shown, getattr(options, "source", None))
    release = release_note(capture)  # Triton's own files: the release, said in one line, never refused
    if release:
        warn(release)
    given = {**parse_settings(list(ref.inline), ref=text), **dict(options.settings)}
    label = shown + (":" + ",".join(f"{k}={config_value_text(v)}" for k, v in given.items()) if given else "")
    arch = ref.arch or options.arch or target_arch(record.target)
    return Translated(f"{path}:{record.name}", record.signature, {**captured_settings(record, given), **given}, arch,
                      label, _note(capture, record), script=loads_definitions_only(record.module, path))


def _note(capture: Capture, record: Compile) -> str:
    """Where it ran (launches and sites), and how the capture saw the device when not on the GPU itself: a
    kernel captured under the interpreter's CPU branches, or `--as` a target, says so beside every report."""
    made = capture.header.made()
    entries = sorted(capture.launches_of(record.id), key=lambda e: -e.count)
    if not entries:
        return "captured: compiled, never launched" + (f"; {made}" if made else "")
    sites = ", ".join(e.site for e in entries[:2]) + (f" (+{len(entries) - 2} sites)" if len(entries) > 2 else "")
    return f"captured: {sum(e.count for e in entries)} launch(es) from {sites}" + (f"; {made}" if made else "")


def captured_kernel(module: ModuleType, path: Path, name: str) -> Any:
    """The @triton.jit function `name` of a loaded module, under any @triton.autotune or @triton.heuristics
    (the capture holds the values they chose), bound at the top level by its own name or inside a kernel
    bound under another, or defined inside a function (made again from its def: nested_kernels.py)."""
    from ttinspect.compile.jit import unwrap  # imports triton
    from ttinspect.refs.userfile import find, kernels_in  # a user's file, loaded: only on a cold path

    for obj in kernels_in(module).values():
        function = unwrap(obj)[0]
        if function.__name__ == name:
            return function
    if not hasattr(module, name):  # a kernel made inside a function (a factory): from its own def
        from ttinspect.refs.nested_kernels import nested_kernel  # reads the file again: only for such a kernel

        nested = nested_kernel(module, path, name)
        if nested is not None:
            return nested
    find(module, path, name)  # the usual one line: not in the file, not a kernel, made under the interpreter
    raise UsageError(f"{path}: {name!r} is bound to a kernel whose @triton.jit function has another name; the "
                     "capture names the function the run compiled")


def is_capture_ref(text: str) -> bool:
    return capture_path(text) is not None
