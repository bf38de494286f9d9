"""Compiling with MLIR's per-pass IR dumps on (`ttinspect passes`), captured exactly and quickly.

Part of the compile package (the one place that imports triton): what differs between Triton releases
in how the dumps are printed is handled here.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import warnings
from typing import Any, Mapping

import triton
from triton.compiler import ASTSource
from triton.compiler.errors import CompilationError

from ttinspect.kernel.specialize import Specialization
from ttinspect.targets.nvidia import Target
from ttinspect.compile.failures import backend_error, check_supported, compile_error, native_stderr
from ttinspect.compile.installed import VERSION
from ttinspect.compile.markers import final_marker, stage_marker
from ttinspect.errors import TTInspectError

# --- the per-pass history (`ttinspect passes`) ------------------------------------------------------

# Stages whose pass managers print MLIR dumps; ptx and cubin run no MLIR passes.
_MLIR_STAGES = ("ttir", "ttgir", "llir")


class _StopAfterLLIR(Exception):
    """Raised once the llir stage has run: the history needs no PTX, and ptxas costs time."""


def compile_pass_dump(fn, spec: Specialization, options: Mapping[str, Any], target: Target) -> str:
    """Compile once more with MLIR's per-pass dumps on and return what they printed, with a marker
    where each stage starts and the module each stage leaves (which no dump shows: a snapshot is
    printed *before* each pass). The dumps go to C++'s fd 2; they are captured, never shown."""
    check_supported(fn, spec)
    source = ASTSource(fn, spec.signature, spec.constexprs, spec.attrs)
    from ttinspect.compile.amd import gpu_target  # imports triton

    gpu = gpu_target(target)
    native: dict[str, str] = {}
    dumps = PassDumps()
    with tempfile.TemporaryDirectory(prefix="ttinspect-passes-") as scratch, \
            stages_wrapped(dumps.marked, target.backend), dump_environment(scratch, dumps.path):
        try:
            with warnings.catch_warnings(), native_stderr(native, force=True):
                warnings.filterwarnings("ignore", message="TRITON_DEFAULT_FP_FUSION")
                triton.compile(source, target=gpu, options=dict(options))
        except _StopAfterLLIR:
            pass
        except CompilationError as exc:
            raise compile_error(fn, exc) from exc
        except Exception as exc:  # Triton's backend raises plain RuntimeError/AssertionError/KeyError
            raise backend_error(fn, exc, options, target, native.get("text", "")) from exc
    try:
        return checked_pass_dump(dumps.collect(native.get("text", "")))
    except StepsElsewhere:  # once per process at most: fd 2 from now on
        return compile_pass_dump(fn, spec, options, target)


def checked_pass_dump(text: str) -> str:
    if "IR Dump" not in text:
        raise TTInspectError(f"Triton {triton.__version__} printed no per-pass IR dumps with MLIR_ENABLE_DUMP=1, "
                             "so the pass history is unavailable")
    return text


class PassDumps:
    """One compile's per-pass dumps, with where each stage begins and the module each stage leaves.

    MLIR prints the dumps through llvm::errs(), which is unbuffered: a write(2) per token, 1.2 s of
    opt's 2.4 s cold `passes` (measured: +0.47 s even into /dev/null). With MLIR_DUMP_PATH set, Triton
    prints them instead into a file it opens once per process, buffered (+0.14 s). That stream is
    flushed only when its buffer fills, so the file's size says nothing about where this compile's
    dumps begin or end: the markers go *into the stream*, as dumps of tiny marker modules (a module
    whose only content is a `ttinspect.mark` attribute), so their order is exact. The modules the
    stages leave (printed by no dump) are kept here and spliced in after the stage's end marker.
    Where the file cannot be used (MLIR_DUMP_PATH already set by the user, a release without it), the
    dumps and the markers reach fd 2, captured by _native_stderr, and are read from there."""

    FLUSH_DUMPS = 256  # x ~200 bytes: more than any stream buffer (a page, st_blksize)

    def __init__(self) -> None:
        import secrets

        self.nonce = secrets.token_hex(8)
        self.finals: dict[str, str] = {}
        self.path = _dump_file()
        self.start = _size(self.path)

    def mark(self, kind: str, stage: str = "", copies: int = 1) -> None:
        from triton._C.libtriton import ir, passes

        context = _marker_context()
        with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as source:
            source.write(f'module attributes {{ttinspect.mark = "{kind}:{stage}:{self.nonce}"}} {{\n}}\n')
        try:
            module = ir.parse_mlir_module(source.name, context)
        finally:
            os.unlink(source.name)
        manager = ir.pass_manager(context)
        # enable_debug reads the environment: the flush comes after the compile has restored it.
        saved = {name: os.environ.get(name) for name in ("MLIR_ENABLE_DUMP", "MLIR_DUMP_PATH")}
        os.environ["MLIR_ENABLE_DUMP"] = "1"
        if self.path is not None:
            os.environ["MLIR_DUMP_PATH"] = self.path
        try:
            manager.enable_debug()  # prints the module before each pass, into the dumps' stream
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        for _ in range(copies):
            passes.common.add_symbol_dce(manager)
        try:
            manager.run(module, "ttinspect-mark")
        except TypeError:  # Triton < 3.5: run(module)
            manager.run(module)

    def marked(self, stage: str, run, stop: bool = True):
        """A stage function that marks where the stage begins and keeps the module it leaves."""
        def stage_with_markers(src, metadata):
            self.mark("begin", stage)
            out = run(src, metadata)
            # The pass managers mutate the module in place: after the llir stage `src` is the module in
            # the LLVM dialect that the last pass left, before its translation to LLVM IR. Triton 3.3 and 3.4
            # frees that module inside make_llir (printing it crashes the process): there the last llir
            # pass's result stays unknown. 3.4 too (found running it in a toolchain: a segfault).
            if stage != "llir" or VERSION >= (3, 5):
                self.finals[stage] = str(src)
            self.mark("end", stage)
            if stop and stage == "llir":
                raise _StopAfterLLIR
            return out
        return stage_with_markers

    def collect(self, native: str) -> str:
        """This compile's dumps in passes.dump's form: stage markers, the dumps, each stage's module."""
        text = ""
        steps = "internal IR Dump"
        if self.path is not None and steps in native:
            # This release prints a pass's own steps (the pipeliner's) straight to fd 2, not through
            # MLIR_DUMP_PATH: their place among the other dumps is lost. Use fd 2 for everything from
            # now on (measured: Triton 3.3 and 3.6), and have the caller compile again.
            _FILE_MODE[0] = False
            raise StepsElsewhere()
        if self.path is not None:
            self.mark("flush", copies=self.FLUSH_DUMPS)  # pushes everything before it out of the buffer
            with open(self.path, "rb") as stream:
                stream.seek(self.start)
                text = stream.read().decode(errors="replace")
        if f':{self.nonce}"' not in text:  # the dumps went to fd 2
            text = native
        return self._splice(text)

    def _splice(self, text: str) -> str:
        out: list[str] = []
        inside = False
        for chunk in re.split(r"(?m)^(?=// -----// )", text):
            match = re.search(r'ttinspect\.mark = "(\w+):(\w*):(\w+)"', chunk[:400])
            if match is None:
                if inside:
                    out.append(chunk)
                continue
            kind, stage, nonce = match.groups()
            if nonce != self.nonce:
                continue  # another compile's marker (an earlier flush, still in the buffer then)
            if kind == "flush":
                break
            inside = True
            if kind == "begin":
                out.append(stage_marker(stage))
            elif stage in self.finals:
                out.append(final_marker(stage) + self.finals[stage] + "\n")
        return "".join(out)


class StepsElsewhere(Exception):
    """The dumps went through MLIR_DUMP_PATH but a pass's own steps to fd 2: compile again on fd 2."""


_DUMP_FILE: list[str | None] = []  # the process's dump file, decided once (Triton opens it once)
# Whether to print through MLIR_DUMP_PATH at all: not where a release prints the pipeliner's own steps to
# fd 2 regardless (measured on 3.3 and 3.6; a release not measured is found out on its first compile).
_FILE_MODE = [VERSION >= (3, 7)]


def _dump_file() -> str | None:
    if not _FILE_MODE[0]:
        return None
    if _DUMP_FILE:
        return _DUMP_FILE[0]
    path = None
    if not os.environ.get("MLIR_DUMP_PATH"):  # the user's own dump file is theirs: use fd 2 then
        import atexit
        import shutil

        shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None  # memory: the dumps are MBs
        directory = tempfile.mkdtemp(prefix="ttinspect-mlir-dumps-", dir=shm)
        atexit.register(shutil.rmtree, directory, True)
        path = os.path.join(directory, "dumps.mlir")
    _DUMP_FILE.append(path)
    return path


def _size(path: str | None) -> int:
    try:
        return os.path.getsize(path) if path else 0
    except OSError:
        return 0


_CONTEXT: list[Any] = []


def _marker_context():
    if not _CONTEXT:
        from triton._C.libtriton import ir

        context = ir.context()
        ir.load_dialects(context)
        _CONTEXT.append(context)
    return _CONTEXT[0]


@contextlib.contextmanager
def stages_wrapped(wrap, backend: str = "cuda"):
    """Wrap the backend's MLIR stage functions for one compile (`backend`: "cuda" or "hip", as
    Target.backend says; both vendors name their MLIR stages ttir, ttgir, llir). `add_stages` takes
    (stages, options) on 3.3 and (stages, options, language) later: the extra arguments pass through.
    Triton 3.3 loads its backends from their files as modules of their own, so the class a compile uses
    (`triton.backends.backends[name].compiler`) is not the one `import` gives: both are wrapped."""
    if backend == "hip":
        from triton.backends.amd.compiler import HIPBackend as Backend
        name = "amd"
    else:
        from triton.backends.nvidia.compiler import CUDABackend as Backend
        name = "nvidia"

    classes = {Backend}
    try:
        from triton.backends import backends

        classes.add(backends[name].compiler)
    except (ImportError, KeyError, AttributeError):
        pass
    originals = {cls: cls.__dict__.get("add_stages") for cls in classes}

    def wrapped(original):
        def add_stages(self, stages, options, *rest, **kwargs):
            original(self, stages, options, *rest, **kwargs)
            for stage in _MLIR_STAGES:
                if stage in stages:
                    stages[stage] = wrap(stage, stages[stage])
        return add_stages

    for cls in classes:
        cls.add_stages = wrapped(cls.add_stages)
    try:
        yield
    finally:
        for cls, original in originals.items():
            if original is None:
                del cls.add_stages
            else:
                cls.add_stages = original


@contextlib.contextmanager
def dump_environment(scratch: str, dump_path: str | None = None):
    """MLIR_ENABLE_DUMP=1 (read by the C++ pass manager at each compile), Triton's cache bypassed
    (a cache hit runs no passes, hence dumps nothing) and pointed at a scratch directory (the compile
    stops after llir: its half entry must not land in the user's cache)."""
    names = ("MLIR_ENABLE_DUMP", "TRITON_ALWAYS_COMPILE", "TRITON_CACHE_DIR", "MLIR_DUMP_PATH")
    saved = {name: os.environ.get(name) for name in names}
    os.environ.update(MLIR_ENABLE_DUMP="1", TRITON_ALWAYS_COMPILE="1", TRITON_CACHE_DIR=scratch)
    if dump_path is not None:  # read by Triton at each dump; the file it names is opened once
        os.environ["MLIR_DUMP_PATH"] = dump_path
    knobs = getattr(triton, "knobs", None)  # 3.4 on: knobs read the environment unless set in code
    scopes = contextlib.ExitStack()
    if knobs is not None and hasattr(knobs, "compilation") and hasattr(knobs.compilation, "scope"):
        scopes.enter_context(knobs.compilation.scope())
        knobs.compilation.always_compile = True
        if hasattr(knobs, "cache") and hasattr(knobs.cache, "scope"):
            scopes.enter_context(knobs.cache.scope())
            knobs.cache.dir = scratch
    try:
        with scopes:
            yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
