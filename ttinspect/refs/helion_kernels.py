"""A Helion kernel (`@helion.kernel`, PyTorch's kernel DSL that generates Triton) as a kernel reference:
`my_helion.py:add`, `pkg.ops:rms_norm`, or an example of the file's `TTINSPECT_EXAMPLES` naming one.

Helion turns the kernel into Triton source for its arguments (it specializes on their shapes and dtypes) and
one config (block sizes, warps, stages, indexing, ...). Here that happens on the target's virtual device:
the example tensors are made there (metadata, no values), Helion binds them (its own fake tensors) and asks
the device what it asks a GPU (its compute capability, its SM count) — answered as the target's — and writes
the Triton for the config chosen. That text is kept as a file in ttinspect's cache (refs/helion_source.py)
and its host function is run with a launcher that records each launch instead of running it: the @triton.jit
function, the arguments it was passed, `num_warps` and the other options. refs/resolver.py then compiles
that launch as any file's kernel, so every stage, fact and check follows; each compiled line of the
generated file names the Helion line it came from.

The config: the kernel's own when it names one (`config=`, or `configs=[...]` with one); with several,
`--config N` (1-based) or `--config all`; otherwise Helion's default for these arguments on this device.
`--config N` on a kernel that lists no configs is the N-th config of the population Helion's autotuner
starts from (its default first, then its seed configs, then random ones, drawn with seed 0). `--set KEY=VALUE`
changes a key of the chosen config (`--set num_warps=8 --set block_sizes=[64,64]`).
"""

from __future__ import annotations

import inspect
import json
import random
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from ttinspect.errors import UsageError
from ttinspect.kernel.argument_types import Pointer, TensorDesc
from ttinspect.kernel.overrides import parse_settings
from ttinspect.refs import helion_args
from ttinspect.refs.failed import Failed
from ttinspect.refs.helion_source import write_generated
from ttinspect.refs.loading import ImportScope
from ttinspect.refs.module_kernels import is_helion_kernel
from ttinspect.refs.userfile import EXAMPLES_NAME, load_module

SEARCH_SEED = 0  # the seed `--config N` draws Helion's search space with: the same N, the same config
_TRITON_NAMES = {torch_name: short for short, torch_name in helion_args.DTYPES.items()}


@dataclass(frozen=True)
class HelionRef:
    kernel: Any  # the helion.Kernel
    name: str  # the kernel's name in the file
    args: Mapping[str, Any] = field(default_factory=dict)  # an example's arguments
    config: Mapping[str, Any] = field(default_factory=dict)  # an example's config keys
    which: Any = None  # an example's autotune_config
    arch: str | None = None  # an example's target
    reference: str = ""  # the name the reference gave (the example's, else the kernel's)


def helion_reference(module: Any, name: str, path: Path) -> HelionRef | None:
    """The Helion kernel `name` names in the loaded file — the kernel itself, or an example of the file's
    TTINSPECT_EXAMPLES whose kernel is one — else None (the file's other kernels go the usual way)."""
    obj = getattr(module, name, None)
    if is_helion_kernel(obj):
        return HelionRef(obj, name, reference=name)
    examples = getattr(module, EXAMPLES_NAME, None)
    spec = examples.get(name) if isinstance(examples, Mapping) else None
    if not isinstance(spec, Mapping):
        return None
    kernel = spec.get("kernel")
    kernel_name = kernel if isinstance(kernel, str) else next((k for k, v in vars(module).items() if v is kernel), "")
    kernel = getattr(module, kernel, None) if isinstance(kernel, str) else kernel
    if not is_helion_kernel(kernel):
        return None
    where = f"{path}: {EXAMPLES_NAME}[{name!r}]"
    if "signature" in spec:
        args = helion_args.from_signature(str(spec["signature"]), _params(kernel), kernel_name)
    else:
        args = helion_args.from_mapping(dict(spec.get("args") or {}), f"{where} arg")
    return HelionRef(kernel, kernel_name or name, args, dict(spec.get("config") or {}), spec.get("autotune_config"),
                     spec.get("arch"), name)


def _params(kernel: Any) -> list[str]:
    return list(kernel.signature.parameters)


@dataclass(frozen=True)
class GeneratedLaunch:
    """One launch of a Triton kernel the generated host code makes: what the resolver compiles."""

    path: Path  # the generated file
    function: Any  # its @triton.jit function
    name: str
    args: dict[str, Any]  # parameter -> Pointer / TensorDesc / value
    settings: dict[str, Any]  # num_warps, num_stages and the other options the launcher passed
    label: str
    note: str


def generate(ref: HelionRef, source: Any, options: Any, scope: ImportScope, keep_going: bool = False) -> list[Any]:
    """The launches of the Triton Helion generates for `ref` (the kernel `source`, a file or module reference,
    names) under `scope`, for each config chosen: a GeneratedLaunch, or with `keep_going` a Failed for a
    config Helion could not generate."""
    path, shown = source.path, source.shown
    options = replace(options, settings={**parse_settings(list(source.inline)), **options.settings})
    kernel = ref.kernel
    params = _params(kernel)
    given = dict(ref.args)
    if options.signature:
        given.update(helion_args.from_signature(options.signature, params, ref.name))
    given.update(helion_args.from_mapping(dict(options.args), "--arg"))
    defaults = {n: p.default for n, p in kernel.signature.parameters.items()
                if p.default is not inspect.Parameter.empty}
    changes = {**dict(ref.config), **{k: _config_value(v) for k, v in options.settings.items()}}
    import torch  # the kernel's file imported it (Helion needs it)

    with scope.enter():
        values = helion_args.bound_values(params, given, defaults, f"{shown}:{ref.name}")
        # Helion traces the kernel with fake tensors of its own: the virtual device's tensor factories must not
        # answer its allocations (they would make tensors of theirs); its device questions are still answered
        with torch._C.DisableTorchFunction():
            bound = _helion_step(lambda: kernel.bind(tuple(values)), path, ref.name, "bind the arguments")
            chosen = _configs(kernel, bound, ref.which if options.config is None else options.config, ref.name)
        out: list[Any] = []
        for label_tail, note, config in chosen:
            config = _changed(config, changes, ref.name) if changes else config
            try:
                with torch._C.DisableTorchFunction():
                    code = _helion_step(lambda: bound.to_triton_code(config), path, ref.name,
                                        "generate Triton for the config chosen")
                generated = write_generated(code, path, ref.name)
                module = load_module(generated, None, scope)
                label = f"{shown}:{ref.reference or ref.name}{label_tail}"
                how = f"Helion, {note}{' with --set' if changes else ''}: {_config_text(config)}"
                out += _launches(module, generated, values, label, how, ref.name)
            except UsageError as error:
                if not keep_going or len(chosen) == 1:
                    raise
                out.append(Failed(f"{shown}:{ref.reference or ref.name}{label_tail}", note, str(error),
                                  error.exit_code))
        return out


def _helion_step(step: Any, path: Path, name: str, what: str) -> Any:
    """Helion's own work, its failure one line: its exception names the kernel's line itself."""
    try:
        return step()
    except UsageError:
        raise
    except Exception as error:  # Helion's errors (helion.exc.*) and what its tracing raised
        lines = [line.strip() for line in str(error).splitlines() if line.strip()]
        at = next((line for line in lines if line.startswith("File ")), "")
        raise UsageError(f"{path}:{name}: Helion could not {what}: {type(error).__name__}: "
                         f"{lines[0] if lines else ''}{f' ({at})' if at else ''}") from None


def _configs(kernel: Any, bound: Any, which: Any, name: str) -> list[tuple[str, str, Any]]:
    """(label tail, how it was chosen, config) for each config `which` names."""
    listed = list(kernel.configs)
    text = str(which).strip().lower() if which is not None else None
    if text is None:
        if len(listed) == 1:
            return [("", "the kernel's config", listed[0])]
        if listed:
            raise UsageError(f"{name} lists {len(listed)} configs (Helion autotunes among them): name one with "
                             f"--config N (1 to {len(listed)}) or --config all")
        return [("", "default config", bound.config_spec.default_config())]
    if text == "all":
        if not listed:
            raise UsageError(f"--config all: {name} lists no configs; --config N takes the N-th of Helion's "
                             "search space")
        return [(f"#{i}", f"config {i} of {len(listed)}", c) for i, c in enumerate(listed, start=1)]
    if not text.isdigit() or int(text) < 1:
        raise UsageError(f"--config takes N (1-based) or all for a Helion kernel, got {which!r}")
    number = int(text)
    if listed:
        if number > len(listed):
            raise UsageError(f"--config {number}: {name} lists {len(listed)} configs, numbered from 1")
        return [(f"#{number}", f"config {number} of {len(listed)}", listed[number - 1])]
    return [(f"#{number}", f"search-space config {number} (seed {SEARCH_SEED})", _search_space(bound, number))]


def _search_space(bound: Any, number: int) -> Any:
    """The number-th config of the population Helion's autotuner starts from, drawn with a fixed seed."""
    from helion.autotuner.config_generation import ConfigGeneration  # Helion itself: loaded by the kernel's file

    state = random.getstate()
    try:
        random.seed(SEARCH_SEED)
        population = ConfigGeneration(bound.config_spec).random_population(number)
    finally:
        random.setstate(state)
    if len(population) < number:
        raise UsageError(f"--config {number}: Helion's search space for these arguments gave {len(population)} "
                         "valid configs")
    return population[number - 1]


def _config_value(value: Any) -> Any:
    """A `--set` value for a Helion config key: `[64,64]` is a list (JSON), the rest as --set parses it."""
    if isinstance(value, str) and value.strip()[:1] in "[{":
        try:
            return json.loads(value)
        except ValueError:
            raise UsageError(f"--set: {value!r} is not a list Helion's config takes (JSON, e.g. [64, 64])") from None
    return value


def _changed(config: Any, changes: Mapping[str, Any], name: str) -> Any:
    from helion import Config  # Helion itself: loaded by the kernel's file

    try:
        return Config(**{**dict(config), **changes})
    except (TypeError, ValueError) as error:
        raise UsageError(f"--set on {name}'s Helion config: {error}") from None


def _config_text(config: Any) -> str:
    return ", ".join(f"{k}={v}" for k, v in dict(config).items() if v not in ([], None))


def _launches(module: Any, generated: Path, values: list[Any], label: str, note: str, name: str) -> list[Any]:
    """Run the generated host function with a launcher that records each launch instead of running it."""
    host = getattr(module, name, None)
    if not callable(host):
        raise UsageError(f"{generated}: Helion's generated code has no host function {name!r}")
    recorded: list[tuple[Any, tuple, dict]] = []

    def record(triton_kernel: Any, grid: Any, *args: Any, **options: Any) -> None:
        recorded.append((triton_kernel, args, options))

    _helion_step(lambda: host(*values, _launcher=record), generated, name, "run its generated host code")
    if not recorded:
        raise UsageError(f"{label}: Helion's generated code launched no Triton kernel for these arguments")
    out = []
    for index, (function, args, options) in enumerate(recorded):
        jit = getattr(function, "fn", None)
        params = list(getattr(function, "arg_names", []))
        kernel_name = getattr(jit, "__name__", name)
        tail = f" (launch {index + 1} of {len(recorded)})" if len(recorded) > 1 else ""
        out.append(GeneratedLaunch(generated, function, kernel_name,
                                   {p: _argument(a, f"{label}: {p}") for p, a in zip(params, args, strict=False)},
                                   _options(options, params, label), label + (f"#{index + 1}" if tail else ""),
                                   note + tail))
    return out


def _argument(value: Any, where: str) -> Any:
    """What a launch passed, as ttinspect describes an argument: a tensor by its dtype and alignment."""
    import torch  # as above

    if isinstance(value, torch.Tensor):
        short = _TRITON_NAMES.get(str(value.dtype).removeprefix("torch."))
        if short is None:
            raise UsageError(f"{where}: a tensor of {value.dtype}, which ttinspect cannot describe to Triton")
        return Pointer(short, aligned=value.storage_offset() * value.element_size() % 16 == 0)
    base = getattr(value, "base", None)
    if isinstance(base, torch.Tensor) and hasattr(value, "block_shape"):  # a host TMA descriptor
        return TensorDesc(_TRITON_NAMES.get(str(base.dtype).removeprefix("torch."), "fp16"),
                          tuple(int(n) for n in value.block_shape))
    if value is None or isinstance(value, (bool, int, float)):
        return value
    raise UsageError(f"{where}: the generated code passes a {type(value).__name__}, which ttinspect cannot "
                     "describe to Triton")


def _options(options: Mapping[str, Any], params: list[str], label: str) -> dict[str, Any]:
    """What the launcher was given by keyword: a parameter of the Triton kernel (a constexpr) and the compile
    options (`num_warps`, `num_stages`, ...); its own machinery for a kernel across processes (underscored
    keywords, set only then) cannot be compiled offline and is refused when used."""
    used = [k for k, v in options.items()
            if k.startswith("_") and k not in params and v not in (None, 0, (), False, "")]
    if used:
        raise UsageError(f"{label}: the generated launch uses {', '.join(used)} (a kernel across processes), "
                         "which ttinspect cannot compile offline")
    out = {k: v for k, v in options.items() if (k in params or not k.startswith("_")) and v is not None}
    if not out.get("launch_cooperative_grid"):
        out.pop("launch_cooperative_grid", None)
    return out
