"""What `--device-props` does beyond the virtual device's answers (virtual/): the limits it gives reach every
build's target (fits, occupancy and check read them: targets/device_limits.py), the other vendor's toolkit
version is refused whatever the reference, and a value nothing read is said to have changed nothing."""

from __future__ import annotations

import dataclasses
from typing import Iterable, Mapping

from ttinspect.caches.store import warn
from ttinspect.engine.builds import Build, check_launchable
from ttinspect.targets.device_limits import LIMIT_OF_PROPERTY, with_device_props
from ttinspect.targets.nvidia import Target
from ttinspect.virtual.overrides import check_vendor


def own_limits(builds: list, props: Mapping[str, object], keep_going: bool) -> list:
    """Each build's target with the part's limits, and a kernel too big for it refused as its launch would be
    (unless `keep_going`: a table of configs shows it as not fitting)."""
    for built in builds:  # a shipped variant's too: the option's mistake whatever the reference
        if isinstance(built, Build):
            check_vendor(dict(props), built.target.amd is not None, built.target.name)
    if not any(key in props for key in LIMIT_OF_PROPERTY):
        return builds
    out = []
    for built in builds:
        if isinstance(built, Build):
            built = dataclasses.replace(built, target=with_device_props(built.target, props))
            if not keep_going:
                check_launchable(built)
        out.append(built)
    return out


def unread(props: Iterable[str], target: Target) -> list[str]:
    """The given properties no kernel's code asked for and no fact reads (the limits do; registers on NVIDIA)."""
    read = set(LIMIT_OF_PROPERTY) - ({"regs_per_multiprocessor"} if target.amd is not None else set())
    return [key for key in props if key not in read]


def warn_unread(keys: list[str], whose: str) -> None:
    if keys:
        warn(f"--device-props {', '.join(keys)}: {whose} the device nothing, so it changed nothing")
