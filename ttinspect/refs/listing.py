"""`ttinspect list FILE`: every kernel a reference can name in a user's file, of every kind the resolver
builds (module_kernels.py: Triton's, Helion's), with its kind, and the examples it declares; each Triton jit
function marked kernel or device helper (kernel/helpers.py), and the one to suggest inspecting; for a
capture (FILE.ttcap), what the run compiled (capture_listing.py)."""

from __future__ import annotations

from typing import Any

from ttinspect.errors import UsageError
from ttinspect.kernel.helpers import Role, first_kernel, roles
from ttinspect.refs.capture_listing import list_capture
from ttinspect.refs.kinds import SOURCE_KINDS, kind_of, parse_source_ref
from ttinspect.refs.module_kernels import describe, nameable
from ttinspect.refs.resolver import import_scope
from ttinspect.refs.userfile import examples_in, load_module


def list_file(text: str, arch: str | None = None) -> dict[str, Any]:
    """`text`: a file (`my_mm.py`) or a module (`liger_kernel.ops.rms_norm`), imported as a report would
    import it — under the virtual device of `arch` (the default target when None)."""
    if kind_of(text) == "capture":
        if arch is not None:
            raise UsageError("--arch does not apply to a capture's listing: it lists the targets the run compiled for")
        return list_capture(text)
    if kind_of(text) not in SOURCE_KINDS:
        raise UsageError(f"{text!r} is not a Python file (a path ending in .py, or containing /), a module "
                         "(package.module) nor a capture (FILE.ttcap)")
    ref = parse_source_ref(text)
    scope = import_scope(ref.arch or arch)
    asked = scope.questions()
    module = load_module(ref.path, ref.package, scope)
    # the configs listed are those the device the code asked chose: say which (docs/virtual-device.md)
    device = scope.device_asked(asked, ref.path)
    found = nameable(module)
    kernels = [describe(name, obj) for name, obj in found.items()]
    # device helpers are told among Triton's jit functions; a kernel of another kind is launched from the host
    role_of = {k.name: Role((), False) for k in kernels if not k.device_code}
    role_of.update(roles({k.name: _source(found[k.name]) for k in kernels if k.device_code}))
    examples = examples_in(module, ref.path)
    return {
        "file": str(ref.path),
        "module": ref.package.module if ref.package is not None else None,
        "ref": ref.package.module if ref.package is not None else str(ref.path),  # what a reference starts with
        **({"device": device} if device else {}),
        "kernels": [{"name": k.name, "kind": k.kind, "line": k.line, "params": list(k.params),
                     "constexprs": list(k.constexprs), "autotune_configs": k.configs,
                     "helper": ({"called_by": list(role_of[k.name].called_by),
                                 "returns_value": role_of[k.name].returns_value}
                                if role_of[k.name].helper else None)} for k in kernels],
        "suggested": first_kernel([k.name for k in kernels], role_of),
        "examples": [{"name": e.name, "kernel": e.kernel_name, "description": e.description,
                      "args": {k: repr(v) if not isinstance(v, (int, float, str, bool)) else v
                               for k, v in e.args.items()},
                      "signature": e.signature, "config": {k: getattr(v, "name", v) for k, v in e.config.items()},
                      "autotune_config": e.autotune_config, "arch": e.arch} for e in examples.values()],
    }


def _source(obj: Any) -> str:
    """The jit function's own source text (under any autotune / heuristics wrappers)."""
    while not isinstance(getattr(obj, "src", None), str) and hasattr(obj, "fn"):
        obj = obj.fn
    source = getattr(obj, "src", None)
    return source if isinstance(source, str) else ""
