"""The installed Triton's release, (major, minor): what every version difference in compile/ is keyed by."""

from __future__ import annotations

import triton

from ttinspect.targets.releases import release

VERSION: tuple[int, int] = release(triton.__version__)
