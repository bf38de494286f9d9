"""The `@triton=X.Y.Z` suffix of a reference, read once at the boundary: any reference (a variant, a file, a
module, one kernel of a capture, or a whole capture) may end in it, and it means the same for each — every
compile it names is made by that Triton release (in a toolchain of its own, ttinspect/toolchains/). The
resolver splits it off before telling the kind; a whole capture's reader (refs/captured.py) keeps it and gives
it to each compile the capture holds, so `check`, `predict`, `html` and `list` of `step.ttcap@triton=3.8.0`
compile each kernel as `step.ttcap:KERNEL@triton=3.8.0` does."""

from __future__ import annotations

from ttinspect.errors import UsageError

TRITON_MARK = "@triton="


def split_triton(ref: str) -> tuple[str, str | None]:
    """`opt:num_stages=3@sm_90@triton=3.5.1` -> (`opt:num_stages=3@sm_90`, "3.5.1"); a release that is no
    X.Y.Z ttinspect drives is one line."""
    if TRITON_MARK not in ref:
        return ref, None
    # the toolchains' registry: only for a reference that names another release
    from ttinspect.toolchains.registry import check_format, check_version

    if ref.count(TRITON_MARK) > 1:
        raise UsageError(f"kernel reference {ref!r}: one @triton= at most")
    head, _, rest = ref.partition(TRITON_MARK)
    version, sep, tail = rest.partition("@")

    try:
        check_format(version)
    except UsageError:
        raise UsageError(f"kernel reference {ref!r}: @triton= takes a release X.Y.Z, e.g. opt@triton=3.5.1") from None
    check_version(version)
    return head + (f"@{tail}" if sep else ""), version


def with_release(ref: str, release: str | None) -> str:
    """A reference given the release suffix (none: as it is)."""
    return f"{ref}{TRITON_MARK}{release}" if release else ref
