"""Triton's hooks inside a captured program: every compile and launch, the autotuner's and the heuristics'
decisions, reported to the session (session.py). `install(session)` / `uninstall()`; recording.py calls them.

What is wrapped (the places, release by release, are in triton_hooks.py):
- Triton's compile function, under each name it is bound to (`triton.compiler.compiler.compile`,
  `triton.compiler.compile`, `triton.compile`): each ASTSource compile becomes a compile record
  (compile_record.py). The JIT binds the function on first launch, so patching the module attributes before
  the program runs catches every JIT compile; functions already bound (a capture begun mid-program by
  `ttinspect.capture()`) are re-bound at install. torch Inductor calls `triton.compile` too: its kernels
  are recorded with "inductor": true and their generated file.
- A launch: `kernel[grid](...)` (KernelInterface.__getitem__) of a plain @triton.jit function goes straight
  to Triton's JITFunction.run and is counted (counting.py: compile id by the returned CompiledKernel, grid,
  arguments, site); every other launch (an autotuner's, heuristics', a library wrapper's, a direct `.run`)
  is counted by a wrapper of `JITFunction.run`. Inductor launches its kernels itself (inductor.py).
- Autotuner.run / _bench / prune_configs, Heuristics.run (tuning.py); the interpreter's launches
  (interpreter.py); where no GPU runs the kernels, triton.testing.do_bench (untimed_do_bench.py).
Nothing is imported from Triton or torch here: what is not imported yet is patched the moment its import
finishes (an import hook), so a captured process that never uses Triton pays nothing. A failure inside a
hook is one warning line (at most a few) and that record is skipped; the program never sees it.
"""

from __future__ import annotations

import atexit
import os
import sys
import types
import weakref
from typing import Any, Callable

from ttinspect.capture import (as_target, counting, inductor, interpreter, launches, triton_hooks, tuning,
                               untimed_do_bench)
from ttinspect.capture.after_import import AfterImport
from ttinspect.capture.compile_record import compile_record
from ttinspect.capture.hook_errors import guarded, reset, warn


_session: Any = None
_undo: list[Callable[[], None]] = []
# CompiledKernel -> (its compile id, its function's parameter names, its constexprs); () when unrecordable
_ids: dict[Any, tuple[str, tuple[str, ...], frozenset[str]] | tuple[()]] = {}
_bound: dict[int, tuple[weakref.ref, Any]] = {}  # JITFunctions whose `compile` we re-bound: id -> (ref, original)
_wrappers: dict[int, Callable[..., Any]] = {}  # id(original compile) -> its wrapper
_jit_run: list[Callable[..., Any]] = []  # Triton's own JITFunction.run, while it is wrapped
_jit_run_wrappers: dict[int, Any] = {}  # id(JITFunction) -> the run wrapper installed on it
_device_named = False
_forks_hooked: list[bool] = []


def current() -> Any:
    """The session being recorded into, or None (uninstalled, or the session stopped)."""
    session = _session
    return None if session is None or getattr(session, "stopped", False) else session


def install(session: Any) -> None:
    """Report to `session` from now on: patch what is imported, and the rest when it is imported."""
    global _session
    if _session is not None:
        uninstall()
    _session = session
    counting.start(session)
    atexit.unregister(_flush_at_exit)  # registered after the session's own exit handler: runs before it
    atexit.register(_flush_at_exit)
    if hasattr(os, "register_at_fork") and not _forks_hooked:
        os.register_at_fork(after_in_child=counting.reset)  # a child counts its own launches only
        _forks_hooked.append(True)
    waiting: dict[str, Callable[[types.ModuleType], None]] = {}
    for name, patch in (("triton", _hook_triton), (triton_hooks.INTERPRETER_MODULE, _hook_interpreter),
                        (inductor.MODULE, _hook_inductor)):
        module = sys.modules.get(name)
        if module is None:
            waiting[name] = patch
        elif patch is _hook_triton:  # imported before the capture: functions may have launched already
            _hook_triton(module)
            _rebind_started_functions()
        else:
            patch(module)
    finder = AfterImport(waiting, lambda: _session is not None)
    sys.meta_path.insert(0, finder)
    _undo.append(lambda: sys.meta_path.remove(finder) if finder in sys.meta_path else None)


def flush() -> None:
    """Report every pending count to the session now (the process is about to end: os._exit)."""
    _flush_at_exit()


def _flush_at_exit() -> None:
    session = current()
    if session is not None:
        guarded(counting.flush, session)


def uninstall() -> None:
    """Everything back as it was: Triton's and torch's attributes, functions' bound compile, the import hook."""
    global _session, _device_named
    if current() is not None:
        guarded(counting.flush, _session)
    _session = None
    counting.reset()
    while _undo:
        _undo.pop()()
    for ref, original in _bound.values():
        fn = ref()
        if fn is not None and vars(fn).get("compile") in _wrappers.values():
            fn.compile = original
    for table in (_bound, _ids, _wrappers, _jit_run_wrappers):
        table.clear()
    _jit_run.clear()
    inductor.reset()
    reset()
    interpreter.reset()
    tuning.reset()
    untimed_do_bench.reset()
    _device_named = False


# --- patching -------------------------------------------------------------------------------------------------

def _patch(owner: Any, attr: str, make: Callable[[Any], Any]) -> None:
    """owner.attr = make(the current value), undone by uninstall()."""
    if owner is None or not hasattr(owner, attr):
        return
    own = vars(owner)
    had = attr in own
    old = own[attr] if had else getattr(owner, attr)
    setattr(owner, attr, make(old))

    def undo() -> None:
        if had:
            setattr(owner, attr, old)
        else:
            delattr(owner, attr)
    _undo.append(undo)


def _hook_triton(module: types.ModuleType) -> None:
    for module_name, owner_name, attr in triton_hooks.COMPILE_BINDINGS:
        _patch(triton_hooks.owner(module_name, owner_name), attr, _compile_wrapper)
    jit_class = triton_hooks.owner(*triton_hooks.JIT_RUN[:2])
    _patch(jit_class, triton_hooks.JIT_RUN[2], _jit_run_wrapper)
    if jit_class is not None:
        _jit_run_wrappers[id(jit_class)] = vars(jit_class).get("run")
    _patch(triton_hooks.owner(*triton_hooks.GETITEM[:2]), triton_hooks.GETITEM[2], _getitem_wrapper)
    autotuner, heuristics = (triton_hooks.owner(*triton_hooks.AUTOTUNER_RUN[:2]),
                             triton_hooks.owner(*triton_hooks.HEURISTICS_RUN[:2]))
    _patch(autotuner, "run", lambda original: tuning.autotuner_run(original, current))
    # nothing is timed where no GPU runs the kernels: `capture --as`, and Triton's interpreter
    untimed = as_target.recording_only() or triton_hooks.interpreter_on()
    instead = interpreter.untimed_bench(current) if untimed else None
    _patch(autotuner, triton_hooks.AUTOTUNER_BENCH[2], lambda original: tuning.bench(original, instead))
    if untimed:  # a library's own tuner times its configs with do_bench: run once, not timed
        why = f"under --as {os.environ.get(as_target.ENV_AS)}" if as_target.target() else "under Triton's interpreter"
        for module_name, owner_name, attr in triton_hooks.BENCHMARKERS:
            _patch(triton_hooks.owner(module_name, owner_name), attr,
                   lambda original: untimed_do_bench.untimed(original, current, why))
    _patch(autotuner, triton_hooks.AUTOTUNER_PRUNE[2], tuning.prune_configs)
    _patch(heuristics, "run", lambda original: tuning.heuristics_run(original, current))


def _hook_interpreter(module: types.ModuleType) -> None:
    for owner, attr in triton_hooks.interpreter_patch_points():
        def make(old: Callable[..., Any], attr: str = attr) -> Callable[..., Any]:
            return interpreter.wrapper(attr, old, current)
        _patch(owner, attr, make)


def _hook_inductor(module: types.ModuleType) -> None:
    _patch(triton_hooks.caching_autotuner(), "run", lambda original: inductor.run_wrapper(original, current))


def _rebind_started_functions() -> None:
    """Functions that launched before the capture began hold Triton's compile in `self.compile` (none can
    when Triton is imported under the capture: then this walk is not made)."""
    import gc  # only when a capture begins inside a running program (Triton already imported)

    jit = triton_hooks.owner(*triton_hooks.JIT_RUN[:2])
    if jit is None:
        return
    for obj in gc.get_objects():
        if issubclass(type(obj), jit):  # type(), not isinstance(): a lazy module's __class__ may warn or import
            original = vars(obj).get("compile")
            if original is not None and id(original) in _wrappers:
                _remember_bound(obj, original)
                obj.compile = _wrappers[id(original)]


def _remember_bound(fn: Any, original: Any) -> None:
    if id(fn) not in _bound:
        try:
            _bound[id(fn)] = (weakref.ref(fn), original)
        except TypeError:  # not weakly referable: left as it is
            pass




# --- compiles -------------------------------------------------------------------------------------------------

def _compile_wrapper(original: Callable[..., Any]) -> Callable[..., Any]:
    known = _wrappers.get(id(original))
    if known is not None:
        return known

    def compile(src: Any, *args: Any, **kwargs: Any) -> Any:
        kernel = original(src, *args, **kwargs)
        session = current()
        if session is not None and triton_hooks.is_ast_source(src):
            guarded(_record_compile, session, original, src, kernel, args, kwargs)
        return kernel

    compile.__wrapped__ = original  # type: ignore[attr-defined]
    _wrappers[id(original)] = compile
    return compile


def _record_compile(session: Any, original: Any, src: Any, kernel: Any, args: tuple, kwargs: dict) -> None:
    fn = triton_hooks.function_of(src)
    if vars(fn).get("compile") is _wrappers.get(id(original)):
        _remember_bound(fn, original)
    _record_kernel(session, src, kernel, kwargs.get("options", args[1] if len(args) > 1 else None),
                   inductor.compiling())


def _record_kernel(session: Any, src: Any, kernel: Any, given: Any, from_inductor: bool) -> str | None:
    """The compile record of `kernel` (compiled from `src`); its id."""
    fn = triton_hooks.function_of(src)
    target = triton_hooks.kernel_target(kernel)
    options = triton_hooks.kernel_options(kernel, given)
    if options.get("ptx_version") is None:  # the version its ptxas chose, so that another toolkit writes it
        options["ptx_version"] = triton_hooks.ptx_version(kernel)
    record = compile_record(triton_hooks.python_function(fn), session, params=triton_hooks.kernel_params(fn),
                            signature=src.signature, constants=src.constants, attrs=src.attrs,
                            options=options, target=target,
                            cache_key=getattr(kernel, "hash", None),
                            cache_dir=triton_hooks.kernel_cache_dir(kernel), inductor=from_inductor,
                            autotuned=tuning.autotuned())
    compile_id = session.add_compile(record)
    if compile_id is None:
        return None
    params = triton_hooks.kernel_params(fn)
    _ids[kernel] = (compile_id, tuple(p.name for p in params), frozenset(p.name for p in params if p.is_constexpr))
    if from_inductor:
        inductor.compiled(getattr(kernel, "hash", None), compile_id, record["file"])
    _name_device(session, target)
    return compile_id


def _compiled_before(session: Any, kernel: Any) -> tuple:
    """A kernel compiled before the capture began (a `ttinspect.capture()` block in a warm program): its
    record made from the CompiledKernel at its first launch (() when it cannot be: not asked again)."""
    src = getattr(kernel, "src", None)
    if src is not None and triton_hooks.is_ast_source(src):
        guarded(_record_kernel, session, src, kernel, None, False)
    return _ids.setdefault(kernel, ())


def _name_device(session: Any, target: dict[str, Any] | None) -> None:
    """The header's device, once: the target of the first compile, and its name when torch knows it."""
    global _device_named
    if _device_named or not target:
        return
    _device_named = True
    name = None
    cuda = getattr(sys.modules.get("torch"), "cuda", None)
    try:
        if cuda is not None and cuda.is_available():
            name = cuda.get_device_name()
    except Exception:  # a torch without the device's runtime: the name stays unknown
        name = None
    session.set_device({"name": name, **target})


# --- launches -------------------------------------------------------------------------------------------------

def _counted(session: Any, kernel: Any, grid: Any, args: tuple, kwargs: dict, frame: Any) -> None:
    """After a launch returned `kernel`: count it (a kernel compiled before the capture began is recorded
    now). Never raises."""
    try:
        known = _ids.get(kernel)
        if known is None and kernel is not None:
            known = _compiled_before(session, kernel)
        if known:
            counting.launched(session, known, kernel, grid, args, kwargs, frame)
    except Exception as error:  # never into the user's program
        warn(error)


def _jit_run_wrapper(original: Callable[..., Any]) -> Callable[..., Any]:
    """JITFunction.run: the launches that do not come through `kernel[grid](...)` of a plain JIT function —
    an autotuner's, heuristics', a library's own wrapper's, a direct `.run(...)`."""
    _jit_run[:] = [original]
    recording_only = as_target.recording_only()

    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        # grid and warmup stay in kwargs (Triton passes both by keyword): one repacking less per launch
        session = _session
        if kwargs.get("warmup"):
            return original(self, *args, **kwargs)
        if recording_only:  # `capture --as`: recorded as the target's launch, never run
            return as_target.launch(session, self, args, kwargs, sys._getframe(1))
        if session is None:
            return original(self, *args, **kwargs)
        grid = kwargs.get("grid")
        if callable(grid):
            spy = kwargs["grid"] = launches.GridSpy(grid)
            kernel = original(self, *args, **kwargs)
            _counted(session, kernel, spy.shape, args, kwargs, sys._getframe(1))
        else:
            kernel = original(self, *args, **kwargs)
            _counted(session, kernel, grid, args, kwargs, sys._getframe(1))
        return kernel

    return run


def _getitem_wrapper(original: Callable[..., Any]) -> Callable[..., Any]:
    """KernelInterface.__getitem__, for `kernel[grid](...)`: for a plain @triton.jit function the launch
    goes straight to Triton's own JITFunction.run, as Triton's `__getitem__` does, and is counted here — the
    common launch pays no wrapper layer of its own, and a launch like the last one from the same instruction
    of the program (same compile, same grid) is one increment (counting.py). Any other kernel object
    launches as before (its launches reach the JIT through the `run` wrapper above)."""
    plain: dict[type, bool] = {}  # a kernel class -> it is JITFunction's, with our run wrapper
    recording_only = as_target.recording_only()
    by_instruction, report, getframe = counting.by_instruction, counting.report, sys._getframe

    def __getitem__(self: Any, grid: Any) -> Any:
        kind = type(self)
        is_plain = plain.get(kind)
        if is_plain is None:
            is_plain = plain[kind] = bool(_jit_run) and kind.run is _jit_run_wrappers.get(id(_jit_class()))
        if not is_plain:
            return original(self, grid)
        if recording_only:  # `capture --as`: recorded as the target's launch, never run
            return lambda *args, **kwargs: as_target.launch(_session, self, args, {**kwargs, "grid": grid},
                                                            getframe(1))
        run = _jit_run[0]

        def launch(*args: Any, **kwargs: Any) -> Any:
            session = _session
            if session is None:
                return run(self, *args, grid=grid, warmup=False, **kwargs)
            if callable(grid):
                spy = launches.GridSpy(grid)
                kernel = run(self, *args, grid=spy, warmup=False, **kwargs)
                _counted(session, kernel, spy.shape, args, kwargs, getframe(1))
                return kernel
            kernel = run(self, *args, grid=grid, warmup=False, **kwargs)
            try:
                frame = getframe(1)
                slot = by_instruction.get(frame.f_lasti)
                if slot is not None and slot.code is frame.f_code and slot.kernel is kernel and slot.grid == grid:
                    slot.pending += 1
                    if slot.pending >= slot.report_at:
                        report(session, slot, args, kwargs)
                else:
                    _counted(session, kernel, grid, args, kwargs, frame)
            except Exception as error:  # never into the user's program
                warn(error)
            return kernel

        return launch

    return __getitem__


def _jit_class() -> Any:
    return triton_hooks.owner(*triton_hooks.JIT_RUN[:2])
