"""Putting the virtual device's faces in place and taking them away, exactly once per outermost block.

torch is patched only when it is imported — already at the block's start, or by the code during it (an
import hook patches it the moment `import torch` has run); the same for Triton's driver. Nothing here
imports either. On the way out every patched attribute, the driver's state and the torch function mode are
restored as they were, whatever happened in the block.
"""

from __future__ import annotations

import sys
import types
from typing import Any, Callable

from ttinspect.files import after_import
from ttinspect.virtual import programs, smi, smi_library, state, streams, tensors, torch_face, triton_face

_MISSING = object()
_DRIVER_MODULE = "triton.runtime.driver"


class Installation:
    """The faces as installed now, and how to undo each."""

    def __init__(self) -> None:
        self.undo: list[Callable[[], None]] = []
        self.torch: types.ModuleType | None = None
        self.hook: PatchOnImport | None = None

    def patch(self, obj: Any, attr: str, value: Any) -> None:
        old = vars(obj).get(attr, _MISSING) if hasattr(obj, "__dict__") else getattr(obj, attr, _MISSING)

        def restore() -> None:
            if old is _MISSING:
                delattr(obj, attr)
            else:
                setattr(obj, attr, old)
        self.undo.append(restore)
        setattr(obj, attr, value)

    def install_torch(self, torch: types.ModuleType) -> None:
        self.torch = torch
        torch_face.install(torch, self.patch)
        _, allocations = tensors.build(torch)
        mode = allocations()
        mode.__enter__()
        self.undo.append(lambda: _leave_mode(torch, mode))
        future: Any = getattr(torch, "__future__", None)
        if state.values_on_cpu() and hasattr(future, "set_swap_module_params_on_conversion"):
            # --values / --run-kernels: `Module.to("cuda")` would set each parameter's data to the CPU tensor
            # facing cuda, dropping the face (the parameter said `cpu`); swapping keeps the parameter object (an
            # optimizer holding it still does) and gives it the face, as the GPU's move gives it the device
            was = future.get_swap_module_params_on_conversion()
            future.set_swap_module_params_on_conversion(True)
            self.undo.append(lambda: future.set_swap_module_params_on_conversion(was))

    def install_driver(self, module: types.ModuleType) -> None:
        config = getattr(module, "driver", None)
        if config is None or not hasattr(config, "set_active"):
            return
        saved = dict(vars(config))

        def restore() -> None:
            vars(config).clear()
            vars(config).update(saved)
        self.undo.append(restore)
        config.set_active(triton_face.VirtualDriver())

    def changed(self) -> None:
        """The active device changed (a nested block began or ended): the faces that hold a value, not a
        question, take the new one."""
        if self.torch is not None:
            torch_face.set_versions(self.torch)

    def remove(self) -> None:
        while self.undo:
            self.undo.pop()()


def _leave_mode(torch: types.ModuleType, mode: Any) -> None:
    """Pop our torch function mode; if the code left one of its own above it, keep that one."""
    from torch.overrides import _get_current_function_mode_stack, _pop_mode, _push_mode  # torch is imported

    above = []
    for _ in range(len(_get_current_function_mode_stack())):
        top = _pop_mode()
        if top is mode:
            break
        above.append(top)
    for other in reversed(above):
        _push_mode(other)


class PatchOnImport(after_import.AfterImport):
    """torch / Triton's driver module patched as soon as the user's code has imported it."""

    def __init__(self, patches: dict[str, Callable[[types.ModuleType], None]]):
        self.patches = patches

    def wanted(self, fullname: str) -> bool:
        return fullname in self.patches

    def loaded(self, fullname: str, module: types.ModuleType) -> None:
        self.patches[fullname](module)


class BindingsOnImport(after_import.AfterImport):
    """The vendors' management-library bindings (NVML's, AMD SMI's) answered as soon as one is imported."""

    def __init__(self, patch: Callable[[Any, str, Any], None]):
        self.patch = patch

    def wanted(self, fullname: str) -> bool:
        return smi.binding_name(fullname)

    def loaded(self, fullname: str, module: types.ModuleType) -> None:
        smi.install_on(module, self.patch)


_INSTALLED: list[Installation] = []


def install() -> None:
    """The first block began: patch what is imported, hook what is not yet."""
    state.reset_selection()
    streams.reset()
    installation = Installation()
    _INSTALLED.append(installation)
    programs.guard(installation.patch)
    smi_library.guard(installation.patch)
    for name, module in list(sys.modules.items()):
        if module is not None and smi.binding_name(name):
            smi.install_on(module, installation.patch)
    waiting: dict[str, Callable[[types.ModuleType], None]] = {}
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "cuda"):
        installation.install_torch(torch)
    else:
        waiting["torch"] = installation.install_torch
    driver_module = sys.modules.get(_DRIVER_MODULE)
    if driver_module is not None:
        installation.install_driver(driver_module)
    else:
        waiting[_DRIVER_MODULE] = installation.install_driver
    hooks: list[Any] = [PatchOnImport(waiting), BindingsOnImport(installation.patch)]
    for hook in hooks:
        sys.meta_path.insert(0, hook)
        installation.undo.insert(0, _remover(hook))


def changed() -> None:
    for installation in _INSTALLED:
        installation.changed()


def uninstall() -> None:
    """The last block ended: everything back as it was."""
    while _INSTALLED:
        _INSTALLED.pop().remove()


def _remover(hook: Any) -> Callable[[], None]:
    """Taking an import hook off sys.meta_path again (if the code has not already)."""
    def remove() -> None:
        if hook in sys.meta_path:
            sys.meta_path.remove(hook)
    return remove
