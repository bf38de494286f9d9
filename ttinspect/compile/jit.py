"""The one package that imports triton. Every difference between Triton versions lives here.

`compile_jit` compiles a @triton.jit function for a target with the specialization a real launch would
get (see specialize.py), returning every stage triton.compile produced and its metadata as plain data.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import re
import sys
import tempfile
import warnings
from typing import Any, Iterator, Mapping

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from triton.compiler.errors import CompilationError

from ttinspect.errors import CompileError, NoGPUError, UsageError
from ttinspect.kernel.specialize import Specialization, specialize
from ttinspect.dialects.stages import COMPILED
from ttinspect.targets.nvidia import Target, from_capability
from ttinspect.kernel.variants import TlDtype
from ttinspect.compile.scratch import private_tempdir
from ttinspect.targets.releases import release

VERSION: tuple[int, int] = release(triton.__version__)  # annotated: pass_dumps imports it in a cycle
# Triton 3.3 typed bools as i1; 3.4 and later as u1 (docs/versions.md).
BOOL_TYPE = "i1" if VERSION < (3, 4) else "u1"
# Triton runs `ptxas -v` on every compile; from 3.5 on it prints the report when asked
# (knobs.nvidia.dump_ptxas_log), before that it deletes it unread.
KEEPS_PTXAS_LOG = hasattr(getattr(getattr(triton, "knobs", None), "nvidia", None), "dump_ptxas_log")
NO_PTXAS_LOG = (None if KEEPS_PTXAS_LOG else
                f"Triton {triton.__version__} deletes the ptxas -v report unread (kept from Triton 3.5 on)")


# What an older Triton cannot compile, measured by compiling on each release (docs/versions.md):
# (what the kernel uses, the first Triton that compiles it).
_NEEDS = (("tensordesc", (3, 4), "host-side tensor descriptors (TensorDescriptor arguments)"),)


def check_supported(fn, spec: Specialization) -> None:
    """One line naming what this Triton lacks, instead of Triton's internal KeyError."""
    for prefix, first, what in _NEEDS:
        if VERSION >= first:
            continue
        uses = [f"{name}: {ty}" for name, ty in spec.signature.items() if str(ty).startswith(prefix)]
        if uses:
            file, line = _kernel_location(fn)
            raise CompileError(f"{fn.__name__} takes {what} ({uses[0]}), which Triton {triton.__version__} "
                               f"cannot compile; Triton >= {first[0]}.{first[1]} can", file=file, line=line)


@contextlib.contextmanager
def offline_imports() -> Iterator[None]:
    """Import a user's file on a machine without a GPU. Triton 3.3's @triton.autotune asks the GPU
    driver for its benchmarker when the decorator runs, so the import itself fails without a GPU; a
    stand-in driver answers that one question (benchmarking needs a GPU and is never done here)."""
    from triton.runtime import driver

    has_gpu = VERSION >= (3, 4)
    if not has_gpu:
        try:
            driver.active.get_current_target()
            has_gpu = True
        except Exception:  # no GPU: Triton raises RuntimeError("0 active drivers") and others
            pass
    if has_gpu:  # the import's own errors propagate as they are
        yield
        return

    class _NoGPU:
        def get_benchmarker(self):
            def no_bench(*args, **kwargs):
                raise NoGPUError("benchmarking needs a CUDA GPU")
            return no_bench

    saved = dict(vars(driver))  # restored as it was: reset_active() would create a driver (no GPU here)
    driver.set_active(_NoGPU())
    try:
        yield
    finally:
        vars(driver).clear()
        vars(driver).update(saved)


def native_target() -> Target:
    """The local GPU's target (`--arch native`)."""
    try:
        target = triton.runtime.driver.active.get_current_target()
    except Exception as exc:  # no driver, no GPU: Triton raises several different things
        raise NoGPUError("--arch native needs a CUDA GPU; name a target instead, e.g. --arch sm_90") from exc
    if target.backend == "hip":
        from ttinspect.compile.amd import native_amd_target

        return native_amd_target(str(target.arch))
    if target.backend != "cuda":
        raise NoGPUError(f"--arch native found a {target.backend} device; ttinspect targets NVIDIA and AMD GPUs")
    return from_capability(int(target.arch))


def kernel_kind(obj) -> str | None:
    """"jit", "autotune", "heuristics" for the objects Triton's decorators make; "interpreted" for a
    @triton.jit function made under TRITON_INTERPRET=1 (it cannot be compiled); None otherwise."""
    from triton.runtime.autotuner import Autotuner, Heuristics

    if isinstance(obj, triton.runtime.JITFunction):
        return "jit"
    if isinstance(obj, Autotuner):
        return "autotune"
    if isinstance(obj, Heuristics):
        return "heuristics"
    if type(obj).__name__ == "InterpretedFunction":
        return "interpreted"
    return None


def unwrap(obj) -> tuple[Any, Any, list]:
    """A kernel object -> (its JIT function, the Autotuner around it or None, the Heuristics from the
    outside in). Heuristics may sit above or below the autotuner (flash-linear-attention stacks them
    above); their values are computed after the config is chosen either way."""
    autotuner: Any = None
    heuristics: list[Any] = []
    while True:
        kind = kernel_kind(obj)
        if kind == "jit":
            return obj, autotuner, heuristics
        if kind == "autotune" and autotuner is None:
            autotuner = obj
        elif kind == "heuristics":
            heuristics.append(obj)
        else:
            jit_params(obj)  # raises the clear message
        obj = obj.fn


def autotune_configs(autotuner) -> list[dict[str, Any]]:
    """Each triton.Config as one flat mapping of constexprs and options, as the autotuner launches it."""
    out = []
    for config in autotuner.configs:
        if hasattr(config, "all_kwargs"):
            out.append(dict(config.all_kwargs()))
        else:  # older Tritons: kwargs and the options as attributes
            options = {k: getattr(config, k, None) for k in ("num_warps", "num_stages", "num_ctas", "maxnreg")}
            out.append({**config.kwargs, **{k: v for k, v in options.items() if v is not None}})
    return out


def option_names() -> frozenset[str]:
    """The compile options the NVIDIA backend accepts (what a launch passes through `**kwargs`)."""
    from triton.backends.nvidia.compiler import CUDAOptions

    from ttinspect.compile.amd import hip_option_names  # an option of either backend: each drops the other's

    return frozenset(CUDAOptions.__dataclass_fields__) | hip_option_names()


def split_options(fn, config: Mapping[str, Any]) -> dict[str, Any]:
    """The compile options in a config. A key that is neither a kernel parameter nor an option is
    refused: Triton itself would drop it without a word."""
    from ttinspect.kernel.variants import OPTION_KEYS, check_option

    names = set(fn.arg_names)
    valid = option_names()
    unknown = [k for k in config if k not in names and k not in valid]
    if unknown:
        raise UsageError(f"{', '.join(unknown)}: not a parameter of {fn.__name__} nor a compile option; "
                         f"parameters: {', '.join(fn.arg_names)}; options: {', '.join(OPTION_KEYS)}, ...")
    options = {k: v for k, v in config.items() if k in OPTION_KEYS or (k in valid and k not in names)}
    for key, value in options.items():
        check_option(key, value)
    return options


def jit_params(fn) -> tuple[list[str], frozenset[str], frozenset[str]]:
    """Parameter names in order, and those marked do_not_specialize / do_not_specialize_on_alignment."""
    if kernel_kind(fn) == "interpreted":
        raise UsageError(f"{fn.__name__!r} was made by @triton.jit under TRITON_INTERPRET=1, which cannot be "
                         "compiled: unset TRITON_INTERPRET")
    if not isinstance(fn, triton.runtime.JITFunction):
        raise UsageError(f"{getattr(fn, '__name__', fn)!r} is not a @triton.jit function")
    names = list(fn.arg_names)
    no_spec = frozenset(p.name for p in fn.params if p.do_not_specialize)
    no_align = frozenset(p.name for p in fn.params if p.do_not_specialize_on_alignment)
    return names, no_spec, no_align


def specialize_for(fn, args: Mapping[str, Any], constexprs: Mapping[str, Any]) -> Specialization:
    names, no_spec, no_align = jit_params(fn)
    constexpr_params = {p.name for p in fn.params if p.is_constexpr}
    values = {k: _to_triton(v) for k, v in constexprs.items() if k in names}
    args = dict(args)
    for param in fn.params:  # what the launch would take from the `def` line's defaults
        if param.name in values or param.name in args or not param.has_default:
            continue
        if param.is_constexpr:
            values[param.name] = _to_triton(param.default)
        else:
            args[param.name] = param.default
    missing = sorted(constexpr_params - set(values))
    if missing:
        raise UsageError(f"no value for constexpr parameter(s) {', '.join(missing)} of {fn.__name__}")
    annotations = {p.name: p.annotation_type for p in fn.params
                   if not p.is_constexpr and getattr(p, "annotation_type", None)}
    return specialize(names, args, values, do_not_specialize=no_spec,
                      do_not_specialize_on_alignment=no_align, bool_type=BOOL_TYPE, annotations=annotations)


def _to_triton(value: Any) -> Any:
    if isinstance(value, TlDtype):
        dtype = getattr(tl, value.name, None)
        if not isinstance(dtype, tl.dtype):
            raise UsageError(f"tl.{value.name} is not a Triton dtype")
        return dtype
    return value


def compile_jit(fn, spec: Specialization, options: Mapping[str, Any], target: Target,
                pass_dump: dict[str, str] | None = None) -> tuple[dict[str, bytes], dict[str, Any]]:
    """Compile; return ({stage: file content}, metadata as JSON-ready data). With `pass_dump` (a dict),
    the same compile also prints MLIR's per-pass dumps, kept in pass_dump["text"] (as compile_pass_dump
    returns them): `ttinspect passes` on a cold cache then compiles once, not twice."""
    from ttinspect.compile.amd import check_backend, gpu_target

    check_supported(fn, spec)
    check_backend(target, VERSION, triton.__version__)
    source = ASTSource(fn, spec.signature, spec.constexprs, spec.attrs)
    gpu = gpu_target(target)
    log = io.StringIO()
    native: dict[str, str] = {}
    dumping = contextlib.ExitStack()
    dumps = None
    if pass_dump is not None:
        from ttinspect.compile.pass_dumps import _dump_environment, _PassDumps, _stages_wrapped

        dumps = _PassDumps()
    if dumps is not None:
        scratch = dumping.enter_context(tempfile.TemporaryDirectory(prefix="ttinspect-passes-"))
        dumping.enter_context(_stages_wrapped(lambda stage, run: dumps.marked(stage, run, stop=False),
                                                    target.backend))
        dumping.enter_context(_dump_environment(scratch, dumps.path))
    try:
        with dumping, warnings.catch_warnings(), _ptxas_log_to(log), private_tempdir(), \
                _native_stderr(native, force=pass_dump is not None):
            # Triton 3.9 warns that TRITON_DEFAULT_FP_FUSION is unset; a real launch keeps the same
            # default (fusion on), so the PTX is the JIT's either way.
            warnings.filterwarnings("ignore", message="TRITON_DEFAULT_FP_FUSION")
            kernel = triton.compile(source, target=gpu, options=dict(options))
    except CompilationError as exc:
        raise _compile_error(fn, exc) from exc
    except Exception as exc:  # Triton's backend raises plain RuntimeError/AssertionError/KeyError
        raise _backend_error(fn, exc, options, target, native.get("text", "")) from exc
    if dumps is not None and pass_dump is not None:  # both or neither: the second test is for mypy
        from ttinspect.compile.pass_dumps import StepsElsewhere

        try:
            pass_dump["text"] = dumps.collect(native.get("text", ""))
        except StepsElsewhere:  # left empty: the history is compiled again when asked, on fd 2
            pass
    elif native.get("text"):  # what the compiler printed on success (rare): passed on as it was
        sys.stderr.write(native["text"])
    files = {}
    for stage in COMPILED:
        content = kernel.asm.get(stage)
        if content is None:
            continue
        files[stage] = content if isinstance(content, bytes) else content.encode()
    if re.search(r"^ptxas\S*\s+info", log.getvalue(), re.M):  # "ptxas-blackwell info" on 3.9
        files["ptxas_log"] = log.getvalue().encode()
    return files, _metadata(kernel.metadata)


@contextlib.contextmanager
def _native_stderr(box: dict[str, str], *, force: bool = False):
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


@contextlib.contextmanager
def _ptxas_log_to(sink: io.StringIO):
    """Run ptxas for real (not from Triton's own cache) and keep its `-v` report: Triton runs
    `ptxas -v` on every compile but throws the log away unless `dump_ptxas_log` is set, in which case
    it prints it. Registers, spill bytes and stack come from there, from the very ptxas Triton used."""
    if not KEEPS_PTXAS_LOG:
        yield
        return
    knobs = triton.knobs
    with knobs.compilation.scope(), knobs.nvidia.scope(), contextlib.redirect_stdout(sink):
        knobs.compilation.always_compile = True
        knobs.nvidia.dump_ptxas_log = True
        yield


def _metadata(meta) -> dict[str, Any]:
    data = meta._asdict() if hasattr(meta, "_asdict") else dict(meta)
    out = {}
    for key, value in data.items():
        if isinstance(value, GPUTarget):
            value = {"backend": value.backend, "arch": value.arch, "warp_size": value.warp_size}
        elif isinstance(value, tuple):
            value = list(value)
        out[key] = value
    return out


def _kernel_location(fn) -> tuple[str, int]:
    """The kernel's file and the line of its `def` (Triton's AST line 1: decorators are not in it)."""
    try:
        lines, start = inspect.getsourcelines(fn.fn)
    except (OSError, TypeError):
        return "<unknown>", 1
    offset = next((i for i, text in enumerate(lines) if text.lstrip().startswith(("def ", "async def "))), 0)
    return inspect.getsourcefile(fn.fn) or "<unknown>", start + offset


def _compile_error(fn, exc: CompilationError) -> CompileError:
    """Triton's reason (the innermost message) and the line in the user's kernel it points at."""
    file, first_line = _kernel_location(fn)
    node_line = getattr(getattr(exc, "node", None), "lineno", None)  # the line in Triton's AST of the kernel
    line = first_line + node_line - 1 if node_line else None
    source_line = None
    if node_line and exc.src:
        lines = exc.src.split("\n")
        if 0 < node_line <= len(lines):
            source_line = lines[node_line - 1]
    reason = _innermost_reason(exc)
    return CompileError(reason + _known_meaning(reason, None), file=file, line=line, source_line=source_line)


def _innermost_reason(exc: BaseException) -> str:
    """Triton wraps errors from tl.* calls in CompilationErrors whose text repeats the source; the
    useful part is the last message in the chain."""
    chain = [exc]
    while True:
        inner = exc.__cause__ or exc.__context__
        if inner is None or inner is exc or inner in chain:
            break
        chain.append(inner)
        exc = inner
    for link in chain:  # a tool's own verdict (`ptxas fatal : ...`) says more than the exit status it led to
        said = _TOOL_VERDICT.search(str(getattr(link, "error_message", None) or link))
        if said:
            return said.group(0).strip()
    message = getattr(exc, "error_message", None) or str(exc)
    lines = [ln for ln in str(message).strip().splitlines() if ln.strip()]
    return lines[-1].strip() if lines else type(exc).__name__


# `ptxas fatal   : Unexpected non-ASCII character encountered on line 24` (Triton's PTXASError quotes it)
_TOOL_VERDICT = re.compile(r"^\s*(ptxas|nvlink|ld\.lld|llc|opt)\S*\s+(fatal|error)\s*:.*$", re.M)


# Backend failures measured on older releases (scripts/versions_probe.py), and what they mean:
# (first release without it, targets, Triton's message, the explanation).
_KNOWN_FAILURES = (
    ((3, 4), ("sm_70", "sm_72", "sm_75"), "PassManager::run failed",
     "Triton 3.3 cannot compile tl.dot for Volta/Turing (measured); Triton >= 3.4 can"),
    ((3, 4), None, "unexpected keyword argument 'warp_specialize'",
     "tl.range(warp_specialize=...) needs Triton >= 3.4"),
)


def _known_meaning(message: str, target: Target | None) -> str:
    for fixed_in, targets, pattern, meaning in _KNOWN_FAILURES:
        if VERSION < fixed_in and (targets is None or (target and target.name in targets)) and pattern in message:
            return f" — {meaning}"
    return ""


def _backend_error(fn, exc: Exception, options: Mapping[str, Any], target: Target,
                   native: str = "") -> CompileError:
    file, first_line = _kernel_location(fn)
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


# The per-pass history (`ttinspect passes`) lives beside: compile_jit uses it when asked.
from ttinspect.compile.pass_dumps import checked_pass_dump, compile_pass_dump  # noqa: E402,F401
