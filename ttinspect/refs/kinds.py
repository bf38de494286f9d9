"""What kind of reference a command names: a shipped variant, a user's file, a module (`pkg.mod:kernel`),
an entry of Triton's cache (`cache:ID`), a compile a run captured (`step.ttcap:kernel#2`), or (from the API)
a kernel object — told from the text alone (and a capture's first line), without running anything."""

from __future__ import annotations

import re
from typing import Any

from ttinspect.errors import UsageError
from ttinspect.kernel.catalog import get_variant
from ttinspect.refs.captured import is_capture_ref
from ttinspect.refs.packages import findable, is_dotted_name, module_head
from ttinspect.refs.userfile import FileRef, is_file_ref, parse_file_ref, parse_module_ref

CACHE_PREFIX = "cache:"


def kind_of(ref: Any) -> str:
    if not isinstance(ref, str):
        return "object"
    if ref.startswith(CACHE_PREFIX):
        return "cache"
    if is_capture_ref(ref):
        return "capture"
    if is_file_ref(ref):
        return "file"
    return "module" if is_module_ref(ref) else "variant"


def is_module_ref(text: str) -> bool:
    """`pkg.mod[:NAME...]` (a dotted head: no variant has a dot), or `mod:NAME` where `mod` is no shipped
    variant but a module Python finds and NAME a plain name (a variant's `opt:num_stages=3` holds `=`)."""
    head = module_head(text)
    if not is_dotted_name(head):
        return False
    if "." in head:
        return True
    name = re.split(r"[:@]", text[len(head) + 1:], maxsplit=1)[0] if text[len(head):].startswith(":") else ""
    if not name.isidentifier():
        return False
    try:
        get_variant(head)
        return False
    except UsageError:
        return findable(head)


# The kinds whose kernels live in the user's Python code (a file, a module): both give a `FileRef`.
SOURCE_KINDS = ("file", "module")


def parse_source_ref(text: str) -> FileRef:
    """A file or module reference, parsed (its file located without running it)."""
    return parse_file_ref(text) if is_file_ref(text) else parse_module_ref(text)
