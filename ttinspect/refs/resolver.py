"""One resolver: any kernel reference -> the builds it names. Every command and the API go through
`resolve`, so a new kind of reference is taught here once, never to each command.

    opt, opt:num_stages=3@sm_90     a shipped variant (variants.py)
    my_mm.py:matmul, dir/f.py:small a kernel or a declared example in a user's file (userfile.py)
    cache:3fa9c2                    a kernel a real run left in Triton's cache (tritoncache.py)
    step.ttcap:attn_fwd#2           a compile a run captured (captured.py: built as its file's kernel)
    REF@triton=3.5.1                any of the above (but cache:) compiled by another Triton release,
                                    in a toolchain of its own (ttinspect/toolchains/)
    a JIT function / autotuned kernel object   (the API and the pytest plugin)

Most references give one build; `--config all` on an autotuned kernel gives one per config.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping

from ttinspect.errors import TTInspectError, UsageError
from ttinspect.refs.failed import Failed
from ttinspect.refs.release_suffix import split_triton
from ttinspect.refs.kinds import CACHE_PREFIX, SOURCE_KINDS, kind_of, parse_source_ref
from ttinspect.targets.releases import installed_version
from ttinspect.engine.builds import Build, build, build_function, for_cache_key, resolve_target
from ttinspect.refs.reference import parse_ref
from ttinspect.kernel.catalog import get_variant
from ttinspect.files.source_files import sha256_or_empty
from ttinspect.refs import memo
from ttinspect.refs.userfile import Example, find, load_module, user_files
from ttinspect.kernel.arguments import bind_signature, parse_arg_items, parse_arg_mapping, parse_signature
from ttinspect.kernel.overrides import parse_settings
from ttinspect.refs.loading import ImportScope
from ttinspect.refs.device_props import own_limits, unread, warn_unread
from ttinspect.targets.nvidia import Target
from ttinspect.virtual.overrides import check_vendor, parse_device_props


@dataclass(frozen=True)
class RefOptions:
    """What the command line (or the API) says beside the reference."""

    settings: Mapping[str, Any] = field(default_factory=dict)  # --set, parsed
    args: Mapping[str, Any] = field(default_factory=dict)  # --arg, parsed entries (or API values)
    signature: str | None = None  # --signature, positional
    config: Any = None  # --config: None, best, all, N
    arch: str | None = None
    device_props: tuple[str, ...] = ()  # --device-props KEY=VALUE: the virtual device's numbers, overridden
    # the command line's own words (settings, args, signature, config, arch): what a toolchain's worker
    # parses again under its Triton (parsed values may hold that Triton's objects, e.g. tl.float16)
    raw: tuple | None = field(default=None, compare=False)
    source: str | None = None  # --source captured|current: a captured kernel whose file changed since the run

    @classmethod
    def from_cli(cls, settings: tuple[str, ...] = (), args: tuple[str, ...] = (), signature: str | None = None,
                 config: str | None = None, arch: str | None = None,
                 device_props: tuple[str, ...] = (), source: str | None = None) -> RefOptions:
        parse_device_props(device_props)  # a wrong key is refused before anything is loaded
        return cls(parse_settings(list(settings)), parse_arg_items(list(args)), signature, config, arch,
                   tuple(device_props), raw=(tuple(settings), tuple(args), signature, config, arch), source=source)

    def words(self) -> tuple:
        """The options as command-line words, for a worker under another Triton."""
        if self.raw is not None:
            return self.raw
        plain = (int, float, str, bool)
        if any(not isinstance(v, plain) for v in [*self.args.values(), *self.settings.values()]):
            raise UsageError("under another Triton, give the arguments as text (--arg NAME=VALUE / signature=)")
        settings = tuple(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in self.settings.items())
        args = tuple(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in self.args.items())
        config = None if self.config is None else str(self.config)
        return (settings, args, self.signature, config, self.arch)


def resolve(ref: Any, options: RefOptions | None = None, *, keep_going: bool = False) -> list:
    """The builds `ref` names (compiled, or found in a cache). `keep_going` (a table of configs): a
    config that fails to compile becomes a `Failed` and one too big to launch a build all the same."""
    options = options or RefOptions()
    props = parse_device_props(options.device_props)
    return own_limits(_resolve(ref, options, keep_going), props, keep_going)


def _resolve(ref: Any, options: RefOptions, keep_going: bool) -> list:
    if isinstance(ref, str):
        _check_text(ref)
        ref, version = split_triton(ref)
        if version is not None:
            if ref.startswith(CACHE_PREFIX):
                raise UsageError("a Triton cache entry is already compiled: @triton= does not apply")
            if version != installed_version():
                from ttinspect.refs.other_triton import resolve_with  # only for another release's REF@triton=

                return resolve_with(version, ref, options.words(), keep_going)
    kind = kind_of(ref)
    if kind == "variant":
        return _variant_builds(ref, options, keep_going)
    if kind in SOURCE_KINDS:
        return _file_builds(ref, options, keep_going)
    if kind == "capture":
        return _captured_builds(ref, options, keep_going)
    if kind == "cache":
        _refuse(options, "a Triton cache entry is already compiled", settings=True, args=True, config=True)
        from ttinspect.refs.tritoncache import resolve_entry  # Triton's cache, read: only for a cache: reference

        return [resolve_entry(ref[len(CACHE_PREFIX):], options.arch)]
    return _object_builds(ref, options, keep_going)


def _check_text(ref: str) -> None:
    """A reference that cannot mean anything is refused before anything is looked up."""
    if not ref.strip():
        raise UsageError("empty kernel reference; give a variant (`ttinspect list`), FILE.py:NAME or cache:PREFIX")
    if ref != ref.strip() or any(ord(c) < 32 for c in ref):
        raise UsageError(f"kernel reference {ref!r} has spaces or control characters around or in it")
    if (ref.endswith((":", "@")) and ref != CACHE_PREFIX) or "@@" in ref or "::" in ref:
        where = ref[-1] if ref[-1] in ":@" else "separator"
        raise UsageError(f"kernel reference {ref!r}: nothing after its last {where}; e.g. opt:num_stages=3@sm_90")


def resolve_one(ref: Any, options: RefOptions | None = None):
    """Exactly one build (`dump`, `diff`, `--by-line`): `--config all` belongs to `report`."""
    options = options or RefOptions()
    if str(options.config).strip().lower() == "all":
        raise UsageError("--config all gives one build per autotune config: use `ttinspect report REF --config all`, "
                         "or rank them by predicted time with `ttinspect sweep REF --grid config=all --sort time`")
    return resolve(ref, options)[0]


def _refuse(options: RefOptions, why: str, *, settings: bool = False, args: bool = False,
            config: bool = False) -> None:
    given = [name for name, on, value in (("--set", settings, options.settings), ("--arg", args, options.args),
                                          ("--signature", args, options.signature),
                                          ("--config", config, options.config)) if on and value]
    if given:
        raise UsageError(f"{why}: {', '.join(given)} {'does' if len(given) == 1 else 'do'} not apply")


def _variant_builds(text: str, options: RefOptions, keep_going: bool = False) -> list:
    _refuse(options, f"{text.partition(':')[0].partition('@')[0]} is a shipped variant with its own problem "
            "(change it with --set)", args=True)
    props = parse_device_props(options.device_props)
    target = resolve_target(text.partition("@")[2] or options.arch)
    check_vendor(props, target.amd is not None, target.name)  # the option's mistake first
    warn_unread(unread(props, target), "a shipped variant's code asks")
    which = options.config
    if str(which).strip().lower() == "all":
        variant = get_variant(text.partition("@")[0].partition(":")[0])
        if not variant.autotune_configs:
            raise UsageError(f"--config all: {variant.name} has no autotune configs")
        count = len(variant.autotune_configs)
        out: list[Build | Failed] = []
        for number in range(1, count + 1):
            note = f"autotune config {number} of {count}"
            try:
                ref = parse_ref(text, options.settings, options.arch, str(number))
                built = build(ref.resolved, arch=ref.arch, check=not keep_going)
            except TTInspectError as error:
                if not keep_going:
                    raise
                out.append(Failed(f"{variant.name}#{number}", note, str(error), error.exit_code))
                continue
            out.append(dataclasses.replace(built, label=f"{built.label}#{number}", note=note))
        return out
    ref = parse_ref(text, options.settings, options.arch, which)
    return [build(ref.resolved, arch=ref.arch, check=not keep_going)]


def _captured_builds(text: str, options: RefOptions, keep_going: bool) -> list:
    """The file's kernel with the captured signature, constexprs, options and target (--set on top)."""
    _refuse(options, "a captured kernel is launched as the run launched it (change it with --set)", args=True,
            config=True)
    from ttinspect.refs.captured import translate  # reads the capture format: only for a capture reference

    found = translate(text, options)
    as_file = dataclasses.replace(options, settings=found.settings, signature=found.signature, arch=found.arch)
    return [dataclasses.replace(b, label=found.label, note=found.note)
            for b in _file_builds(found.file_ref, as_file, keep_going, captured=True, script=found.script)]


def _file_builds(text: str, options: RefOptions, keep_going: bool = False, captured: bool = False,
                 script: bool = False) -> list:
    """`captured`: the @triton.jit function itself is compiled (a capture holds what its decorators chose);
    `script`: the file is the captured program's own script, loaded for its definitions (program_script.py)."""
    ref = _named_source_ref(text)
    arch = ref.arch or options.arch
    memo_key = None
    if not (arch or "").strip().lower() == "native":  # the GPU here decides: resolve every time
        memo_key = memo.key({
            # the file itself; the modules it imported are the memo's recorded `files`, checked on reading
            "file": str(ref.path), "source": sha256_or_empty(ref.path), "name": ref.name, "inline": ref.inline,
            "module": ref.package.module if ref.package else None,
            "settings": for_cache_key(options.settings), "args": for_cache_key(options.args),
            "signature": options.signature, "config": str(options.config), "arch": arch, "keep_going": keep_going,
            "device_props": list(options.device_props), **({"captured": True} if captured else {}),
            **({"script": True} if script else {})})
        found = memo.load(memo_key)
        if found is not None:
            for index, build in enumerate(found):  # a damaged entry is compiled again, from the file
                build.artifacts.rebuild = _rebuilder(ref, options, arch, keep_going, index, captured, script)
            return found
    builds = _file_builds_cold(ref, options, arch, keep_going, captured, script)
    if memo_key is not None and not any(isinstance(b, Failed) for b in builds):
        memo.save(memo_key, builds, user_files(ref.path, ref.own_folder))
    return builds


def _named_source_ref(text: str):
    """A file or module reference that names its kernel (or example); one without a name is refused."""
    ref = parse_source_ref(text)
    if ref.name is None:
        raise UsageError(f"{text}: name a kernel or an example, as {text.rstrip(':')}:NAME "
                         f"(`ttinspect list {ref.path}` shows them)")
    return ref


def kernel_object(text: str, arch: str | None = None) -> tuple[Any, str]:
    """The kernel object a file or module reference names, and its name, loaded as a compile of it would be
    (`translate` hands it to Triton's translator rather than compiling it)."""
    if kind_of(text) not in SOURCE_KINDS:
        raise UsageError(f"{text}: give the kernel as FILE.py:NAME or MODULE:NAME")
    ref = _named_source_ref(text)
    found = find(load_module(ref.path, ref.package, import_scope(ref.arch or arch)), ref.path, ref.name)
    return (found.kernel, found.kernel_name) if isinstance(found, Example) else (found, ref.name)


def _rebuilder(ref, options: RefOptions, arch: str | None, keep_going: bool, index: int, captured: bool,
               script: bool):
    def rebuild():
        return _file_builds_cold(ref, options, arch, keep_going, captured, script)[index].artifacts.directory
    return rebuild


def import_scope(arch: str | Target | None, device_props: tuple[str, ...] = ()) -> ImportScope:
    """What the user's code sees while it is imported and its launches planned: the target's virtual
    device (the real one for `--arch native`)."""
    if isinstance(arch, str) and arch.strip().lower() == "native":
        return ImportScope("native")
    target = resolve_target(arch)
    overrides = parse_device_props(device_props)
    check_vendor(overrides, target.amd is not None, target.name)  # the option's mistake, before any import
    # the virtual device's faces: only when a user's code is imported or planned (a cold path)
    from ttinspect.virtual.device import describe_device, questions_asked, virtual_device

    key = f"{target.name} {sorted((k, str(v)) for k, v in overrides.items())}"
    return ImportScope(key, lambda: virtual_device(target, overrides, imports_only=True),
                       lambda: describe_device(target, overrides), questions_asked, tuple(overrides))


def _file_builds_cold(ref, options: RefOptions, arch: str | None, keep_going: bool, captured: bool = False,
                      script: bool = False) -> list:
    scope = import_scope(arch, options.device_props)
    module = load_module(ref.path, ref.package, scope, definitions_only=script)
    # a kernel of the Helion DSL (it generates Triton): only once a user's file is loaded (a cold path)
    from ttinspect.refs.helion_kernels import helion_reference
    if (helion := None if captured else helion_reference(module, ref.name, ref.path)) is not None:
        return _helion_builds(helion, ref, options, arch, keep_going)
    if captured:
        from ttinspect.refs.captured import captured_kernel  # only for a capture reference (cold path)

        found = captured_kernel(module, ref.path, ref.name)
    else:
        found = find(module, ref.path, ref.name)
    inline = parse_settings(list(ref.inline))
    if isinstance(found, Example):
        args = parse_arg_mapping(found.args, f"{ref.path}: example {found.name!r} arg")
        signature = found.signature
        if found.arch and not arch:  # the example's own target: its code runs again on that device
            scope = import_scope(found.arch, options.device_props)
            found = find(load_module(ref.path, ref.package, scope), ref.path, ref.name)
        return kernel_builds(
            found.kernel, f"{ref.shown}:{found.name}", found.kernel_name,
            args=args, signature=signature, extra_args=parse_arg_mapping(options.args, "argument"),
            extra_signature=options.signature,
            settings={**found.config, **inline, **options.settings},
            which=options.config if options.config is not None else found.autotune_config,
            arch=arch or found.arch, keep_going=keep_going, scope=scope)
    return kernel_builds(found, f"{ref.shown}:{ref.name}", ref.name, args={}, signature=None,
                         extra_args=parse_arg_mapping(options.args, "argument"), extra_signature=options.signature,
                         settings={**inline, **options.settings}, which=options.config, arch=arch,
                         keep_going=keep_going, scope=scope)


def _helion_builds(helion, ref, options: RefOptions, arch: str | None, keep_going: bool) -> list:
    """Each launch of the Triton a Helion kernel generates (refs/helion_kernels.py), compiled as a file's kernel."""
    from ttinspect.refs.helion_kernels import generate  # as in _file_builds_cold

    arch = arch or helion.arch
    scope = import_scope(arch, options.device_props)
    out: list[Build | Failed] = []
    for launch in generate(helion, ref, options, scope, keep_going):
        out += [launch] if isinstance(launch, Failed) else [
            b if isinstance(b, Failed) else dataclasses.replace(b, note=launch.note)
            for b in kernel_builds(launch.function, launch.label, launch.name, args=launch.args, signature=None,
                                   extra_args={}, extra_signature=None, settings=launch.settings, which=None,
                                   arch=arch, keep_going=keep_going, scope=scope)]
    return out


def _object_builds(obj: Any, options: RefOptions, keep_going: bool = False) -> list:
    from ttinspect.compile.jit import kernel_kind, unwrap  # imports triton

    if isinstance(obj, Build):
        return [obj]
    if kernel_kind(obj) is None:
        raise UsageError(f"{obj!r} is not a kernel reference: give a variant name, PATH.py:NAME, cache:PREFIX, "
                         "or a @triton.jit / @triton.autotune kernel")
    name = unwrap(obj)[0].__name__
    args = parse_arg_mapping(options.args, "argument")
    return kernel_builds(obj, name, name, args=args, signature=options.signature, extra_args={},
                         extra_signature=None, settings=dict(options.settings), which=options.config,
                         scope=import_scope(options.arch, options.device_props),
                         arch=options.arch, keep_going=keep_going)


def _refuse_missing(fn: Any, name: str, bound: Mapping[str, Any], settings: Mapping[str, Any],
                    supplied: frozenset[str]) -> None:
    """Every value a launch would pass that nobody gave, named at once (a 25-parameter kernel is not typed
    one error at a time), with the whole parameter list to write them in."""
    missing = [p for p in fn.params if p.name not in bound and p.name not in settings and p.name not in supplied]
    if not missing:
        return
    runtime = [p.name for p in missing if not p.is_constexpr]
    constexpr = [p.name for p in missing if p.is_constexpr]
    parts = ([f"{len(runtime)} argument(s) {', '.join(runtime)} (--arg NAME=VALUE: *fp16 for a tensor, 4096 or "
              "i32:16 for an integer)"] if runtime else []) + \
            ([f"{len(constexpr)} constexpr(s) {', '.join(constexpr)} (--set NAME=VALUE)"] if constexpr else [])
    order = ", ".join(p.name for p in fn.params)
    raise UsageError(f"{name} needs {'; and '.join(parts)}; or all of them in this order with --signature: {order}")


def kernel_builds(obj: Any, label: str, name: str, *, args: Mapping[str, Any], signature: str | None,
                  extra_args: Mapping[str, Any], extra_signature: str | None, settings: Mapping[str, Any],
                  which: Any, arch: str | None, keep_going: bool = False, scope: ImportScope | None = None) -> list:
    """A loaded kernel object: bind the arguments, plan the launches (heuristics and config pruning see
    `scope`'s device, as the code did at import), compile each."""
    from ttinspect.compile.jit import unwrap  # imports triton
    from ttinspect.refs.launch import plan  # a launch's planning: only where a kernel object is compiled (cold)

    fn, autotuner, heuristics = unwrap(obj)
    # a constexpr may come from the configs early_config_prune makes (gemlite adds NUM_STAGES there): with a
    # pruner, constexprs are not demanded up front; a launch that still lacks one says so when it compiles
    pruner = autotuner is not None and bool(getattr(autotuner, "early_config_prune", None))
    supplied = frozenset({p.name for p in fn.params if p.has_default}
                         | {p.name for p in fn.params if p.is_constexpr and (p.name in settings or pruner)}
                         | {k for h in heuristics for k in h.values}
                         | {k for c in (autotuner.configs if autotuner else ()) for k in c.kwargs})
    bound: dict[str, Any] = {}
    for text in (signature, extra_signature):
        if text is not None:
            bound.update(bind_signature(parse_signature(text), list(fn.arg_names), name, supplied))
    bound.update(args)
    bound.update(extra_args)
    _refuse_missing(fn, name, bound, settings, supplied)
    target = resolve_target(arch)
    out: list[Build | Failed] = []
    scope = scope or import_scope(target)
    asked = scope.questions()
    with scope.enter():
        launches = plan(obj, name, bound, settings, which, label, target.name)
    # the outputs name the virtual device when the kernel's code asked it something (at import or here)
    device = scope.device_asked(asked, fn.fn.__code__.co_filename)
    # the limits reach the facts anyway (registers on NVIDIA only); a question asked at any import of this
    # process may have chosen what this kernel uses (a library module imported before), so only none is sure
    if device is None and scope.questions() == 0:
        warn_unread(unread(scope.given, target), f"{name}'s code asked")
    for launch in launches:
        try:
            if launch.invalid:
                raise UsageError(launch.invalid)
            built = build_function(fn, launch.label, launch.args, launch.config, target, check=not keep_going)
        except TTInspectError as error:
            if not keep_going:
                raise
            out.append(Failed(launch.label, launch.note, str(error), error.exit_code))
            continue
        out.append(dataclasses.replace(built, note=launch.note, device=device))
    return out
