"""Where a launch came from and what it passed: the launch site (the innermost frame outside triton, torch,
ttinspect, the standard library and Inductor's generated code, each code object judged once and each
(code, instruction) named once), the grid as three ints, and a summary of the arguments that never holds
tensor data (dtype, shape and strides of a tensor, read by duck typing — torch is never imported —, a
descriptor's block, scalars as values). counting.py counts the launches; scripts/capture_overhead.py measures
what it all costs.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from typing import Any, Callable, Mapping, Sequence

from ttinspect.capture import triton_hooks
from ttinspect.virtual.refusal import shown_path


def _machinery() -> tuple[tuple[str, ...], str | None, tuple[str, ...]]:
    """(package folders whose frames are machinery: ttinspect, triton, torch; the standard library's folder;
    the site-packages folders, which may lie inside it and are not machinery)."""
    paths = sysconfig.get_paths()
    packages = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]  # ttinspect
    for name in ("triton", "torch"):
        file = getattr(sys.modules.get(name), "__file__", None)
        packages.append(os.path.dirname(os.path.abspath(file)) if file else os.path.join(paths["purelib"], name))
    stdlib = paths.get("stdlib")
    return (tuple(_folder(p) for p in packages), _folder(stdlib) if stdlib else None,
            tuple(_folder(p) for p in {paths["purelib"], paths["platlib"]}))


def _folder(path: str) -> str:
    return os.path.abspath(path).rstrip(os.sep) + os.sep


_roots: tuple[tuple[str, ...], str | None, tuple[str, ...]] | None = None  # found at the first launch
_generated: list[str] = []  # folders of generated code (Inductor's), machinery too
_internal: dict[int, tuple[Any, bool]] = {}  # id(code) -> (the code, its frames are machinery)
known_sites: dict[tuple[int, int], str] = {}  # site_key(frame) -> "path:line"
_MAX_SITES = 100_000


def add_machinery(folder: str) -> None:
    """Frames of files under `folder` are machinery from now on (Inductor's generated code)."""
    global _roots
    root = _folder(folder)
    if root not in _generated:
        _generated.append(root)
        _roots = None
        _internal.clear()
        known_sites.clear()


def _is_internal(code: Any) -> bool:
    global _roots
    filename = code.co_filename
    if filename.startswith("<"):  # "<string>" (python -c) and "<stdin>" are the program; "<frozen runpy>",
        return filename not in ("<string>", "<stdin>")  # torch.fx's "<eval_with_key>.3" are machinery
    if _roots is None:
        _roots = _machinery()
    packages, stdlib, site_packages = _roots
    path = os.path.abspath(filename)
    if path.startswith(packages) or _generated and path.startswith(tuple(_generated)):
        return True
    return stdlib is not None and path.startswith(stdlib) and not path.startswith(site_packages)


def site_key(frame: Any) -> tuple[int, int]:
    """The frame's code and instruction (cheap to read, unlike its line: a table scan); unique while the code
    lives, and _internal keeps it."""
    return id(frame.f_code), frame.f_lasti


def is_site(frame: Any) -> bool:
    """Is this frame itself the program's (so the site does not depend on the frames that called it)?"""
    known = _internal.get(id(frame.f_code))
    return known is not None and not known[1]


def site(frame: Any) -> str:
    """"path:line" of the innermost frame of the program (outside the machinery), from `frame` outwards.
    Keyed by id(code): hashing a code object hashes its constants each time, ids are free; the code objects
    are kept (in _internal) so that an id is never reused while it is a key."""
    internal = _internal
    while frame is not None:
        code = frame.f_code
        known = internal.get(id(code))
        if known is None:
            known = internal[id(code)] = (code, _is_internal(code))
        if not known[1]:
            where = site_key(frame)
            text = known_sites.get(where)
            if text is None:
                text = f"{os.path.abspath(code.co_filename)}:{frame.f_lineno}"
                if len(known_sites) < _MAX_SITES:
                    known_sites[where] = text
            return text
        frame = frame.f_back
    return "?"


def shown_site(frame: Any) -> str:
    """`site(frame)` as a message shows it: its path relative to the current directory when inside it."""
    path, _, line = site(frame).rpartition(":")  # "?" where no frame of the program launched it
    return f"{shown_path(path)}:{line}" if path else line


class GridSpy:
    """Stands for a grid function: the JIT calls it with the bound arguments; the grid it made is kept."""
    __slots__ = ("function", "shape")

    def __init__(self, function: Callable[..., Any]):
        self.function = function
        self.shape: Any = None

    def __call__(self, meta: Any) -> Any:
        self.shape = shape = self.function(meta)
        return shape


known_grids: dict[Any, tuple[int, ...]] = {}  # a grid as launched -> as three ints
_MAX_GRIDS = 10_000


def grid3(shape: Any) -> tuple[int, ...] | None:
    """A grid as three ints ((n,) -> (n, 1, 1)); None when it is not known (Inductor computes its grids in
    its own launcher) or not one."""
    try:
        known = known_grids.get(shape)
    except TypeError:  # unhashable: a list, the interpreter's tensors
        known = None
    if known is not None:
        return known
    try:
        values = [triton_hooks.grid_int(n) for n in shape][:3]
    except Exception:  # None, a symbolic size: the launch is still counted, its grid unknown
        return None
    made = tuple(values + [1] * (3 - len(values)))
    if type(shape) is tuple and len(known_grids) < _MAX_GRIDS and all(type(n) is int for n in shape):
        known_grids[shape] = made
    return made


def describe(value: Any) -> Any:
    """One argument, without its data."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "data_ptr") and hasattr(value, "dtype") and hasattr(value, "shape"):
        stride = getattr(value, "stride", None)
        return {"dtype": str(value.dtype).removeprefix("torch."), "shape": [int(n) for n in value.shape],
                "strides": [int(n) for n in stride()] if callable(stride) else None}
    if hasattr(value, "block_shape") and hasattr(value, "base"):  # a host TMA tensor descriptor
        base = describe(value.base)
        return {"descriptor": {"dtype": base.get("dtype") if isinstance(base, dict) else None,
                               "shape": [int(n) for n in getattr(value, "shape", ())],
                               "strides": [int(n) for n in getattr(value, "strides", ())],
                               "block_shape": [int(n) for n in value.block_shape]}}
    if hasattr(value, "name") and type(value).__module__.startswith("triton.language"):
        return f"tl.{value.name}"
    return {"type": type(value).__name__}


def summary(names: Sequence[str], constexprs: frozenset[str], args: Sequence[Any],
            kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The launch's runtime arguments by name (constexprs are in the compile record)."""
    out = {name: describe(value) for name, value in zip(names, args, strict=False) if name not in constexprs}
    for name, value in kwargs.items():
        if name in names and name not in constexprs:
            out[name] = describe(value)
    return out
