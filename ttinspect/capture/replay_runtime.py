"""Running a replay plan (replay_plan.py): loading the captured kernel and making its arguments. The same
functions run in-process for `bench` / `profile` of a captured kernel (gpu/replay.py); `load_kernel` and
`fresh` are also written, by their source, into the standalone script `ttinspect repro` makes — so each
function imports what it needs itself (torch or triton: only a replay calls them) and uses nothing else of
ttinspect.
"""

from __future__ import annotations

from typing import Any


def load_kernel(kernel_file, module_name, kernel_name, definitions_only=False):
    """The @triton.jit function `kernel_name` of `kernel_file`, under any autotune/heuristics wrapper (a
    replay passes the captured constexprs and options itself). A package's module is imported by its name,
    as Python would (its package's __init__ may import it back); otherwise the file is loaded, its folder
    first on sys.path for its imports of its neighbours. `definitions_only`: the file is the program's own
    script (its module was __main__): its definitions are loaded without running the program."""
    import importlib
    import importlib.util
    import os
    import sys

    import triton

    module = None
    if not definitions_only:  # a program's script is never imported: that would run the program
        try:
            found = importlib.import_module(module_name)
            if os.path.realpath(getattr(found, "__file__", "") or "") == os.path.realpath(kernel_file):
                module = found
        except Exception:  # not importable by that name here: the file itself is loaded below
            pass
    if module is None:
        if os.path.dirname(kernel_file) not in sys.path:
            sys.path.insert(0, os.path.dirname(kernel_file))
        spec = importlib.util.spec_from_file_location(module_name, kernel_file)
        if spec is None or spec.loader is None:
            raise LookupError(f"{kernel_file}: cannot be loaded as a Python module")
        module = importlib.util.module_from_spec(spec)
        # while it runs it is that module (its relative imports, dataclasses); then the name is given back to
        # the module Python had for it, if any (another copy of the same kernel, replayed beside this one)
        previous = sys.modules.get(module_name)
        sys.modules[module_name] = module
        try:
            if definitions_only:
                run_definitions(module, kernel_file)
            else:
                spec.loader.exec_module(module)
        finally:
            if previous is not None:
                sys.modules[module_name] = previous
    leaves: tuple[type, ...] = (triton.runtime.JITFunction,)
    try:  # under TRITON_INTERPRET=1 @triton.jit makes an InterpretedFunction
        from triton.runtime.interpreter import InterpretedFunction
        leaves += (InterpretedFunction,)
    except ImportError:
        pass
    for value in vars(module).values():
        # through @triton.autotune, @triton.heuristics and a library's own launch wrapper (flag-gems' LibEntry):
        # each is a KernelInterface holding the next as `.fn`, down to the JITFunction
        for _ in range(8):
            if not isinstance(value, triton.runtime.KernelInterface) or isinstance(value, leaves):
                break
            value = getattr(value, "fn", None)
        if isinstance(value, leaves) and getattr(value, "__name__", None) == kernel_name:
            return value
    raise LookupError(f"{kernel_file}: no @triton.jit function named {kernel_name}")


def fresh(shape, strides, dtype, device):
    """A tensor of `shape` and `strides` over random data (normal floats, small non-negative integers)."""
    import torch

    dtype = getattr(torch, dtype)
    size = 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True)) if all(shape) else 0
    base = torch.empty(size, dtype=dtype, device=device)
    if dtype.is_floating_point:
        base.copy_(torch.randn(size, device=device))
    elif dtype == torch.bool:
        base.copy_(torch.randint(0, 2, (size,), device=device))
    else:
        base.copy_(torch.randint(0, 16, (size,), device=device))
    return base.as_strided(shape, strides)


def keyword_value(value):
    """A captured constexpr as the launch takes it: "tl.float16" is triton.language.float16."""
    import triton.language as tl

    if isinstance(value, str) and value.startswith("tl.") and value[3:].isidentifier() and hasattr(tl, value[3:]):
        return getattr(tl, value[3:])
    return value


def arguments(specs: dict[str, Any], device: str, seed: int = 0) -> dict[str, Any]:
    """Every runtime argument by name: fresh tensors (the same data for the same seed) and the scalars."""
    import torch

    torch.manual_seed(seed)
    return {name: fresh(spec.shape, spec.strides, spec.dtype, device) if hasattr(spec, "strides") else spec
            for name, spec in specs.items()}


def synchronize(values: dict[str, Any]) -> None:
    """Wait for the launch when its tensors live on a GPU (nothing to wait for under the interpreter)."""
    import torch

    if any(getattr(getattr(v, "device", None), "type", "cpu") == "cuda" for v in values.values()):
        torch.cuda.synchronize()


def script_definitions(path):
    """The syntax tree of a program's own script with only its definitions (refs/program_script.py says which)."""
    import ast

    defines = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign,
               ast.AnnAssign, ast.AugAssign, ast.If, ast.Try, ast.Global)

    def kept(body):
        out = []
        for index, node in enumerate(body):
            docstring = index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            if docstring or isinstance(node, defines):
                if isinstance(node, ast.If):  # a choice among definitions: its branches are filtered alike
                    node.body = kept(node.body) or [ast.Pass(lineno=node.lineno, col_offset=node.col_offset)]
                    node.orelse = kept(node.orelse)
                out.append(node)
        return out

    with open(path, "rb") as handle:
        tree = ast.parse(handle.read(), filename=str(path))
    tree.body = kept(tree.body)
    return tree


def run_definitions(module, path):
    """Execute the definitions of `path` in `module`; a kernel launched meanwhile is not run."""
    import sys

    code = compile(script_definitions(path), str(path), "exec")
    interface = getattr(sys.modules.get("triton.runtime.jit"), "KernelInterface", None)
    original = interface.__getitem__ if interface is not None else None
    if interface is not None:
        interface.__getitem__ = lambda self, grid: (lambda *args, **kwargs: None)
    try:
        exec(code, vars(module))  # noqa: S102 - the user's own file, as importing it would
    finally:
        if interface is not None:
            interface.__getitem__ = original
