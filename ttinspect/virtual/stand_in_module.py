"""A module that stands in for one this machine cannot have for the target (a library's compiled CUDA extension
its install lacks, an extension the program builds at run time): its names import and read, and any use of
one — a call, an attribute of it — is refused in one line naming the line that used it, like the virtual
device's refusals. What it stands in for is said by whoever makes it (`stand_in(name, said)`)."""

from __future__ import annotations

import types
from typing import Any

from ttinspect.virtual import state
from ttinspect.virtual.refusal import refuse


class StandIn(types.ModuleType):
    """The module stood in for: each of its names stands in too (`from pkg.cuda import fwd` imports)."""

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)  # the import system's and tools' probes (hasattr(m, "__file__"))
        return StandInName(f"{self.__name__}.{attr}", vars(self)["_ttinspect_said"])


class StandInName:
    """A name of the module stood in for, imported or read: using it is refused where it is used."""

    def __init__(self, qualname: str, said: str):
        self._qualname, self._said = qualname, said

    def _refused(self, asked: str) -> Exception:
        return refuse(asked, state.current().label, f"stands in for: {self._said}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise self._refused(self._qualname)

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        raise self._refused(f"{self._qualname}.{attr}")

    def __repr__(self) -> str:
        return f"<{self._qualname}: stands in for a module not on this machine>"


def stand_in(name: str, said: str) -> StandIn:
    """A stand-in module named `name`; `said` is what it stands in for, as its refusals say it."""
    module = StandIn(name)
    vars(module)["_ttinspect_said"] = said
    return module
