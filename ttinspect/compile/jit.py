"""The one package that imports triton. Every difference between Triton versions lives here.

`compile_jit` compiles a @triton.jit function for a target with the specialization a real launch would
get (see specialize.py), returning every stage triton.compile produced and its metadata as plain data.
"""

from __future__ import annotations

import contextlib
import io
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

from ttinspect.errors import NoGPUError, UsageError
from ttinspect.kernel.specialize import Specialization, specialize
from ttinspect.dialects.stages import COMPILED
from ttinspect.targets.nvidia import Target
from ttinspect.targets.lookup import from_capability
from ttinspect.kernel.argument_types import TlDtype
from ttinspect.compile.scratch import private_tempdir
from ttinspect.compile.failures import backend_error, check_supported, compile_error, native_stderr
from ttinspect.compile.installed import VERSION
from ttinspect.compile.pass_dumps import PassDumps, StepsElsewhere, dump_environment, stages_wrapped
from ttinspect.kernel.options import OPTION_KEYS, check_option

# Triton 3.3 typed bools as i1; 3.4 and later as u1 (docs/versions.md).
BOOL_TYPE = "i1" if VERSION < (3, 4) else "u1"
# Triton runs `ptxas -v` on every compile; from 3.5 on it prints the report when asked
# (knobs.nvidia.dump_ptxas_log), before that it deletes it unread.
KEEPS_PTXAS_LOG = hasattr(getattr(getattr(triton, "knobs", None), "nvidia", None), "dump_ptxas_log")
NO_PTXAS_LOG = (None if KEEPS_PTXAS_LOG else
                f"Triton {triton.__version__} deletes the ptxas -v report unread (kept from Triton 3.5 on)")


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
        from ttinspect.compile.amd import native_amd_target  # imports triton

        return native_amd_target(str(target.arch))
    if target.backend != "cuda":
        raise NoGPUError(f"--arch native found a {target.backend} device; ttinspect targets NVIDIA and AMD GPUs")
    return from_capability(int(target.arch))


def kernel_kind(obj) -> str | None:
    """"jit", "gluon" (@gluon.jit), "autotune", "heuristics" for the objects Triton's decorators make;
    "interpreted" for a @triton.jit function made under TRITON_INTERPRET=1 (it cannot be compiled); None
    otherwise."""
    from triton.runtime.autotuner import Autotuner, Heuristics

    if isinstance(obj, triton.runtime.JITFunction):
        return "gluon" if is_gluon(obj) else "jit"
    if isinstance(obj, Autotuner):
        return "autotune"
    if isinstance(obj, Heuristics):
        return "heuristics"
    if type(obj).__name__ == "InterpretedFunction":
        return "interpreted"
    if tunes_itself(obj):
        return "autotune"
    if _passes_through(obj):
        return kernel_kind(obj.fn)
    return None


def is_gluon(fn) -> bool:
    """A @gluon.jit function (Triton 3.5 on: `triton.experimental.gluon`), compiled through Gluon's own source
    class from TritonGPU IR the author wrote, not from Triton IR."""
    ask = getattr(fn, "is_gluon", None)
    return bool(ask()) if callable(ask) else False


def jit_function(fn, gluon: bool = False) -> Any:
    """A plain Python function made a JIT function, as `@triton.jit` (or `@gluon.jit`) makes it: for a kernel
    made again from its def (refs/nested_kernels.py)."""
    if gluon:
        from triton.experimental import gluon as gluon_module  # Triton 3.5 on; only for a Gluon def

        return gluon_module.jit(fn)
    return triton.jit(fn)


_GLUON_COMPILED = [False]


def gluon_compiled() -> bool:
    """Whether this process compiled a Gluon kernel (the CLI then quiets Triton's teardown: cli/main.py)."""
    return _GLUON_COMPILED[0]


def _gluon_source_class(fn) -> Any:
    try:  # Triton 3.4 on: the class the Gluon JIT compiles with (`GluonJITFunction.create_binder`)
        from triton.experimental.gluon._runtime import GluonASTSource
    except ImportError as exc:
        raise UsageError(f"{fn.__name__} is a Gluon kernel and Triton {triton.__version__} has no Gluon source "
                         "class to compile it with (Gluon arrived in Triton 3.4)") from exc
    return GluonASTSource


_BARE_DESCRIPTOR = re.compile(r"^tensordesc<(\w+)\[([\d, ]+)\]>$")
# the signature's element types -> triton.language's names for them
_GL_DTYPES = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64", "fp8e4nv": "float8e4nv",
              "fp8e5": "float8e5", "fp8e4b15": "float8e4b15", "fp8e4b8": "float8e4b8", "fp8e5b16": "float8e5b16",
              **{f"i{n}": f"int{n}" for n in (8, 16, 32, 64)}, **{f"u{n}": f"uint{n}" for n in (8, 16, 32, 64)}}


def _gluon_descriptor_layouts(signature: Mapping[str, str]) -> dict[str, str]:
    """A Gluon kernel's descriptor carries the shared layout its tiles land in (the host TensorDescriptor is
    made with one); one given without a layout gets NVMMASharedLayout.get_default_for(block, dtype), what
    Gluon's tutorials pass, so `tensordesc<fp16[128, 64]>` compiles as such a launch would."""
    from triton.experimental.gluon import language as gl  # Gluon: only for a Gluon kernel

    out = dict(signature)
    for name, text in signature.items():
        bare = _BARE_DESCRIPTOR.match(str(text))
        if bare:
            block = [int(n) for n in bare[2].split(",")]
            dtype = getattr(gl, _GL_DTYPES.get(bare[1], ""), None)
            if dtype is None:
                raise UsageError(f"--signature {name}: no default shared layout for a {bare[1]} descriptor; give it "
                                 "as tensordesc<...,NVMMASharedLayout(...)>")
            out[name] = f"tensordesc<{bare[1]}[{bare[2]}],{gl.NVMMASharedLayout.get_default_for(block, dtype)!r}>"
    return out


def _wraps_a_layer(obj) -> bool:
    """A library's own launch wrapper: a `triton.KernelInterface`, not one of Triton's, holding `.fn`."""
    from triton.runtime.autotuner import Autotuner, Heuristics

    interface = getattr(triton.runtime, "KernelInterface", None)
    return (interface is not None and isinstance(obj, interface)
            and not isinstance(obj, (triton.runtime.JITFunction, Autotuner, Heuristics))
            and getattr(obj, "fn", None) is not None and getattr(obj, "fn", None) is not obj)


def tunes_itself(obj) -> bool:
    """A library's own autotuner (GPTQ-style, vLLM's): a launch wrapper holding `.configs`, triton.Configs it
    picks from at launch; read as Triton's Autotuner (configs listed, `--config N`). Told by shape, not name."""
    configs = getattr(obj, "configs", None) if _wraps_a_layer(obj) else None
    return isinstance(configs, (list, tuple)) and bool(configs) and all(isinstance(c, triton.Config) for c in configs)


def _passes_through(obj) -> bool:
    """A library's own launch wrapper that only passes the launch on (flag-gems' `LibEntry`): a launch through
    it runs `.fn`, so compiling does too. One holding configs chooses among them (`tunes_itself`)."""
    return _wraps_a_layer(obj) and not tunes_itself(obj)


def unwrap(obj) -> tuple[Any, Any, list]:
    """A kernel object -> (its JIT function, the autotuner around it — Triton's, or a library's own — or None,
    the Heuristics from the outside in). Heuristics may sit above or below the autotuner (flash-linear-attention
    stacks them above); their values are computed after the config is chosen either way."""
    autotuner: Any = None
    heuristics: list[Any] = []
    while True:
        if _passes_through(obj):
            obj = obj.fn
            continue
        kind = kernel_kind(obj)
        if kind in ("jit", "gluon"):
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


def option_names(target: Target | None = None) -> frozenset[str]:
    """The compile options a launch passes through `**kwargs`: `target`'s backend's (CUDA's or HIP's), or
    either backend's when None."""
    from triton.backends.nvidia.compiler import CUDAOptions

    from ttinspect.compile.amd import hip_option_names  # the HIP backend's, imported with it

    cuda, hip = frozenset(CUDAOptions.__dataclass_fields__), hip_option_names()
    if target is None:
        return cuda | hip
    return hip if target.amd is not None else cuda


def split_options(fn, config: Mapping[str, Any], target: Target | None = None) -> dict[str, Any]:
    """The compile options in a config. A key that is neither a kernel parameter nor an option is
    refused: Triton itself would drop it without a word. With `target`, an option of the other vendor's
    backend is refused as a launch there refuses it (`waves_per_eu` on an NVIDIA GPU: "Keyword argument
    waves_per_eu was specified but unrecognised")."""
    names = set(fn.arg_names)
    valid = option_names()
    unknown = [k for k in config if k not in names and k not in valid]
    if unknown:
        raise UsageError(f"{', '.join(unknown)}: not a parameter of {fn.__name__} nor a compile option; "
                         f"parameters: {', '.join(fn.arg_names)}; options: {', '.join(OPTION_KEYS)}, ...")
    if target is not None and (target.amd is None or option_names(target)):  # no HIP backend: check_backend says
        own = option_names(target)
        foreign = [k for k in config if k not in names and k not in own]
        if foreign:
            vendor, other = ("AMD (HIP)", "NVIDIA (CUDA)") if target.amd is None else ("NVIDIA (CUDA)", "AMD (HIP)")
            raise UsageError(f"{', '.join(foreign)}: a compile option of Triton's {vendor} backend, which "
                             f"{target.name}'s {other} backend does not take (a launch there raises KeyError: "
                             f"Keyword argument {foreign[0]} was specified but unrecognised); drop it for "
                             f"{target.name}")
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
                      do_not_specialize_on_alignment=no_align, bool_type=BOOL_TYPE, annotations=annotations,
                      const_pointers=frozenset(p.name for p in fn.params if getattr(p, "is_const", False)))


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
    from ttinspect.compile.amd import check_backend, gpu_target  # imports triton

    check_supported(fn, spec)
    check_backend(target, VERSION, triton.__version__)
    gluon = is_gluon(fn)
    if gluon:
        _GLUON_COMPILED[0] = True
        source = _gluon_source_class(fn)(fn, _gluon_descriptor_layouts(spec.signature), spec.constexprs, spec.attrs)
    else:
        source = ASTSource(fn, spec.signature, spec.constexprs, spec.attrs)
    gpu = gpu_target(target)
    log = io.StringIO()
    native: dict[str, str] = {}
    dumping = contextlib.ExitStack()
    dumps = None
    if pass_dump is not None:
        dumps = PassDumps()
    if dumps is not None:
        scratch = dumping.enter_context(tempfile.TemporaryDirectory(prefix="ttinspect-passes-"))
        dumping.enter_context(stages_wrapped(lambda stage, run: dumps.marked(stage, run, stop=False),
                                                    target.backend))
        dumping.enter_context(dump_environment(scratch, dumps.path))
    try:
        with dumping, warnings.catch_warnings(), _ptxas_log_to(log), private_tempdir(), \
                native_stderr(native, force=pass_dump is not None):
            # Triton 3.9 warns that TRITON_DEFAULT_FP_FUSION is unset; a real launch keeps the same
            # default (fusion on), so the PTX is the JIT's either way.
            warnings.filterwarnings("ignore", message="TRITON_DEFAULT_FP_FUSION")
            kernel = triton.compile(source, target=gpu, options=dict(options))
    except CompilationError as exc:
        raise compile_error(fn, exc) from exc
    except Exception as exc:  # Triton's backend raises plain RuntimeError/AssertionError/KeyError
        raise backend_error(fn, exc, options, target, native.get("text", "")) from exc
    if dumps is not None and pass_dump is not None:  # both or neither: the second test is for mypy
        try:
            pass_dump["text"] = dumps.collect(native.get("text", ""))
        except StepsElsewhere:  # left empty: the history is compiled again when asked, on fd 2
            pass
    elif native.get("text"):  # what the compiler printed on success (rare): passed on as it was
        sys.stderr.write(native["text"])
    files = {}
    asm = dict(kernel.asm)
    if gluon:  # the kernel as written: "glir" from 3.9 on, "source" before (the same text)
        asm["glir"] = asm.get("glir", asm.get("source"))
    for stage in COMPILED:
        content = asm.get(stage)
        if content is None:
            continue
        files[stage] = content if isinstance(content, bytes) else content.encode()
    if re.search(r"^ptxas\S*\s+info", log.getvalue(), re.M):  # "ptxas-blackwell info" on 3.9
        files["ptxas_log"] = log.getvalue().encode()
    return files, _metadata(kernel.metadata)


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



