"""Capture under TRITON_INTERPRET=1: the kernels run in Triton's interpreter on CPU tensors and nothing is
compiled, so each launch is turned into the compile a GPU launch of the same arguments would have made.

The specialization is ttinspect's (kernel/specialize.py: the JIT's rules, checked against Triton's own
native specializer in tests/test_specialize.py): a tensor is `*dtype`, 16-byte aligned when its data pointer
is (a view at an odd offset is not); an int is i32/i64, divisible by 16 or not, folded when it is 1; floats
fp32; bools u1 (i1 on Triton 3.3); `do_not_specialize` and annotations as the JIT reads them (the jit
decorator's arguments, kept by the interpreter in `rewriter.kwargs`). One compile record per distinct
specialization x constexprs x options. The target is the GPU torch sees, if any; else none (the reader then
uses --arch or ttinspect's default) and the options recorded are those the launch passed. An autotuner's
timings under the interpreter are not recorded (tuning.py): they time the interpreter, not a GPU. A kernel
whose body fails in the interpreter (an op it cannot run) is kept and said in one line (interpreter_failures.py).

Triton 3.6 and later launch through `InterpretedFunction.run`; 3.3-3.5 set `run` on each instance in
`__init__` and launch `obj[grid](...)` through `__getitem__` (triton_hooks.py): instances made while the
capture is on keep a wrapper that, once the capture is off, only passes the launch on.
"""

from __future__ import annotations

import inspect
import sys
import weakref
from typing import Any, Callable

from ttinspect.capture import counting, interpreter_failures, launches, triton_hooks, tuning
from ttinspect.capture.compile_record import compile_record
from ttinspect.capture.hook_errors import guarded
from ttinspect.kernel.specialize import specialize

_MAX_KNOWN = 20_000
_params: dict[int, tuple[weakref.ref, list[Any]]] = {}
_known: dict[tuple[Any, ...], str] = {}  # (function, specialization, constexprs, options) -> compile id
_target: list[dict[str, Any] | None] = []  # [the GPU's target, or None], found once
_record_only: list[bool] = []  # non-empty while an untimed autotuner "times" a config: recorded, not run


def wrapper(attr: str, original: Callable[..., Any], current: Callable[[], Any]) -> Callable[..., Any]:
    """The replacement for InterpretedFunction.<attr> (see triton_hooks.interpreter_patch_points)."""
    if attr == "run":
        def run(self: Any, *args: Any, grid: Any, warmup: Any, **kwargs: Any) -> Any:
            if warmup:
                return original(self, *args, grid=grid, warmup=warmup, **kwargs)
            return launch(current(), self, args, kwargs, grid,
                          lambda g: original(self, *args, grid=g, warmup=warmup, **kwargs))
        return run
    if attr == "__init__":
        def init(self: Any, *args: Any, **kwargs: Any) -> None:
            original(self, *args, **kwargs)
            instance_run = vars(self).get("run")
            if callable(instance_run):
                self.run = _instance_run(self, instance_run, current)
        return init

    def getitem(self: Any, grid: Any) -> Any:
        return lambda *args, **kwargs: launch(current(), self, args, kwargs, grid,
                                              lambda g: original(self, g)(*args, **kwargs))
    return getitem


def _instance_run(obj: Any, instance_run: Callable[..., Any], current: Callable[[], Any]) -> Callable[..., Any]:
    """3.3-3.5: `run(*args, grid=..., warmup=..., **kwargs)` as the autotuner and heuristics call it."""
    def run(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("warmup"):
            return instance_run(*args, **kwargs)
        grid = kwargs.get("grid")
        return launch(current(), obj, args, {k: v for k, v in kwargs.items() if k not in ("grid", "warmup")}, grid,
                      lambda g: instance_run(*args, **{**kwargs, "grid": g}))
    return run


def launch(session: Any, obj: Any, args: tuple, kwargs: dict, grid: Any, call: Callable[[Any], Any]) -> Any:
    """One interpreted launch: its compile recorded, the launch run (`call(grid)`), then counted."""
    if session is None:
        return call(grid)
    compile_id = guarded(record_compile, session, obj, args, kwargs)
    spy = launches.GridSpy(grid) if callable(grid) else None
    try:
        result = None if _record_only else call(spy if spy is not None else grid)
    except Exception as error:
        # the kernel's body failed in the interpreter (an op it cannot run): said in one line if it ends the
        # program; the launch is counted, as a GPU would have made it. The program's own errors pass as they are.
        if compile_id is not None and guarded(interpreter_failures.failed, error, obj, sys._getframe(1)):
            _count(session, compile_id, obj, spy.shape if spy is not None else grid, args, kwargs, sys._getframe(1))
        raise
    if compile_id is not None:
        _count(session, compile_id, obj, spy.shape if spy is not None else grid, args, kwargs, sys._getframe(1))
    return result


def _count(session: Any, compile_id: str, obj: Any, grid: Any, args: tuple, kwargs: dict, frame: Any) -> None:
    params = params_of(obj)
    names = tuple(p.name for p in params)
    constexprs = frozenset(p.name for p in params if p.is_constexpr)
    guarded(counting.launched, session, (compile_id, names, constexprs), obj, grid, args, kwargs, frame)


def params_of(obj: Any) -> list[Any]:
    """The function's KernelParams: a JITFunction's own, an InterpretedFunction's as the JIT would make them."""
    own = getattr(obj, "params", None)
    if isinstance(own, list) and triton_hooks.is_jit_function(obj):
        return own
    entry = _params.get(id(obj))
    if entry is not None and entry[0]() is obj:
        return entry[1]
    params = triton_hooks.interpreted_params(obj)
    try:
        _params[id(obj)] = (weakref.ref(obj), params)
    except TypeError:  # not weakly referable: made again next time
        pass
    return params


def record_compile(session: Any, obj: Any, args: tuple, kwargs: dict,
                   target: dict[str, Any] | None = None) -> str | None:
    """The compile record a GPU launch of these arguments would make; its id (None: the launch is one the
    interpreter will refuse, e.g. a parameter without a value). `target`: the GPU's (`capture --as`), else
    the one torch sees."""
    params = params_of(obj)
    names = [p.name for p in params]
    try:
        bound = inspect.signature(obj.fn).bind(*args, **{k: v for k, v in kwargs.items() if k in names})
    except TypeError:  # the interpreter raises its own error for this launch
        return None
    bound.apply_defaults()
    values = bound.arguments
    constexpr_values = {p.name: values[p.name] for p in params if p.is_constexpr}
    runtime = {p.name: values[p.name] for p in params if not p.is_constexpr}
    annotations = {p.name: p.annotation_type for p in params
                   if not p.is_constexpr and isinstance(getattr(p, "annotation_type", None), str) and p.annotation_type}
    spec = specialize(names, runtime, constexpr_values,
                      do_not_specialize=frozenset(p.name for p in params if p.do_not_specialize),
                      do_not_specialize_on_alignment=frozenset(p.name for p in params
                                                               if p.do_not_specialize_on_alignment),
                      bool_type=triton_hooks.bool_type(), annotations=annotations,
                      const_pointers=frozenset(p.name for p in params if getattr(p, "is_const", False)))
    if target is None:
        target = gpu_target(session)
    defaults = triton_hooks.option_defaults(target) or {}
    # a launch keyword that is an option is the compile's option even where a parameter shares its name
    # (`num_stages: tl.constexpr` launched with num_stages=2): Triton's JIT parses every keyword as options too
    given = {k: v for k, v in kwargs.items() if k not in names or k in defaults}
    options = {**{k: v for k, v in defaults.items() if k in triton_hooks.ALWAYS_RECORDED}, **given}
    autotuned = tuning.autotuned()
    known = (id(obj), tuple(spec.signature.items()), repr(spec.constexprs), repr(sorted(options.items())),
             repr(spec.attrs), repr(autotuned))
    if known in _known:
        return _known[known]
    constants = {(names.index(name),): value for name, value in spec.constexprs.items()}
    record = compile_record(obj.fn, session, params=params, signature=spec.signature, constants=constants,
                            attrs=spec.attrs, options=options, target=target, cache_key=None, cache_dir=None,
                            inductor=False, autotuned=autotuned)
    compile_id = session.add_compile(record)
    if compile_id is not None and len(_known) < _MAX_KNOWN:
        _known[known] = compile_id
    return compile_id


def untimed_bench(current: Callable[[], Any]) -> Callable[..., Any]:
    """Autotuner._bench where no GPU runs the kernels (Triton's interpreter, `capture --as`): Triton's would
    ask the GPU driver for a timer (there is none: "0 active drivers"). Each config's launch goes through the
    heuristics the autotuner wraps and is recorded as the compile a GPU would make, listed among the tuning's
    compiles, and not run (a kernel that updates in place must not run once per config; under `--as` no
    launch runs anyway); its time is unknown. A config whose launch raises what Triton's own benchmarker
    catches (OutOfResources — a grid that refuses a config, as flashrnn's does —, a compile-time assertion,
    ptxas) is timed inf, as Triton times it; the others -inf, so that the autotuner keeps the first config that
    can run (the capture records every time as null: none was measured)."""
    def bench(autotuner: Any, args: tuple, config: Any, meta: dict) -> list[float]:
        if current() is not None:  # through the heuristics the autotuner wraps, as its timed launch goes
            _record_only.append(True)
            try:
                autotuner.fn.run(*args, **dict(meta, **config.all_kwargs()))
            except _benchmark_skips():  # the config is skipped, as Triton's _bench skips it
                return [float("inf")] * 3
            finally:
                _record_only.pop()
        return [float("-inf")] * 3
    return bench


def _benchmark_skips() -> tuple[type[BaseException], ...]:
    """What Triton's Autotuner._bench catches and times inf (the names each release has)."""
    import triton.runtime.errors as runtime_errors  # triton is loaded: an autotuner is benchmarking
    import triton.compiler.errors as compiler_errors  # the same

    found = [getattr(module, name, None) for module in (runtime_errors, compiler_errors)
             for name in ("OutOfResources", "CompileTimeAssertionFailure", "PTXASError")]
    return tuple({kind for kind in found if isinstance(kind, type)})


def gpu_target(session: Any) -> dict[str, Any] | None:
    """The GPU torch sees ({"backend", "arch", "warp_size"}; ROCm's torch answers through torch.cuda too),
    named in the header once; None without one."""
    if not _target:
        target = None
        torch = sys.modules.get("torch")
        try:
            if torch is not None and torch.cuda.is_available() and getattr(torch.version, "hip", None):
                arch = str(torch.cuda.get_device_properties(0).gcnArchName).split(":")[0]
                warp = int(getattr(torch.cuda.get_device_properties(0), "warp_size", 64) or 64)
                target = {"backend": "hip", "arch": arch, "warp_size": warp}
                session.set_device({"name": torch.cuda.get_device_name(), **target})
            elif torch is not None and torch.cuda.is_available():
                major, minor = torch.cuda.get_device_capability()
                target = {"backend": "cuda", "arch": major * 10 + minor, "warp_size": 32}
                session.set_device({"name": torch.cuda.get_device_name(), **target})
        except Exception:  # a torch that cannot ask its device: no target
            target = None
        _target.append(target)
    return _target[0]


def reset() -> None:
    interpreter_failures.reset()
    _params.clear()
    _known.clear()
    _target.clear()
