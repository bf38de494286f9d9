"""Where the points of a sweep are compiled: a local process pool, or Ray tasks. Both run the same
top-level function (`task.compile_point`) and yield (index, row) as points finish."""

from __future__ import annotations

import contextlib
import os
import re
import sys
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Sequence

from ttinspect.errors import EXIT_FAILED, ToolError, UsageError
from ttinspect.sweep.stopping import (end_process_trees, handlers_kept, remove_scratch, scratch_folder,
                                      signal_remembered,
                       signals_held, start_helpers, start_worker)
from ttinspect.engine.builds import NotCached, cached_only
from ttinspect.refs.resolver import resolve_one
from ttinspect.refs.kinds import SOURCE_KINDS, kind_of
from ttinspect.caches import store as cache

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

Job = tuple[int, str, Mapping[str, Any], "str | None", Mapping[str, Any]]  # index, ref, overrides, arch, options


@contextlib.contextmanager
def main_kept_out() -> Iterator[None]:
    """While worker processes start, the program's own `__main__` is not theirs to import: spawn and forkserver
    run it again in each worker (multiprocessing's "safe importing of main module"), so a user's script calling
    `rank()` or `sweep` at its top level, as docs/predict.md shows, would start it anew in every worker, and its
    call would start processes while they bootstrap. The workers run ttinspect's own functions, named by module:
    they need nothing of `__main__`."""
    main = sys.modules.get("__main__")
    saved: dict[str, Any] = {name: main.__dict__[name] for name in ("__file__", "__spec__")
                             if main is not None and name in main.__dict__}
    try:
        if main is not None:
            main.__dict__.pop("__file__", None)
            if "__spec__" in saved:
                main.__spec__ = None
        yield
    finally:
        if main is not None:
            main.__dict__.update(saved)


def check_executor(executor: str, address: str | None) -> None:
    """`--executor` and `--ray-address` as a command takes them, checked before anything compiles or is read
    (a warm run never calls ray.init, so a bad address would otherwise pass unseen): Ray installed and the
    address well-formed for `ray`, no address for `local`."""
    if executor == "ray":
        require_ray()
        ray_address(address)
    elif address is not None:
        raise UsageError("--ray-address goes with --executor ray")


def require_ray() -> None:
    """Ray importable here (without importing it: a warm run never needs it), or one line saying how."""
    import importlib.util

    try:
        if importlib.util.find_spec("ray") is None:
            raise ImportError
    except (ImportError, ValueError):
        raise UsageError(RAY_MISSING) from None


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class LocalPool:
    """`concurrent.futures.ProcessPoolExecutor` with forkserver workers (spawn where there is none):
    Triton is not fork-safe once imported, and these workers never inherit an imported one."""

    name = "local"

    def __init__(self, jobs: int):
        self.jobs = max(1, jobs)
        self._executor: ProcessPoolExecutor | None = None  # while `run` runs
        self._scratch: str | None = None  # the workers' TMPDIR, removed with them

    def run(self, jobs: Sequence[Job], driver: Mapping[str, str] | None = None,
            task: Callable[..., dict] | None = None) -> Iterator[tuple[int, dict]]:
        """`task(ref, overrides, arch, options, driver)` per job, a top-level function (default: a sweep's
        point; `ttinspect snapshot` passes its entry)."""
        import multiprocessing
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        from ttinspect.sweep.task import compile_point  # the compile path: not for check_executor's callers

        work = task or compile_point
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
        if context.get_start_method() == "forkserver":
            context.set_forkserver_preload(["ttinspect.sweep.task"])
        with main_kept_out():  # the forkserver and the workers start without the program's __main__
            start_helpers(context)
            with signals_held():  # the pool whole and known to stop(), or not at all
                self._scratch = scratch_folder()
                executor = self._executor = ProcessPoolExecutor(max_workers=min(self.jobs, len(jobs)) or 1,
                                                                mp_context=context, initializer=start_worker,
                                                                initargs=(self._scratch,))
                futures = {executor.submit(work, ref, overrides, arch, options, driver): index
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
        """Cancel what has not started and SIGKILL the workers with their children (a compile's ptxas): they
        ignore SIGINT/SIGTERM/SIGHUP, so a signal to the whole group leaves the ending to us. A second signal
        meanwhile waits until every worker is gone."""
        executor, self._executor = self._executor, None
        scratch, self._scratch = self._scratch, None
        if executor is None:
            return
        with signals_held():
            _end_pool(executor)
            remove_scratch(scratch)


def _end_pool(executor) -> None:
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    # by pid, not by is_alive(): with its forkserver gone, a live worker reads as exited
    end_process_trees(process.pid for process in processes if process.pid)
    for process in processes:
        process.join(timeout=5)


def _result(future) -> dict:
    try:
        return future.result()
    except Exception as error:  # a worker that died (killed, out of memory): the point's row says so
        return {"error": f"the worker failed: {type(error).__name__}: {error}", "error_kind": type(error).__name__,
                "exit_code": EXIT_FAILED}


RAY_MISSING = "--executor ray needs Ray: pip install 'ttinspect[ray]'  (or: pip install 'ray>=2.9')"
RAY_FORMS = ("ray://HOST:PORT (a Ray Client server, e.g. ray://head:10001), HOST:PORT (the head's GCS, e.g. "
             "head:6379), auto (the Ray running here) or local (a new local Ray)")
# What ray.init takes besides auto/local: HOST:PORT ([v6]:PORT), behind ray:// for the Ray Client
_HOST_PORT = re.compile(r"^(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?):(?P<port>\d{1,5})$")
PROBE_SECONDS = 10.0  # ray.init waits minutes on an address where nothing answers; a TCP connect says so first


def ray_address(given: str | None) -> str | None:
    """The cluster `--executor ray` joins: --ray-address, else $RAY_ADDRESS, else None (a local Ray); a
    malformed one is refused here, before anything is compiled or read (ray.init would say `internal error`)."""
    if given is not None:
        check_ray_address(given, "--ray-address")
        return given
    env = os.environ.get("RAY_ADDRESS") or None
    if env is not None:
        check_ray_address(env, "RAY_ADDRESS")
    return env


def check_ray_address(address: str, source: str = "--ray-address") -> tuple[str, int] | None:
    """The (host, port) to reach, or None for auto/local; UsageError for any other form."""
    if address in ("auto", "local"):
        return None
    inner = address[len("ray://"):] if address.startswith("ray://") else address
    match = _HOST_PORT.match(inner)
    if match is None or not 1 <= int(match["port"]) <= 65535:
        raise UsageError(f"{source} {address!r} is not a Ray address; give {RAY_FORMS}")
    return match["host"].strip("[]"), int(match["port"])


def _probe(address: str, host: str, port: int) -> None:
    import socket

    try:
        with socket.create_connection((host, port), timeout=PROBE_SECONDS):
            pass
    except socket.timeout:
        raise UsageError(f"cannot reach the Ray cluster at {address}: no answer in {PROBE_SECONDS:g} s") from None
    except OSError as error:
        raise UsageError(f"cannot reach the Ray cluster at {address}: {error.strerror or error}") from None


class RayExecutor:
    """The same task as Ray tasks. `address`: None starts a local Ray with `jobs` CPUs (unless
    RAY_ADDRESS names a cluster); `auto`, `ray://host:10001` or `host:6379` joins an existing one."""

    name = "ray"

    def __init__(self, jobs: int, address: str | None = None):
        self.jobs = max(1, jobs)
        self.address = ray_address(address)
        self._refs: list = []
        self._started = False

    def run(self, jobs: Sequence[Job], driver: Mapping[str, str] | None = None,
            task: Callable[..., dict] | None = None) -> Iterator[tuple[int, dict]]:
        try:
            import ray
        except ImportError:
            raise UsageError(RAY_MISSING) from None
        from ttinspect.sweep.task import compile_point  # the compile path: not for check_executor's callers

        if not ray.is_initialized():
            self._init(ray)
        remote = ray.remote(num_cpus=1, max_retries=1)(task or compile_point)
        with signals_held():  # every task known to stop(), or none started
            refs = {remote.remote(ref, dict(overrides), arch, dict(options), dict(driver or {})): index
                    for index, ref, overrides, arch, options in jobs}
        self._refs = list(refs)
        pending = list(refs)
        try:
            with signal_remembered():
                while pending:
                    done, pending = ray.wait(pending, num_returns=1)
                    for ref in done:
                        try:
                            row = ray.get(ref)
                        except Exception as error:  # a task that died: its row says so
                            row = {"error": f"the Ray task failed: {type(error).__name__}: "
                                            f"{str(error).splitlines()[0]}",
                                   "error_kind": type(error).__name__, "exit_code": EXIT_FAILED}
                        yield refs[ref], row
        finally:
            self.stop(pending)

    def _init(self, ray) -> None:
        # The compile environment travels with the tasks: TRITON_* settings change the code (and the
        # cache key), so a worker on another machine must compile with the driver's.
        runtime_env = {"env_vars": cache.compile_env()} if cache.compile_env() else None
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                  "configure_logging": False, "runtime_env": runtime_env}
        if self.address:
            kwargs["address"] = self.address
            where = check_ray_address(self.address)
            if where is not None:
                _probe(self.address, *where)
        else:
            kwargs["num_cpus"] = self.jobs
        self._started = True  # from here on stop() shuts it down, even if interrupted half-way
        try:
            with handlers_kept():
                ray.init(**kwargs)
        except Exception as error:  # ray raises ConnectionError, ValueError (ray:// without ray[client]), ...
            self.stop()
            reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
            if self.address:
                raise UsageError(f"cannot use the Ray cluster at {self.address}: {reason}") from None
            raise ToolError(f"cannot start a local Ray: {reason}") from None

    def stop(self, pending=()) -> None:
        """Cancel the tasks not finished (best effort: force-kills their workers) and shut down the Ray we
        started or joined; a second signal meanwhile waits until that is done."""
        if not pending and not self._started:
            return
        try:
            import ray
        except ImportError:
            return
        with signals_held():
            for ref in pending:
                try:
                    ray.cancel(ref, force=True)
                except Exception:  # already finished, or Ray is going down
                    pass
            if self._started:
                self._started = False
                try:
                    ray.shutdown()
                except Exception:  # half started: nothing more to end
                    pass


class compile_aside:
    """One reference compiled into the cache by one spawned worker while this process does something else
    (`diff`'s two cold sides). Never raises for the worker's failure: the caller resolves the reference
    again afterwards, warm or with the real error."""

    def __init__(self, ref: str, options):
        self.ref, self.options = ref, options

    def __enter__(self):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        from ttinspect.sweep.task import warm_reference  # the compile path: not for check_executor's callers

        context = multiprocessing.get_context("spawn")
        options = {"settings": dict(self.options.settings), "args": dict(self.options.args),
                   "signature": self.options.signature, "config": self.options.config, "arch": self.options.arch}
        with main_kept_out():  # the worker starts without the program's __main__
            start_helpers(context)
            with signals_held():
                self._scratch = scratch_folder()
                self._executor = ProcessPoolExecutor(max_workers=1, mp_context=context, initializer=start_worker,
                                                     initargs=(self._scratch,))
                self._future = self._executor.submit(warm_reference, self.ref, options)
        return self

    def wait(self) -> None:
        try:
            self._future.result()
        except Exception:  # a dead worker: the caller compiles it itself
            pass

    def __exit__(self, *exc) -> None:
        with signals_held():
            if exc[0] is None:
                self._executor.shutdown(wait=True)
            else:  # the worker ignores the stop signals: end it (and its ptxas) here
                _end_pool(self._executor)
            remove_scratch(self._scratch)


def resolve_pair(a: str, b: str, options) -> list:
    """Both sides' builds. When both are cold, A compiles in a worker process while B compiles here (the
    sweep's task, the same content-addressed cache), then A is read back warm: about one compile's time
    instead of two."""
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
    elif len(cold) == 2 and a != b and all(kind_of(ref) in ("variant", *SOURCE_KINDS) for ref in cold):
        from ttinspect.report.collect import report_from_build  # the facts' parsers load only when a report is made

        with compile_aside(a, options) as aside:
            warm[b] = resolve_one(b, options)
            report_from_build(warm[b])  # B's facts, kept beside its entry, while A's are derived there
            aside.wait()
        warm[a] = resolve_one(a, options)  # warm now; on a failure in the worker, compiles and says why
    return [warm[ref] if ref in warm else resolve_one(ref, options) for ref in (a, b)]
