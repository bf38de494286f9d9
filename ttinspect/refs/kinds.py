"""What kind of reference a command names: a shipped variant, a user's file, an entry of Triton's cache
(`cache:ID`), or (from the API) a kernel object — told from the text alone, without resolving it."""

from __future__ import annotations

from typing import Any

from ttinspect.refs.userfile import is_file_ref

CACHE_PREFIX = "cache:"


def kind_of(ref: Any) -> str:
    if not isinstance(ref, str):
        return "object"
    if ref.startswith(CACHE_PREFIX):
        return "cache"
    return "file" if is_file_ref(ref) else "variant"
