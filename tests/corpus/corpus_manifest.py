"""The corpus manifest (tests/corpus/manifest.toml): public kernel libraries' kernels, each with the
arguments its library's own launch passes. Pure data and its conversions — no triton, torch or library
import here (torch only where real tensors are asked for), so the manifest test and the runners' option
checks stay fast.

One entry is one launch site of one kernel: `kernel` names it as `package.module:name`, `source` cites the
launch in the library (`package/file.py:LINE`, relative to site-packages), `args` are the runtime arguments
by name — a tensor written `dtype[shape]` (`"bf16[4096, 4096]"`; a table `{ tensor = ..., strides = [...] }`
for a view that is not contiguous), ints, floats, booleans, `"None"` — and `config` the constexprs and
options the call site passes (`"tl.bfloat16"` for a Triton dtype). An autotuned kernel names the config to
compile (`autotune_config`, 1-based, as `--config N`). `per_target.<arch>` overrides args or config where the
call site asks the device (an SM count, `is_hip()`), `grid` is the launch grid as a Python expression over
the arguments, the config and `cdiv` (for the GPU script), `ci` the targets the CI subset compiles, `tritons`
the Triton releases the entry works with and `unsupported` why it does not with the others (a row under such a
release still runs, and shows that reason beside the error if it fails). `env` holds environment variables the
library reads to choose its device where it cannot ask (flag-gems' GEMS_VENDOR: it otherwise runs nvidia-smi).
`per_target.<arch>.autotune_config` is the config for that target where its list differs (a pruner that makes
a config on one vendor only). `first_keyword` names the first parameter the call site passes by keyword (the
GPU script passes the ones before it by position, as the call site does: an autotuner's pruner reads `nargs`
for the positional ones and its keyword arguments for the rest).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - ttinspect depends on tomli there
    import tomli as tomllib

MANIFEST = Path(__file__).with_name("manifest.toml")
TARGETS = ("sm_90", "sm_100", "gfx942")
ENTRY_KEYS = {"library", "kernel", "source", "call", "grid", "args", "config", "autotune_config", "per_target",
              "targets", "tritons", "ci", "unsupported", "note", "env", "first_keyword"}
# bf16[4096, 4096]; i64[4096]; fp32[] (a 0-d tensor)
TENSOR = re.compile(r"^(?P<dtype>[a-z]+[0-9a-z]*)\[(?P<shape>[0-9, ]*)\]$")
# The dtypes a manifest tensor may have: Triton's short names, torch's names for them.
TORCH_DTYPES = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64", "i8": "int8",
                "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8", "i1": "bool",
                "fp8e4nv": "float8_e4m3fn", "fp8e5": "float8_e5m2", "u32": "uint32", "u16": "uint16"}


@dataclass(frozen=True)
class Tensor:
    """A tensor argument: what a launch passes (its dtype; its data pointer's alignment follows from being
    a fresh allocation) and, for real tensors, its shape and strides."""

    dtype: str
    shape: tuple[int, ...]
    strides: tuple[int, ...] | None = None

    def arg_text(self) -> str:
        return f"*{self.dtype}"

    def storage_size(self) -> int:
        """Elements the storage needs for these shape and strides."""
        if self.strides is None:
            size = 1
            for dim in self.shape:
                size *= dim
            return size
        return 1 + sum((dim - 1) * stride for dim, stride in zip(self.shape, self.strides, strict=True) if dim)


@dataclass(frozen=True)
class Entry:
    id: str  # library/kernel-name (with a #N suffix when a library launches one kernel from several sites)
    library: str  # the PyPI distribution: liger-kernel, fla-core, ...
    module: str  # liger_kernel.ops.rms_norm
    name: str  # _rms_norm_forward_kernel
    source: str  # liger_kernel/ops/rms_norm.py:483
    call: str  # the library call that makes this launch, for people
    grid: str  # "(4096,)" or "(cdiv(M, BLOCK_M), cdiv(N, BLOCK_N))"
    args: Mapping[str, Any]
    config: Mapping[str, Any]
    autotune_config: int | None
    targets: tuple[str, ...]
    tritons: tuple[str, ...]
    ci: tuple[str, ...]
    per_target: Mapping[str, Mapping[str, Mapping[str, Any]]] = field(default_factory=dict)
    unsupported: str | None = None  # why releases outside `tritons` fail
    note: str = ""
    env: Mapping[str, str] = field(default_factory=dict)
    first_keyword: str | None = None  # the first parameter the call site passes by keyword

    @property
    def package(self) -> str:
        return self.module.partition(".")[0]

    @property
    def module_ref(self) -> str:
        return f"{self.module}:{self.name}"

    def args_for(self, target: str) -> dict[str, Any]:
        return {**self.args, **{k: parse_value(v, f"{self.id} per_target.{target}.args.{k}")
                                for k, v in self.per_target.get(target, {}).get("args", {}).items()}}

    def config_for(self, target: str) -> dict[str, Any]:
        return {**self.config, **self.per_target.get(target, {}).get("config", {})}

    def autotune_config_for(self, target: str) -> int | None:
        return self.per_target.get(target, {}).get("autotune_config", self.autotune_config)

    def grid_for(self, target: str) -> str:
        return self.per_target.get(target, {}).get("grid", self.grid)

    def env_for(self, target: str) -> dict[str, str]:
        return {**self.env, **self.per_target.get(target, {}).get("env", {})}


class ManifestError(ValueError):
    """The manifest says something malformed: the message names the entry and the key."""


def parse_value(value: Any, where: str) -> Any:
    """A manifest argument value: a tensor spec becomes a Tensor, the rest stays as written."""
    if isinstance(value, dict):
        if set(value) - {"tensor", "strides"} or "tensor" not in value:
            raise ManifestError(f"{where}: a table argument is {{ tensor = \"bf16[M, N]\", strides = [...] }}")
        tensor = parse_value(value["tensor"], where)
        strides = tuple(int(s) for s in value.get("strides", ()))
        if not isinstance(tensor, Tensor) or (strides and len(strides) != len(tensor.shape)):
            raise ManifestError(f"{where}: strides must give one stride per dimension of a tensor")
        return Tensor(tensor.dtype, tensor.shape, strides or None)
    if isinstance(value, str):
        match = TENSOR.match(value.strip())
        if match:
            if match["dtype"] not in TORCH_DTYPES:
                raise ManifestError(f"{where}: unknown tensor dtype {match['dtype']!r}; "
                                    f"known: {', '.join(TORCH_DTYPES)}")
            shape = tuple(int(d) for d in match["shape"].split(",") if d.strip())
            return Tensor(match["dtype"], shape)
    return value


def load(path: Path = MANIFEST) -> list[Entry]:
    """Every entry of the manifest, checked; a malformed one raises ManifestError naming it."""
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    defaults = data.get("defaults", {})
    entries: list[Entry] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(data.get("entry", []), start=1):
        entries.append(_entry(raw, defaults, number, seen))
    return entries


def _entry(raw: Mapping[str, Any], defaults: Mapping[str, Any], number: int, seen: dict[str, int]) -> Entry:
    where = f"{MANIFEST.name} entry {number}"
    unknown = set(raw) - ENTRY_KEYS
    if unknown:
        raise ManifestError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}; "
                            f"known: {', '.join(sorted(ENTRY_KEYS))}")
    for key in ("library", "kernel", "source", "call", "grid", "args"):
        if key not in raw:
            raise ManifestError(f"{where}: no {key!r}")
    module, sep, name = raw["kernel"].partition(":")
    if not sep or not name.isidentifier() or not all(part.isidentifier() for part in module.split(".")):
        raise ManifestError(f"{where}: kernel is package.module:name, got {raw['kernel']!r}")
    if not re.match(r"^[\w/.]+\.py:\d+$", raw["source"]):
        raise ManifestError(f"{where}: source is the launch's package/file.py:LINE, got {raw['source']!r}")
    base_id = f"{raw['library']}/{name.strip('_')}"
    seen[base_id] = seen.get(base_id, 0) + 1
    entry_id = base_id if seen[base_id] == 1 else f"{base_id}#{seen[base_id]}"
    targets = tuple(raw.get("targets", defaults.get("targets", TARGETS)))
    ci = tuple(raw.get("ci", ()))
    for target in (*targets, *ci, *raw.get("per_target", {})):
        if target not in TARGETS:
            raise ManifestError(f"{where} ({entry_id}): unknown target {target!r}; known: {', '.join(TARGETS)}")
    for target, overrides in raw.get("per_target", {}).items():
        if not isinstance(overrides, dict) or set(overrides) - {"args", "config", "grid", "env", "autotune_config"}:
            raise ManifestError(f"{where} ({entry_id}): per_target.{target} holds args, config, grid, env and "
                                "autotune_config only")
    if not set(ci) <= set(targets):
        raise ManifestError(f"{where} ({entry_id}): ci targets {ci} are not among its targets {targets}")
    if raw.get("unsupported") and "tritons" not in raw:
        raise ManifestError(f"{where} ({entry_id}): `unsupported` says why other releases fail: list `tritons`")
    autotune_config = raw.get("autotune_config")
    if autotune_config is not None and (not isinstance(autotune_config, int) or autotune_config < 1):
        raise ManifestError(f"{where} ({entry_id}): autotune_config is a 1-based config number")
    args = {k: parse_value(v, f"{where} ({entry_id}) args.{k}") for k, v in raw["args"].items()}
    return Entry(entry_id, raw["library"], module, name, raw["source"], raw["call"], raw["grid"], args,
                 dict(raw.get("config", {})), autotune_config, targets,
                 tuple(raw.get("tritons", defaults.get("tritons", ()))), ci, dict(raw.get("per_target", {})),
                 raw.get("unsupported"), raw.get("note", ""), dict(raw.get("env", {})), raw.get("first_keyword"))


# --- what ttinspect is given --------------------------------------------------------------------------------

def setting_text(value: Any) -> str:
    """A config or scalar value as `--set` / `--arg` text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def arg_texts(entry: Entry, target: str) -> list[str]:
    """`--arg NAME=VALUE` texts of the launch."""
    return [f"{name}={value.arg_text() if isinstance(value, Tensor) else setting_text(value)}"
            for name, value in entry.args_for(target).items()]


def set_texts(entry: Entry, target: str) -> list[str]:
    return [f"{key}={setting_text(value)}" for key, value in entry.config_for(target).items()]


def cli_words(entry: Entry, target: str) -> list[str]:
    """The options of `ttinspect report/check REF ...` for this launch on `target`."""
    words: list[str] = []
    for text in arg_texts(entry, target):
        words += ["--arg", text]
    for text in set_texts(entry, target):
        words += ["--set", text]
    if entry.autotune_config_for(target) is not None:
        words += ["--config", str(entry.autotune_config_for(target))]
    return words + ["--arch", target]


def package_folder(package: str) -> Path | None:
    """Where an installed top-level package lives, found without importing it (None: not installed)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def file_ref(entry: Entry) -> str:
    """`<site-packages>/pkg/mod.py:name`: the file-path form of the reference."""
    folder = package_folder(entry.package)
    if folder is None:
        raise ManifestError(f"{entry.id}: package {entry.package!r} is not installed")
    relative = Path(*entry.module.split(".")[1:])
    module_file = folder / relative.with_suffix(".py")
    if not module_file.is_file():
        module_file = folder / relative / "__init__.py"
    return f"{module_file}:{entry.name}"


def reference(entry: Entry, form: str) -> str:
    """The reference ttinspect is given: `module` (pkg.mod:kernel) or `file` (its path)."""
    return entry.module_ref if form == "module" else file_ref(entry)


# --- real values (torch and triton imported here only) -----------------------------------------------------

def python_value(value: Any) -> Any:
    """A manifest value as a launch passes it: `tl.x` -> triton.language.x, `torch.x` -> torch.x, "None"."""
    if isinstance(value, str):
        if value == "None":
            return None
        if value.startswith("tl."):
            import triton.language as tl  # only where a value names a Triton dtype

            return getattr(tl, value[3:])
        if value.startswith("torch."):
            import torch  # only where a value names a torch dtype

            return getattr(torch, value[6:])
    return value


def real_tensor(spec: Tensor, device: str = "cpu") -> Any:
    """A fresh tensor of the spec's dtype, shape and strides (its values are left as allocated)."""
    import torch  # real tensors only

    dtype = getattr(torch, TORCH_DTYPES[spec.dtype])
    if spec.strides is None:
        return torch.empty(spec.shape, dtype=dtype, device=device)
    storage = torch.empty(spec.storage_size(), dtype=dtype, device=device)
    return storage.as_strided(spec.shape, spec.strides)


def real_args(entry: Entry, target: str, device: str = "cpu") -> dict[str, Any]:
    """The launch's arguments with real tensors (on `device`) where it passes tensors."""
    return {name: real_tensor(value, device) if isinstance(value, Tensor) else python_value(value)
            for name, value in entry.args_for(target).items()}


def api_args(entry: Entry, target: str) -> dict[str, Any]:
    """The launch's arguments as ttinspect's API takes them: a tensor as `Pointer(dtype)`."""
    from ttinspect import Pointer  # the API's own argument type

    return {name: Pointer(value.dtype) if isinstance(value, Tensor) else python_value(value)
            for name, value in entry.args_for(target).items()}


def api_config(entry: Entry, target: str) -> dict[str, Any]:
    return {key: python_value(value) for key, value in entry.config_for(target).items()}
