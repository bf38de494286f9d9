"""What each corpus module computes from the GPU when it is imported — every kernel's autotune config list and
the module's upper-case integer constants (NUM_SMS, MAX_FUSED_SIZE, ...) — recorded on a real GPU and offline
under ttinspect's virtual device, so the two can be compared (docs/virtual-device.md, docs/corpus.md).

    python scripts/device_configs.py record > h100.json            # on the GPU machine (real torch.cuda)
    python scripts/device_configs.py virtual sm_90 > offline.json  # here: the same modules under the virtual H100
    python scripts/device_configs.py compare h100.json offline.json

The modules are the corpus manifest's (tests/corpus/manifest.toml), with each entry's own environment
(flag-gems' GEMS_VENDOR). A module that fails to import is a row with its reason, never skipped in silence.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "corpus"))  # the manifest reader lives beside the manifest

from corpus_manifest import load  # noqa: E402


def modules() -> dict[str, dict[str, str]]:
    """module -> the environment its entries set (the first entry's)."""
    found: dict[str, dict[str, str]] = {}
    for entry in load():
        found.setdefault(entry.module, dict(entry.env_for("sm_90")))
    return found


def _plain(value: Any) -> Any:
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    name = getattr(value, "name", None)
    return f"tl.{name}" if isinstance(name, str) and type(value).__module__.startswith("triton") else repr(value)


def describe(module: Any) -> dict[str, Any]:
    """The module's kernels' config lists and its upper-case int constants."""
    from triton.runtime.autotuner import Autotuner

    kernels: dict[str, Any] = {}
    for name, obj in sorted(vars(module).items()):
        layer, seen = obj, 0
        while layer is not None and not isinstance(layer, Autotuner) and seen < 8:  # through Heuristics, LibEntry
            layer, seen = getattr(layer, "fn", None), seen + 1
        if isinstance(layer, Autotuner):
            kernels[name] = [{**{k: _plain(v) for k, v in c.all_kwargs().items()}} for c in layer.configs]
    numbers = {name: value for name, value in sorted(vars(module).items())
               if name.isupper() and isinstance(value, int) and not isinstance(value, bool)}
    return {"configs": kernels, "numbers": numbers}


def record(import_one) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, env in modules().items():
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            out[name] = describe(import_one(name))
        except BaseException as error:  # a module that needs more than the machine has: its row says why
            out[name] = {"error": f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"}
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
    return out


def on_this_gpu() -> dict[str, Any]:
    import torch

    return {"machine": {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                        "triton": importlib.import_module("triton").__version__},
            "modules": record(importlib.import_module)}


def under_virtual(arch: str) -> dict[str, Any]:
    """Each module imported as ttinspect imports a kernel's module for `arch` (refs/loading.py): under the
    target's virtual device."""
    from ttinspect.refs.kinds import parse_source_ref
    from ttinspect.refs.resolver import import_scope
    from ttinspect.refs.userfile import load_module

    def import_one(name: str):
        ref = parse_source_ref(f"{name}:x")
        return load_module(ref.path, ref.package, import_scope(arch))

    return {"machine": {"device": f"virtual {arch}"}, "modules": record(import_one)}


def compare(real: dict[str, Any], offline: dict[str, Any]) -> list[str]:
    """One line per module: equal, or what differs."""
    lines = []
    for name, seen in real["modules"].items():
        mine = offline["modules"].get(name)
        if "error" in seen:
            lines.append(f"{name}: not importable on the GPU machine ({seen['error']})")
        elif mine is None or "error" in mine:
            lines.append(f"{name}: DIFFERS — offline import failed ({(mine or {}).get('error')})")
        elif mine == seen:
            count = sum(len(c) for c in seen["configs"].values())
            lines.append(f"{name}: equal ({len(seen['configs'])} autotuned kernel(s), {count} configs, "
                         f"{len(seen['numbers'])} constants)")
        else:
            keys = [k for k in ("configs", "numbers") if mine.get(k) != seen.get(k)]
            detail = [f"{k}.{n}" for k in keys for n in set(seen[k]) | set(mine[k]) if seen[k].get(n) != mine[k].get(n)]
            lines.append(f"{name}: DIFFERS in {', '.join(sorted(detail)[:6])}")
    return lines


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("record", "virtual", "compare"):
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: device_configs.py record | virtual ARCH | compare REAL.json OFFLINE.json", file=sys.stderr)
        return 2
    if argv[0] == "record":
        print(json.dumps(on_this_gpu(), indent=1, sort_keys=True))
    elif argv[0] == "virtual":
        print(json.dumps(under_virtual(argv[1] if len(argv) > 1 else "sm_90"), indent=1, sort_keys=True))
    else:
        lines = compare(json.loads(Path(argv[1]).read_text()), json.loads(Path(argv[2]).read_text()))
        print("\n".join(lines))
        return 1 if any("DIFFERS" in line for line in lines) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
