"""Where the points of a sweep are compiled: a local process pool, or Ray tasks. Both run the same
top-level function (`task.compile_point`) and yield (index, row) as points finish."""

from __future__ import annotations

import os
import signal
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence

from ..errors import UsageError

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

Job = tuple[int, str, Mapping[str, Any], "str | None", Mapping[str, Any]]  # index, ref, overrides, arch, options


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _ignore_sigint() -> None:
    """Workers leave Ctrl-C to the driver, which stops them (no traceback from each worker)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class LocalPool:
    """`concurrent.futures.ProcessPoolExecutor` with forkserver workers (spawn where there is none):
    Triton is not fork-safe once imported, and these workers never inherit an imported one."""

    name = "local"

    def __init__(self, jobs: int):
        self.jobs = max(1, jobs)
        self._executor: ProcessPoolExecutor | None = None  # while `run` runs

    def run(self, jobs: Sequence[Job], driver: Mapping[str, str] | None = None) -> Iterator[tuple[int, dict]]:
        import multiprocessing
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        from .task import compile_point

        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
        if context.get_start_method() == "forkserver":
            context.set_forkserver_preload(["ttinspect.sweep.task"])
        executor = self._executor = ProcessPoolExecutor(max_workers=min(self.jobs, len(jobs)) or 1,
                                                        mp_context=context, initializer=_ignore_sigint)
        futures = {executor.submit(compile_point, ref, overrides, arch, options, driver): index
                   for index, ref, overrides, arch, options in jobs}
        pending = set(futures)
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield futures[future], _result(future)
        finally:
            self.stop()

    def stop(self) -> None:
        executor, self._executor = self._executor, None
        if executor is None:
            return
        processes = list((getattr(executor, "_processes", None) or {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:  # our own workers, by their handles
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join(timeout=5)


def _result(future) -> dict:
    try:
        return future.result()
    except Exception as error:  # a worker that died (killed, out of memory): the point's row says so
        return {"error": f"the worker failed: {type(error).__name__}: {error}", "error_kind": type(error).__name__}


RAY_MISSING = "--executor ray needs Ray: pip install 'ttinspect[ray]'  (or: pip install 'ray>=2.9')"


class RayExecutor:
    """The same task as Ray tasks. `address`: None starts a local Ray with `jobs` CPUs (unless
    RAY_ADDRESS names a cluster); `auto`, `ray://host:10001` or `host:6379` joins an existing one."""

    name = "ray"

    def __init__(self, jobs: int, address: str | None = None):
        self.jobs = max(1, jobs)
        self.address = address or os.environ.get("RAY_ADDRESS") or None
        self._refs: list = []
        self._started = False

    def run(self, jobs: Sequence[Job], driver: Mapping[str, str] | None = None) -> Iterator[tuple[int, dict]]:
        try:
            import ray
        except ImportError:
            raise UsageError(RAY_MISSING) from None
        from .. import cache
        from .task import compile_point

        if not ray.is_initialized():
            # The compile environment travels with the tasks: TRITON_* settings change the code (and the
            # cache key), so a worker on another machine must compile with the driver's.
            runtime_env = {"env_vars": cache.compile_env()} if cache.compile_env() else None
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                      "configure_logging": False, "runtime_env": runtime_env}
            if self.address:
                kwargs["address"] = self.address
            else:
                kwargs["num_cpus"] = self.jobs
            try:
                ray.init(**kwargs)
            except ConnectionError as error:
                raise UsageError(f"cannot reach the Ray cluster at {self.address}: {error}") from None
            self._started = True
        task = ray.remote(num_cpus=1, max_retries=1)(compile_point)
        refs = {task.remote(ref, dict(overrides), arch, dict(options), dict(driver or {})): index
                for index, ref, overrides, arch, options in jobs}
        self._refs = list(refs)
        pending = list(refs)
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    try:
                        row = ray.get(ref)
                    except Exception as error:  # a task that died: its row says so
                        row = {"error": f"the Ray task failed: {type(error).__name__}: {str(error).splitlines()[0]}",
                               "error_kind": type(error).__name__}
                    yield refs[ref], row
        finally:
            self.stop(pending)

    def stop(self, pending=()) -> None:
        try:
            import ray
        except ImportError:
            return
        for ref in pending:
            try:
                ray.cancel(ref, force=True)
            except Exception:  # already finished, or Ray is going down
                pass
        if self._started:
            ray.shutdown()
            self._started = False


class compile_aside:
    """One reference compiled into the cache by one spawned worker while this process does something else
    (`diff`'s two cold sides). Never raises for the worker's failure: the caller resolves the reference
    again afterwards, warm or with the real error."""

    def __init__(self, ref: str, options):
        self.ref, self.options = ref, options

    def __enter__(self):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        from .task import warm_reference

        self._executor = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_ignore_sigint)
        options = {"settings": dict(self.options.settings), "args": dict(self.options.args),
                   "signature": self.options.signature, "config": self.options.config, "arch": self.options.arch}
        self._future = self._executor.submit(warm_reference, self.ref, options)
        return self

    def wait(self) -> None:
        try:
            self._future.result()
        except Exception:  # a dead worker: the caller compiles it itself
            pass

    def __exit__(self, *exc) -> None:
        processes = list((getattr(self._executor, "_processes", None) or {}).values())
        self._executor.shutdown(wait=exc[0] is None, cancel_futures=True)
        if exc[0] is not None:
            for process in processes:
                if process.is_alive():
                    process.terminate()


def resolve_pair(a: str, b: str, options) -> list:
    """Both sides' builds. When both are cold, A compiles in a worker process while B compiles here (the
    sweep's task, the same content-addressed cache), then A is read back warm: about one compile's time
    instead of two."""
    from ..engine import NotCached, cached_only
    from ..refs import kind_of, resolve_one

    warm = {}
    cold = []
    for ref in (a, b):
        try:
            with cached_only():
                warm[ref] = resolve_one(ref, options)
        except NotCached:
            cold.append(ref)
    remote = [ref for ref in cold if "@triton=" in ref]
    if len(cold) == 2 and a != b and remote:
        # a side under another Triton compiles in its toolchain's worker process: wait for it in a thread
        # while the other side compiles (here, or in its own worker)
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=len(remote)) as pool:
            futures = {ref: pool.submit(resolve_one, ref, options) for ref in remote}
            for ref in cold:
                if ref not in futures:
                    warm[ref] = resolve_one(ref, options)
            for ref, future in futures.items():
                warm[ref] = future.result()
    elif len(cold) == 2 and a != b and all(kind_of(ref) in ("variant", "file") for ref in cold):
        from ..report import report_from_build

        with compile_aside(a, options) as aside:
            warm[b] = resolve_one(b, options)
            report_from_build(warm[b])  # B's facts, kept beside its entry, while A's are derived there
            aside.wait()
        warm[a] = resolve_one(a, options)  # warm now; on a failure in the worker, compiles and says why
    return [warm[ref] if ref in warm else resolve_one(ref, options) for ref in (a, b)]
