"""`torch.compile` in a whole run (`capture --as`): a compiled function runs as the Python it is.

Dynamo's first call of a compiled function asks what only a running GPU answers (the RNG state), and Inductor
would generate kernels for the machine at hand, not the target — so libraries that compile a host-side helper
(a gate's cumsum, a sort before a launch) stopped there, before their own Triton launches. Under the whole-run
mode `torch.compile(f)` gives `f` itself (a decorator with options gives a decorator that does), and Dynamo is
off for the process (TORCHDYNAMO_DISABLE, unless the user set it), so the library's own launches are reached.
What this leaves out is said once, when the first compiled function is called (a module: when it is compiled),
naming its line: the Triton kernels Inductor would generate from it on the GPU are not recorded (a capture on
the GPU records them: capture/inductor.py). A function only decorated, never called, is not said."""

from __future__ import annotations

import functools
import os
import sys
from typing import Any, Callable

from ttinspect.virtual import state
from ttinspect.virtual.refusal import user_line

Patch = Callable[[Any, str, Any], None]
DYNAMO_OFF = "TORCHDYNAMO_DISABLE"
_said: list[str] = []


def turn_dynamo_off() -> None:
    """Before torch is imported (its config reads the variable then); a choice of the user's stands."""
    os.environ.setdefault(DYNAMO_OFF, "1")


def install(torch: Any, patch: Patch) -> None:
    if not state.runs_nothing():  # only in a whole run: a report's import keeps torch.compile as it is
        return
    original = getattr(torch, "compile", None)
    if original is None:
        return

    @functools.wraps(original)
    def compile_eagerly(model: Any = None, *args: Any, **kwargs: Any) -> Any:
        if model is None:  # `@torch.compile(dynamic=True)`: the decorator it would give
            return lambda given: compile_eagerly(given)
        if isinstance(model, torch.nn.Module):  # what it computes is its own forward: said now
            _say_once(model, user_line())
            return model
        where = user_line()

        @functools.wraps(model)
        def called(*call_args: Any, **call_kwargs: Any) -> Any:
            _say_once(model, where)  # said where it matters: a function only decorated at import never runs
            return model(*call_args, **call_kwargs)
        return called

    patch(torch, "compile", compile_eagerly)


def _say_once(model: Any, where: str | None) -> None:
    if _said:
        return
    name = getattr(model, "__qualname__", None) or type(model).__name__
    _said.append(name)
    print(f"ttinspect: note: {name}{f' ({where})' if where else ''} is torch.compile'd: under --as it runs as "
          "plain Python (Dynamo needs a running GPU); the Triton kernels Inductor would generate from it on the "
          "GPU are not recorded (a capture on the GPU records them)", file=sys.stderr)
