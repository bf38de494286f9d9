"""(variant or @triton.jit function, overrides, target) -> Artifacts, through the on-disk cache.

The cache key is computed from files and settings alone — the kernel module's source (and its sibling
modules, which it may import), the resolved config and problem, the target, the installed Triton
version and the TRITON_* environment — so a warm call imports neither triton nor torch.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from ttinspect.caches import store as cache
from ttinspect.engine.artifacts import Artifacts
from ttinspect.errors import CompileError, TTInspectError
from ttinspect.targets.nvidia import DEFAULT_ARCH, Target
from ttinspect.targets.device_limits import changed_limits, limits_text, with_limits
from ttinspect.targets.lookup import parse_arch
from ttinspect.targets.releases import check_supported, triton_version
from ttinspect.kernel.variants import Resolved, Variant, config_value_text, module_source_path
from ttinspect.kernel.overrides import resolve
from ttinspect.kernel.specialize import as_descriptor, as_pointer
from ttinspect.files.source_files import digests, sibling_digests


@dataclass(frozen=True)
class Build:
    """What was compiled, for what, and where its artifacts are."""

    label: str  # e.g. "opt" or "opt:num_stages=3"
    kernel: str  # "module:function"
    target: Target
    config: Mapping[str, Any]
    artifacts: Artifacts
    source_file: str | None = None  # the kernel's Python file, for --source / --by-line
    note: str = ""  # how the config was chosen, e.g. "autotune config 2 of 4; ..."
    device: str | None = None  # the virtual device the kernel's code asked (its import, its heuristics)

    def record(self) -> dict[str, Any]:
        """What `from_record` needs to find this build again without compiling (the warm path of a
        reference that only triton can resolve: a user's file, an autotuned kernel)."""
        return {"label": self.label, "kernel": self.kernel, "target": self.target.name,
                "config": for_cache_key(self.config), "entry": str(self.artifacts.directory),
                "source_file": self.source_file, "note": self.note, "device": self.device,
                **({"limits": limits} if (limits := changed_limits(self.target)) else {})}

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> "Build | None":
        """None when the entry has gone (a cleared cache): the caller compiles again."""
        entry = Path(record["entry"])
        if not entry.is_dir() or not cache.whole(entry):  # the caller resolves again, which compiles
            return None
        target = with_limits(parse_arch(record["target"]), record.get("limits"))
        return cls(record["label"], record["kernel"], target, dict(record["config"]),
                   Artifacts(entry), record.get("source_file"), record.get("note", ""), record.get("device"))

    @property
    def metadata(self) -> dict[str, Any]:
        return self.artifacts.metadata

    def header(self) -> str:
        meta = self.metadata
        knobs = " ".join(f"{k}={config_value_text(v)}" for k, v in self.config.items())
        target = self.target.header()
        ptx_target = self.ptx_target()
        if ptx_target and ptx_target != self.target.name:  # Triton compiles 9.0+ as sm_90a, sm_100a, ...
            target = f"{target[:-1]}; PTX .target {ptx_target})"
        device = f" ({self.device})" if self.device else ""
        return (f"ttinspect: {self.label} [{self.kernel}] target={target}{device} "
                f"triton={meta.get('triton_version')} {knobs} shared={meta.get('shared')}B")

    def ptx_target(self) -> str | None:
        """The PTX's `.target` (e.g. sm_90a: the arch-specific variant Triton picks itself, which the
        architecture name alone does not say); None when the build has no PTX."""
        if not self.artifacts.has("ptx"):
            return None
        match = re.search(r"^\.target\s+([\w]+)", self.artifacts.text("ptx"), flags=re.M)
        return match.group(1) if match else None


def resolve_target(arch: str | Target | None) -> Target:
    """The target to compile for; one the installed Triton cannot compile for is refused in one line."""
    if isinstance(arch, Target):
        target = arch
    elif arch is None:
        target = parse_arch(DEFAULT_ARCH)
    elif arch.strip().lower() == "native":
        from ttinspect.compile.jit import native_target  # needs the driver, hence triton

        target = native_target()
    else:
        target = parse_arch(arch)
    check_supported(target.name)
    return target


def for_cache_key(mapping: Mapping[str, Any]) -> dict[str, Any]:
    """For cache keys: a torch tensor counts by what a launch specializes on (dtype, alignment) — its
    repr shows neither the alignment nor is it short."""
    def key(value: Any) -> Any:
        if isinstance(value, (int, float, str, bool, type(None))):
            return value
        if hasattr(value, "data_ptr") or hasattr(value, "block_shape"):
            return repr(as_descriptor(value) or as_pointer(value) or value)
        return repr(value)

    return {k: key(v) for k, v in mapping.items()}


def build(variant: Variant | str | Resolved, overrides: Mapping[str, Any] | None = None,
          arch: str | Target | None = None, *, check: bool = True) -> Build:
    """Compile a registered variant (by name, alias or object) with overrides for a target."""
    resolved = variant if isinstance(variant, Resolved) else resolve(variant, overrides)
    spec = resolved.variant
    path = module_source_path(spec.module)
    return _build(resolved.label(), spec.kernel, sibling_digests(Path(path)), spec.load_kernel, resolved.args(),
                  dict(resolved.config), resolve_target(arch),
                  {"variant": spec.name, "problem": for_cache_key(resolved.problem)}, path, check)


def build_jit(fn: Any, args: Mapping[str, Any], config: Mapping[str, Any] | None = None,
              arch: str | Target | None = None) -> Build:
    """Compile any @triton.jit function. `args` are the runtime arguments by name as a launch would
    pass them (torch tensors or `Pointer("fp16")`, ints, floats); `config` the constexprs and compile
    options (num_warps, num_stages, ...)."""
    from ttinspect.compile.jit import jit_params  # imports triton

    jit_params(fn)  # refuses anything that is not a JITFunction, with a clear message
    return build_function(fn, fn.__name__, args, config, resolve_target(arch))


def build_function(fn: Any, label: str, args: Mapping[str, Any], config: Mapping[str, Any] | None,
                   target: Target, *, check: bool = True) -> Build:
    """A loaded @triton.jit function, keyed by its file's content (and its siblings'). `check=False`
    keeps a build whose shared memory would not launch (a table of configs shows it as not fitting)."""
    path = fn.fn.__code__.co_filename
    name = f"{Path(path).name}:{fn.__name__}" if fn.fn.__module__.startswith(USER_MODULE_PREFIX) \
        else f"{fn.fn.__module__}:{fn.__name__}"

    digest = digests(Path(path))  # the file and the local modules it imports: regular files only
    # where it lives too: the PTX's debug info names the file by its path, so a copy elsewhere is another kernel
    digest["@path"] = os.path.realpath(path)
    try:  # Triton's own key covers the @jit functions it calls wherever they live (a helper in a subfolder)
        digest["@jit"] = str(fn.cache_key)
    except Exception:  # an exotic global Triton cannot hash: the file digests alone, as before
        pass
    return _build(label, name, digest, lambda: fn, dict(args), dict(config or {}), target, {}, path, check)


# Modules ttinspect loads from a user's file get this prefix (refs/userfile.py); their names are
# internal, so a kernel is named by its file instead.
USER_MODULE_PREFIX = "ttinspect_user_"


def _build(label: str, kernel: str, digest: dict[str, str], load: Callable[[], Any], args: dict[str, Any],
           config: dict[str, Any], target: Target, extra: dict[str, Any], source_file: str | None,
           check: bool = True) -> Build:
    key = cache.content_key({
        "kernel": kernel, "sources": digest, "config": for_cache_key(config), "args": for_cache_key(args),
        "target": target.name, "triton": triton_version(), "env": cache.compile_env(),
    })
    def compile_entry() -> Path:
        # cold: imports triton
        from ttinspect.compile.jit import NO_PTXAS_LOG, compile_jit, specialize_for, split_options

        fn = load()
        # Every config key that names a kernel parameter is a constexpr — an option too: seed 001's
        # softmax takes `num_stages` both as a compile option and as a constexpr, as a launch does.
        options = split_options(fn, config, target)
        specialization = specialize_for(fn, args, config)
        dumps: dict[str, str] | None = {} if _compile_with_pass_dumps else None
        files, metadata = compile_jit(fn, specialization, options, target, pass_dump=dumps)
        metadata["ttinspect"] = {"label": label, "kernel": kernel, "target": target.name,
                                 "config": for_cache_key(config), "signature": specialization.describe(),
                                 "source_file": source_file, "engine": cache.ENGINE_VERSION, **extra}
        if NO_PTXAS_LOG:
            metadata["ttinspect"]["no_ptxas_log"] = NO_PTXAS_LOG
        payload = {f"kernel.{stage}": data for stage, data in files.items()}
        payload[cache.METADATA] = json.dumps(metadata, indent=2, default=repr).encode()
        entry = cache.store(key, payload)
        if dumps:
            _ready_pass_dumps[entry.name] = dumps["text"]
        return entry

    def dump_passes() -> str:
        from ttinspect.compile.jit import specialize_for, split_options  # imports triton
        from ttinspect.compile.pass_dumps import compile_pass_dump  # imports triton

        fn = load()
        return compile_pass_dump(fn, specialize_for(fn, args, config), split_options(fn, config, target), target)

    entry = cache.lookup(key)
    if entry is None:
        if _cached_only:
            raise NotCached(label)
        entry = compile_entry()
    _pass_dumpers[entry.name] = dump_passes
    result = Build(label, kernel, target, config, Artifacts(entry, rebuild=compile_entry), source_file)
    if check:
        check_launchable(result)
    return result


class NotCached(Exception):
    """Raised instead of compiling within `cached_only()`. Not a TTInspectError on purpose: nothing that
    turns a failed config into a row (`keep_going`) may swallow it."""


_cached_only = False


@contextlib.contextmanager
def cached_only() -> Iterator[None]:
    """Within it, a build that is not in the cache raises NotCached instead of compiling: a sweep or a
    diff learns which of its kernels are warm (and gets those) without paying for a compile here."""
    global _cached_only
    saved, _cached_only = _cached_only, True
    try:
        yield
    finally:
        _cached_only = saved


def cached_only_now() -> bool:
    """Whether a `cached_only()` block is in effect: a resolver that compiles elsewhere (another Triton's
    toolchain) must not compile within one either."""
    return _cached_only


# Entry key -> how to compile that entry's kernel again with per-pass IR dumps (`ttinspect passes`):
# only a process that resolved the kernel from its source can, so each build made here registers itself.
_pass_dumpers: dict[str, Callable[[], str]] = {}
# `ttinspect passes` on a cold cache: the build's one compile also prints the dumps (kept here until
# pass_dump asks), instead of a second compile.
_compile_with_pass_dumps = False
_ready_pass_dumps: dict[str, str] = {}


@contextlib.contextmanager
def compile_with_pass_dumps() -> Iterator[None]:
    """Within it, a kernel compiled for its artifacts also keeps its per-pass dumps."""
    global _compile_with_pass_dumps
    saved, _compile_with_pass_dumps = _compile_with_pass_dumps, True
    try:
        yield
    finally:
        _compile_with_pass_dumps = saved


def pass_dump(result: Build) -> str:
    """What MLIR's per-pass dumps print while compiling `result`'s kernel (compile.compile_pass_dump).
    A build recorded by an earlier run (a user's file, read back from its memo) is resolved again
    first: `rebuild` finds the entry in the cache and registers it here without compiling."""
    name = result.artifacts.directory.name
    if name in _ready_pass_dumps:
        from ttinspect.compile.pass_dumps import checked_pass_dump  # imports triton

        return checked_pass_dump(_ready_pass_dumps.pop(name))
    if name not in _pass_dumpers and result.artifacts.rebuild is not None:
        result.artifacts.rebuild()
    dumper = _pass_dumpers.get(name)
    if dumper is None:
        raise TTInspectError(f"{result.label}: its kernel's source is not loaded, so it cannot be compiled again "
                             "with per-pass dumps; name it by its source (a variant or PATH.py:NAME)")
    return dumper()


def check_launchable(result: Build) -> None:
    """Triton checks shared memory only when it loads a kernel on a GPU; do it here so an offline user
    learns what the launch would say."""
    shared = result.metadata.get("shared") or 0
    limit = result.target.max_shared_per_block
    if shared > limit:
        raise CompileError(
            f"out of resource: shared memory, Required: {shared}, Hardware limit: {limit} "
            f"({limits_text(result.target) or result.target.name}); reduce num_stages or the block sizes",
            file=result.kernel)
