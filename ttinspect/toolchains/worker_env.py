"""What a toolchain's worker knows of the process that started it, said through environment variables the client
sets (remote.py) and read inside the worker:

- that it runs for `REF@triton=X` (its Triton is the toolchain's, not this machine's installed one) and which
  Triton the caller has, so a message written there names each release for what it is (refs/triton_release.py:
  "this compile uses Triton 3.8.0, the toolchain REF@triton=3.8.0 names (this machine has Triton 3.9.0)");
- the folders of the packages the reference names as the caller finds them (refs/caller_packages.py), so the
  worker compiles the user's file of an installed library, not the toolchain's own install of it.
"""

from __future__ import annotations

import json
import os
from typing import Mapping

ENV = "TTINSPECT_TOOLCHAIN_CALLER_TRITON"  # the caller's installed Triton release ("" when it has none)
PACKAGES_ENV = "TTINSPECT_TOOLCHAIN_CALLER_PACKAGES"  # JSON: top-level package name -> the caller's folder of it


def for_worker(caller_release: str | None, packages: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment entries a worker is started with."""
    return {ENV: caller_release or "", PACKAGES_ENV: json.dumps(dict(packages or {}), sort_keys=True)}


def in_toolchain() -> bool:
    """Whether this process is a toolchain's worker (its Triton is the one REF@triton=X asked for)."""
    return ENV in os.environ


def caller_release() -> str | None:
    """The installed Triton of the process that started this worker; None when it has none or this is no worker."""
    return os.environ.get(ENV) or None


def caller_packages() -> dict[str, str]:
    """Top-level package -> the caller's folder (or file) of it; empty outside a worker. The value is written by
    the client that started this process: anything but a mapping of names to absolute paths is ignored."""
    try:
        found = json.loads(os.environ.get(PACKAGES_ENV) or "{}")
    except ValueError:
        return {}
    if not isinstance(found, dict):
        return {}
    return {name: path for name, path in found.items()
            if isinstance(name, str) and name.isidentifier() and isinstance(path, str) and os.path.isabs(path)}
