"""A target by the name a user writes (`--arch sm_90`, `sm90`, `90`, `cuda:90`, `gfx942`, `hip:gfx942`), either
vendor: the one place that reads both tables (targets/nvidia.py, targets/amd.py) and names what an unknown target
needs (targets/releases.py)."""

from __future__ import annotations

import re

from ttinspect.errors import UsageError
from ttinspect.targets.amd import AMD_TARGETS
from ttinspect.targets.nvidia import TARGETS, Target
from ttinspect.targets.releases import describe_unknown_target

_ARCH_RE = re.compile(r"^(?:sm_?|cuda:)?(\d{2,3})(a?)$")


def parse_arch(text: str) -> Target:
    """Accepts sm_90, sm90, sm_90a, 90, cuda:90; gfx942, hip:gfx942. `native` is resolved by the compile
    module."""
    if not text.strip():
        raise UsageError(f"empty arch; valid: {', '.join(all_names())}, native")
    if text.lower().startswith(("gfx", "hip:")):
        return parse_amd(text)
    match = _ARCH_RE.fullmatch(text.lower())
    if match and match.group(2) and int(match.group(1)) < 90:
        raise UsageError(f"{text}: arch-specific ('a') targets begin at sm_90; use sm_{match.group(1)}")
    if match and f"sm_{match.group(1)}" in TARGETS:
        # sm_90a is sm_90 as Triton compiles it: for 9.0 and later it emits the arch-specific PTX target
        # itself (the header names the PTX's .target)
        return TARGETS[f"sm_{match.group(1)}"]
    if match:
        raise UsageError(describe_unknown_target(f"sm_{match.group(1)}"))
    raise UsageError(f"unknown arch {text!r}; valid: {', '.join(all_names())}, native")


def all_names() -> list[str]:
    """Every target name ttinspect has limits for: NVIDIA's, then AMD's."""
    return [*TARGETS, *AMD_TARGETS]


def lookup(name: str) -> Target | None:
    """A target by its exact name, either vendor."""
    return TARGETS.get(name) or AMD_TARGETS.get(name)


def from_capability(capability: int) -> Target:
    name = f"sm_{capability}"
    if name not in TARGETS:
        raise UsageError(f"GPU compute capability {capability} is not one ttinspect knows; "
                         f"known: {', '.join(TARGETS)}")
    return TARGETS[name]


def parse_amd(text: str) -> Target:
    """gfx942, hip:gfx942 (any case)."""
    name = text.lower().removeprefix("hip:")
    if name in AMD_TARGETS:
        return AMD_TARGETS[name]
    raise UsageError(describe_unknown_target(name))
