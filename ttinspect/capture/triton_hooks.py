"""Where the capture hooks reach into Triton, release by release (3.3 to 3.9): every version difference the
hooks meet lives here, read from each release's own source (python/triton/{compiler,runtime}).

- The compile function: `triton.compiler.compiler.compile`, re-exported as `triton.compiler.compile` and
  `triton.compile` (every release). `JITFunction.create_binder` binds it on the function (`self.compile`) the
  first time a function launches on a device, from `triton.compiler`; torch Inductor calls `triton.compile`.
  Its signature grew `_env_vars` in 3.5: the hook passes whatever it is given through.
- A launch: `kernel[grid](...)` is `KernelInterface.__getitem__`, the same lambda calling
  `self.run(grid=grid, warmup=False, ...)` in every release; `JITFunction.run(self, *args, grid, warmup,
  **kwargs)` returns the CompiledKernel (Autotuner.run and Heuristics.run return what it returns).
  Triton's own launch hooks (`CompiledKernel.launch_enter_hook` in 3.3, `knobs.runtime.launch_enter_hook`
  from 3.4) see neither the arguments nor the grid, and turning them on makes every launch build its launch
  metadata; taking the place of `__getitem__`'s lambda costs nothing extra and sees both.
- The autotuner: `Autotuner.run(self, *args, **kwargs)`, `_bench(self, *args, config, **meta)` (timing one
  config), `prune_configs(self, kwargs)`, `cache` (key tuple -> chosen Config), `configs_timings` (a new dict
  each time it benchmarks: Config -> [p50, p20, p80] ms, or a float), `keys`, `configs` — all in every
  release. `Heuristics.run(self, *args, **kwargs)` sets `kwargs[name] = heuristic(args)` before `fn.run`.
- `triton.testing.do_bench(fn, warmup, rep, grad_to_none, quantiles, [fast_flush,] return_mode)` and
  `do_bench_cudagraph(fn, rep, grad_to_none, quantiles, return_mode)`: a float, or a list for `quantiles`
  (more than one) or `return_mode="all"`, in every release.
- The interpreter (TRITON_INTERPRET=1): `InterpretedFunction.run(self, *args, grid, warmup, **kwargs)` from
  3.6 (a KernelInterface); before that `run` is set per instance in `__init__` and `__getitem__` returns a
  GridExecutor. The jit decorator's arguments (do_not_specialize, ...) are in `rewriter.kwargs` everywhere.
- Bools are typed i1 on 3.3 and u1 later; `CompiledKernel.metadata_group` (the cache files) exists from 3.4,
  the cache manager's `cache_dir` everywhere.
"""

from __future__ import annotations

import inspect
import operator
import os
import re
import sys
from functools import lru_cache
from typing import Any, Callable

# Each patch point: (module, owner name in it or "" for the module itself, attribute).
COMPILE_BINDINGS = (("triton.compiler.compiler", "", "compile"), ("triton.compiler", "", "compile"),
                    ("triton", "", "compile"))
JIT_RUN = ("triton.runtime.jit", "JITFunction", "run")
GETITEM = ("triton.runtime.jit", "KernelInterface", "__getitem__")
AUTOTUNER_RUN = ("triton.runtime.autotuner", "Autotuner", "run")
AUTOTUNER_BENCH = ("triton.runtime.autotuner", "Autotuner", "_bench")
AUTOTUNER_PRUNE = ("triton.runtime.autotuner", "Autotuner", "prune_configs")
HEURISTICS_RUN = ("triton.runtime.autotuner", "Heuristics", "run")
# what a library's own autotuner times its configs with (`fn` first in every release; imported by `import triton`)
BENCHMARKERS = (("triton.testing", "", "do_bench"), ("triton.testing", "", "do_bench_cudagraph"))
INTERPRETER_MODULE = "triton.runtime.interpreter"
OPTION_KEYS = ("num_warps", "num_stages", "num_ctas", "maxnreg")
# Options recorded even when they are the backend's default: their default comes from the environment
# (TRITON_DEFAULT_FP_FUSION), which an offline compile elsewhere may not share.
ALWAYS_RECORDED = OPTION_KEYS + ("enable_fp_fusion",)


def version() -> tuple[int, int]:
    text = getattr(sys.modules.get("triton"), "__version__", "0.0")
    major, _, rest = text.partition(".")
    minor = "".join(ch for ch in rest.split(".")[0] if ch.isdigit())
    return int(major or 0), int(minor or 0)


def bool_type() -> str:
    return "i1" if version() < (3, 4) else "u1"


def owner(module_name: str, owner_name: str) -> Any:
    """The module (or the class in it) a patch point belongs to; None when this release has none."""
    module = sys.modules.get(module_name)
    if module is None or not owner_name:
        return module
    return getattr(module, owner_name, None)


def interpreter_patch_points() -> list[tuple[Any, str]]:
    """(class, attribute) to wrap for interpreted launches: `run` from 3.6, else `__init__` (which sets the
    instance's `run`) and `__getitem__`."""
    cls = owner(INTERPRETER_MODULE, "InterpretedFunction")
    if cls is None:
        return []
    if "run" in vars(cls):
        return [(cls, "run")]
    return [(cls, "__init__"), (cls, "__getitem__")]


def grid_int(value: Any) -> int:
    """One grid size as an int. Under the interpreter a grid function sees the launch's ints as scalar
    tl.tensors (their value in `handle.data`, a numpy array), so the grid it returns is made of those."""
    try:
        return operator.index(value)
    except TypeError:
        data = getattr(getattr(value, "handle", None), "data", None)
        if data is None:
            raise
        return int(data.item())


def interpreter_on() -> bool:
    knobs = getattr(sys.modules.get("triton"), "knobs", None)
    runtime = getattr(knobs, "runtime", None)
    if runtime is not None and hasattr(runtime, "interpret"):
        return bool(runtime.interpret)
    return os.environ.get("TRITON_INTERPRET", "0") == "1"


def is_ast_source(src: Any) -> bool:
    cls = owner("triton.compiler.compiler", "ASTSource")
    return cls is not None and isinstance(src, cls)


def kernel_params(fn: Any) -> list[Any]:
    """A @triton.jit function's KernelParams (name, is_constexpr, do_not_specialize, annotation_type)."""
    return list(fn.params)


def interpreted_params(obj: Any) -> list[Any]:
    """The KernelParams an InterpretedFunction would have as a JITFunction, made by Triton's own class from
    the jit decorator's arguments (kept in `rewriter.kwargs` in every release)."""
    from triton.runtime.jit import KernelParam  # triton is loaded: the interpreter runs

    given = getattr(getattr(obj, "rewriter", None), "kwargs", None) or {}
    no_spec = given.get("do_not_specialize") or ()
    no_align = given.get("do_not_specialize_on_alignment") or ()
    out = []
    for index, param in enumerate(inspect.signature(obj.fn).parameters.values()):
        out.append(KernelParam(index, param, index in no_spec or param.name in no_spec,
                               index in no_align or param.name in no_align))
    return out


@lru_cache(maxsize=1)
def dtype_names() -> dict[str, str]:
    """A Triton dtype's short name -> its attribute in triton.language ("fp16" -> "float16"); the longer,
    spelled-out attribute wins where a dtype has two."""
    import triton.language as tl  # triton is loaded: a kernel compiled or ran

    names: dict[str, str] = {}
    for attr, value in sorted(vars(tl).items(), key=lambda item: -len(item[0])):
        if isinstance(value, tl.dtype) and not attr.startswith("_"):
            names.setdefault(value.name, attr)
    return names


def kernel_target(kernel: Any) -> dict[str, Any] | None:
    target = getattr(getattr(kernel, "metadata", None), "target", None)
    if target is None:
        return None
    if isinstance(target, dict):
        return {k: target.get(k) for k in ("backend", "arch", "warp_size")}
    return {"backend": target.backend, "arch": target.arch, "warp_size": target.warp_size}


def kernel_cache_dir(kernel: Any) -> str | None:
    """The folder of the run's Triton cache holding this compile's files (PTX, cubin, metadata)."""
    group = getattr(kernel, "metadata_group", None)  # 3.4 on
    if group:
        return os.path.dirname(next(iter(group.values())))
    from triton.runtime.cache import get_cache_manager  # triton is loaded: it just compiled

    try:
        return getattr(get_cache_manager(kernel.hash), "cache_dir", None)
    except Exception:  # a remote or custom cache manager: no folder to name
        return None


def kernel_options(kernel: Any, given: Any) -> dict[str, Any]:
    """The compile's options: those passed to compile() when it got a mapping, else the metadata's."""
    if isinstance(given, dict):
        return dict(given)
    metadata = getattr(kernel, "metadata", None)
    if metadata is not None and hasattr(metadata, "_asdict"):
        return dict(metadata._asdict())
    return {}


def ptx_version(kernel: Any) -> int | None:
    """The PTX ISA version the compile wrote (`.version 8.7` -> 87): Triton derives it from the ptxas it finds,
    so an offline compile elsewhere (another CUDA toolkit) writes another one unless told this one."""
    asm: Any = getattr(kernel, "asm", None) or {}
    return ptx_text_version(asm.get("ptx") if hasattr(asm, "get") else None)


def ptx_text_version(text: Any) -> int | None:
    match = re.search(r"^\.version (\d+)\.(\d+)", text[:4096], re.M) if isinstance(text, str) else None
    return int(match[1]) * 10 + int(match[2]) if match else None


def cache_dir_of_path_key(path_key: str | None) -> str | None:
    """The run's Triton cache folder named `path_key` (Triton's cache key in base32, as the folder is named
    and as torch Inductor names a compile), when it is there: a compile made in another process (Inductor's
    compile workers) is found by it. Not through get_cache_manager, which makes the folder it names."""
    if not path_key or not re.fullmatch(r"[A-Z2-7]+", path_key):
        return None
    try:
        from triton import knobs  # 3.4 on: the cache settings, and a custom (remote) manager if one is set

        from triton.runtime.cache import FileCacheManager

        if (knobs.cache.manager_class or FileCacheManager) is not FileCacheManager:
            return None
        root = knobs.cache.dir
    except ImportError:  # 3.3: the environment variable, else Triton's default
        from triton.runtime.cache import default_cache_dir

        root = os.getenv("TRITON_CACHE_DIR", "").strip() or default_cache_dir()
    folder = os.path.join(root, path_key)
    return folder if os.path.isdir(folder) else None


def ptxas(target: dict[str, Any] | None) -> dict[str, Any] | None:
    """The ptxas this process compiles the target with ({"path", "version"}): Triton's bundled one unless
    TRITON_PTXAS_PATH names another (torch Inductor sets it to torch's own when it is imported, so one
    program may use two). `get_ptxas(arch)` from 3.6 (ptxas-blackwell for sm_100+; 3.9 for sm_90+ too),
    `get_ptxas()` in 3.4-3.5, and a (path, version) tuple in 3.3."""
    if not target or target.get("backend") != "cuda":
        return None
    get = getattr(sys.modules.get("triton.backends.nvidia.compiler"), "get_ptxas", None)
    if get is None:
        return None
    try:
        tool = get(target["arch"]) if inspect.signature(get).parameters else get()
    except Exception:  # no ptxas to be found: the compile itself would have failed
        return None
    if isinstance(tool, tuple):
        return {"path": tool[0], "version": tool[1]}
    return {"path": getattr(tool, "path", None), "version": getattr(tool, "version", None)}


@lru_cache(maxsize=16)
def _defaults(backend: str, arch: Any, warp_size: int) -> dict[str, Any]:
    from triton.backends.compiler import GPUTarget  # triton is loaded: it just compiled
    from triton.compiler.compiler import make_backend

    return dict(vars(make_backend(GPUTarget(backend, arch, warp_size)).parse_options({})))


def option_defaults(target: dict[str, Any] | None) -> dict[str, Any] | None:
    """What the target's backend parses from no options at all; None when that cannot be known."""
    if not target:
        return None
    try:
        return _defaults(target["backend"], target["arch"], target["warp_size"])
    except Exception:  # a backend this Triton cannot make here
        return None


def function_of(src: Any) -> Any:
    """The ASTSource's @triton.jit function."""
    return getattr(src, "fn", None)


def python_function(fn: Any) -> Callable[..., Any] | None:
    """The plain Python function under a JITFunction / InterpretedFunction."""
    inner = getattr(fn, "fn", None)
    return inner if callable(inner) and hasattr(inner, "__code__") else None


def is_jit_function(value: Any) -> bool:
    cls = owner("triton.runtime.jit", "JITFunction")
    return cls is not None and isinstance(value, cls)


def caching_autotuner() -> Any:
    """torch Inductor's CachingAutotuner (its kernels' launch entry point), when imported."""
    return owner("torch._inductor.runtime.triton_heuristics", "CachingAutotuner")
