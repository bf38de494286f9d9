"""What a failed compile says: Triton's innermost reason, the line of the user's kernel it points at,
the compiler's own diagnostic (captured from file descriptor 2), and what a known failure of an older
release means. Also what cannot be compiled at all (`check_supported`): what an older Triton lacks, and a
device function (a `@triton.jit` helper returning a value) asked for as if it were a kernel."""

from __future__ import annotations

import contextlib
import inspect
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from typing import Any, Mapping

import triton
from triton.compiler.errors import CompilationError

from ttinspect.compile.installed import VERSION
from ttinspect.errors import CompileError, cause_chain
from ttinspect.kernel.helpers import roles
from ttinspect.kernel.jit_source import capture_scope, def_location
from ttinspect.kernel.specialize import Specialization
from ttinspect.targets.nvidia import Target

# What an older Triton cannot compile, measured by compiling on each release (docs/versions.md):
# (what the kernel uses, the first Triton that compiles it).
_NEEDS = (("tensordesc", (3, 4), "host-side tensor descriptors (TensorDescriptor arguments)"),)


def check_supported(fn, spec: Specialization) -> None:
    """One line naming what cannot be compiled, instead of Triton's internal error: a device function
    (`refuse_device_function`), or what this Triton lacks (instead of its KeyError)."""
    refuse_device_function(fn)
    for prefix, first, what in _NEEDS:
        if VERSION >= first:
            continue
        uses = [f"{name}: {ty}" for name, ty in spec.signature.items() if str(ty).startswith(prefix)]
        if uses:
            file, line = def_location(fn)
            raise CompileError(f"{fn.__name__} takes {what} ({uses[0]}), which Triton {triton.__version__} "
                               f"cannot compile; Triton >= {first[0]}.{first[1]} can", file=file, line=line)


def refuse_device_function(fn) -> None:
    """A jit function that returns a value is a device helper, never a kernel: Triton would fail deep in
    its lowering ("failed to legalize operation 'tt.return'"). Say so, and name the kernels of its module
    that call it (kernel/helpers.py's rule)."""
    sources = _module_sources(fn)
    name = fn.__name__
    sources.setdefault(name, getattr(fn, "src", "") or "")
    role = roles(sources)[name]
    if role.launchable:
        return
    file, line = def_location(fn)
    callers = role.called_by
    called = f"called by {', '.join(callers)}" if callers else "called by no kernel of its file"
    instead = (f": inspect a kernel that calls it, e.g. {os.path.basename(file)}:{callers[0]}" if callers
               else ": inspect the kernel that calls it")
    raise CompileError(f"{name} is a device function ({called}; it returns a value), not a kernel{instead}",
                       file=file, line=line)


def _module_sources(fn) -> dict[str, str]:
    """Name → source of every jit function (under autotune / heuristics wrappers) in fn's module."""
    out: dict[str, str] = {}
    for name, obj in dict(getattr(getattr(fn, "fn", None), "__globals__", {}) or {}).items():
        while not isinstance(obj, triton.runtime.JITFunction) and hasattr(obj, "fn"):
            obj = obj.fn
        if isinstance(obj, triton.runtime.JITFunction) and isinstance(getattr(obj, "src", None), str):
            out[name] = obj.src
    return out


@contextlib.contextmanager
def native_stderr(box: dict[str, str], *, force: bool = False):
    """What MLIR and LLVM print to file descriptor 2 while compiling (a failing pass dumps the whole
    module as a reproducer: dozens of lines), kept out of the user's terminal; a failure's message
    quotes its diagnostic instead. TTINSPECT_DEBUG=1 lets it through, unless `force` (the per-pass
    dumps are data, not messages)."""
    if os.environ.get("TTINSPECT_DEBUG") and not force:
        yield
        return
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no usable stderr: nothing to protect
        yield
        return
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            try:
                sys.stderr.flush()
            except (OSError, ValueError):
                pass
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            box["text"] = sink.read().decode(errors="replace")


def _diagnostic(text: str) -> str | None:
    """The first line of a compiler's own complaint: `LLVM ERROR: ...`, `file:line:col: error: ...`."""
    for line in text.splitlines():
        match = re.search(r"(LLVM ERROR: .*|error: .*)", line)
        if match and "Failures have been detected" not in line:
            return match[1].strip()[:200]
    return None


def compile_error(fn, exc: CompilationError) -> CompileError:
    """Triton's reason (the innermost message) at the innermost line it points at: inside a `@triton.jit`
    helper that is the helper's line, and the call sites that led there are named after the reason."""
    frames = _call_frames(fn, exc)
    reason = _innermost_reason(exc)
    reason += _known_meaning(reason, None)
    if not frames:
        file, _ = def_location(fn)
        return CompileError(reason, file=file)
    # Triton's own library (tl.sum's body in triton/language/) is not the user's to change: the user's innermost
    # line is where the error is named, and the library frames below it are said after the reason
    user = [frame for frame in frames if not _in_triton(frame.file)] or frames
    where = user[-1]
    inside = frames[frames.index(where) + 1:]
    if inside:
        deepest = inside[-1]
        reason += f" (inside Triton's {deepest.function} at {deepest.file}:{deepest.line})"
    callers = frames[:frames.index(where)]
    if callers:
        chain = ", ".join(f"called by {caller.function} at {caller.file}:{caller.line}" for caller in reversed(callers))
        reason += f" — in helper {where.function}, {chain}"
    return CompileError(reason, file=where.file, line=where.line, source_line=where.source_line)


@dataclass(frozen=True)
class _Frame:
    """One jit function on the way to a compile error: its name, file, and the line Triton points at."""
    function: str
    file: str
    line: int
    source_line: str | None


def _call_frames(fn, exc: CompilationError) -> list[_Frame]:
    """The jit functions the error passed through, the kernel first. Triton wraps a helper's error in one
    CompilationError per caller, each holding that function's source and the node it failed at (a line of
    that source, not of the file); the function itself is found by its source among what its caller's
    module can reach. Where a helper cannot be found the walk stops there (the frames known so far)."""
    frames: list[_Frame] = []
    current = fn
    for link in (e for e in cause_chain(exc) if isinstance(e, CompilationError)):
        node_line = getattr(getattr(link, "node", None), "lineno", None)
        if not node_line or not isinstance(link.src, str):
            continue
        if frames:  # a deeper link: the helper the previous frame called
            current = _reachable_jit_function(current, link.src)
            if current is None:
                break
        file, first_line = def_location(current)
        lines = link.src.split("\n")
        source_line = lines[node_line - 1] if 0 < node_line <= len(lines) else None
        frames.append(_Frame(current.__name__, file, first_line + node_line - 1, source_line))
    return frames


def _reachable_jit_function(caller, src: str):
    """The jit function with source `src` that `caller` can call: a name of its module, a name of a module it
    imported (`tl.sum`, `helpers.f`), or a variable it closes over. None when none has that source."""
    scope = capture_scope(getattr(caller, "fn", None))  # the names its body sees, as Triton looks them up
    candidates = list(scope.values())
    candidates += [value for module in scope.values() if inspect.ismodule(module)
                   for value in list(vars(module).values())]
    for candidate in candidates:
        if isinstance(candidate, triton.runtime.JITFunction) and getattr(candidate, "src", None) == src:
            return candidate
    return None


def _in_triton(file: str) -> bool:
    """Whether a file is part of the Triton package that compiles (its language library)."""
    package = os.path.dirname(os.path.abspath(triton.__file__))
    return os.path.abspath(file).startswith(package + os.sep)


def _innermost_reason(exc: BaseException) -> str:
    """Triton wraps errors from tl.* calls in CompilationErrors whose text repeats the source; the
    useful part is the last message in the chain."""
    chain = cause_chain(exc)
    exc = chain[-1]
    for link in chain:  # a tool's own verdict (`ptxas fatal : ...`) says more than the exit status it led to
        text = str(getattr(link, "error_message", None) or link)
        said = _TOOL_VERDICT.search(text)
        if said:
            cause = _TOOL_CAUSE.search(text)
            return f"ptxas: {cause['cause']}" if cause else said.group(0).strip()
    message = getattr(exc, "error_message", None) or str(exc)
    lines = [ln for ln in str(message).strip().splitlines() if ln.strip()]
    if isinstance(exc, LookupError) and not isinstance(exc, CompilationError):
        # a bare KeyError says only its key ("(triton.language.bfloat16)"): name what failed
        return (f"{type(exc).__name__} {lines[-1].strip() if lines else ''}: a lookup inside Triton found no "
                "entry for it (e.g. a libdevice function with no version for that dtype)")
    return lines[-1].strip() if lines else type(exc).__name__


# `ptxas fatal   : Unexpected non-ASCII character encountered on line 24` (Triton's PTXASError quotes it)
_TOOL_VERDICT = re.compile(r"^\s*(ptxas|nvlink|ld\.lld|llc|opt)\S*\s+(fatal|error)\s*:.*$", re.M)
# `ptxas /tmp/x.ptx, line 1; fatal   : Unsupported .version 9.0; current version is '8.7'`: the cause, which
# the verdict after it (`ptxas fatal : Ptx assembly aborted due to errors`) does not repeat
_TOOL_CAUSE = re.compile(r"^\s*ptxas\S*\s+\S+, line \d+; (?:fatal|error)\s*:\s*(?P<cause>.*\S)\s*$", re.M)
_UNSUPPORTED_PTX = re.compile(r"Unsupported \.version (?P<asked>[\d.]+); current version is '(?P<here>[\d.]+)'")


# Backend failures measured on older releases (scripts/versions_probe.py), and what they mean:
# (first release without it, targets, Triton's message, the explanation).
_KNOWN_FAILURES = (
    ((3, 4), ("sm_70", "sm_72", "sm_75"), "PassManager::run failed",
     "Triton 3.3 cannot compile tl.dot for Volta/Turing (measured); Triton >= 3.4 can"),
    ((3, 4), None, "unexpected keyword argument 'warp_specialize'",
     "tl.range(warp_specialize=...) needs Triton >= 3.4"),
)


# What a release removed, measured by compiling on each release (docs/versions.md): (the first release without
# it, Triton's message, what it was, the newest release that still compiles it).
_REMOVED = (
    ((3, 9), "Block pointers have been removed", "block pointers (tl.make_block_ptr, tl.advance)", "3.8.0"),
)
# Triton's own wording when a release took something away (the kernel was written for an older one)
_REMOVED_WORDS = re.compile(r"\b(ha(s|ve) been|was|were) removed\b|\bno longer (supported|exists?)\b", re.I)


def _removed_meaning(message: str) -> str:
    """A kernel written for an older Triton than this one: what was removed and the way to compile it as it
    is (another release, `REF@triton=X.Y.Z`); unknown which release when the removal is not measured."""
    for removed_in, pattern, what, still in _REMOVED:
        if VERSION >= removed_in and pattern in message:
            return (f" — {what} were removed in Triton {removed_in[0]}.{removed_in[1]}; Triton {still} compiles the "
                    f"kernel as written: REF@triton={still} (docs/versions.md)")
    if _REMOVED_WORDS.search(message):
        return (f" — this Triton ({triton.__version__}) removed what the kernel uses: an older release compiles it "
                "as written (REF@triton=X.Y.Z; which release is not measured here: docs/versions.md)")
    return ""


def _known_meaning(message: str, target: Target | None) -> str:
    unsupported = _UNSUPPORTED_PTX.search(message)
    if unsupported:  # ptx_version given (a capture records the run's): the run's ptxas was newer than this one
        return (f" — the PTX asks for ISA {unsupported['asked']} (the ptx_version option; a capture records the one "
                f"its run's ptxas wrote) and this ptxas reads up to {unsupported['here']}: set TRITON_PTXAS_PATH to "
                "a ptxas that reads it (the run's, or a newer one)")
    for fixed_in, targets, pattern, meaning in _KNOWN_FAILURES:
        if VERSION < fixed_in and (targets is None or (target and target.name in targets)) and pattern in message:
            return f" — {meaning}"
    return _removed_meaning(message)


def backend_error(fn, exc: Exception, options: Mapping[str, Any], target: Target,
                   native: str = "") -> CompileError:
    file, first_line = def_location(fn)
    settings = ", ".join(f"{k}={v}" for k, v in options.items())
    inner = _innermost_reason(exc)
    diagnostic = _diagnostic(native)
    if diagnostic and diagnostic not in inner:
        inner = f"{inner} ({diagnostic})"
    reason = f"Triton could not compile {fn.__name__} for {target.name}" + (f" ({settings})" if settings else "") \
        + f": {inner}"
    if "non-ASCII" in inner and not file.isascii():  # the PTX's .file directive carries the path
        reason += (" — the PTX names the kernel's file by its path, and ptxas reads only ASCII: give the file and "
                   "its folders ASCII names")
    return CompileError(reason + _known_meaning(inner, target), file=file, line=first_line)
