"""A kernel written for an older Triton than the installed one: the compile error names what the release removed
and the release that compiles the kernel as written (`REF@triton=X.Y.Z`), measured (compile/failures.py)."""

from __future__ import annotations

import textwrap

import pytest
from cli_helpers import assert_error_first_line, run_cli
from triton_features import BLOCK_POINTERS

from ttinspect.errors import EXIT_COMPILE

BLOCK_POINTER_KERNEL = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def copy_rows(x, y, n, BLOCK: tl.constexpr):
        src = tl.make_block_ptr(x, shape=(n,), strides=(1,), offsets=(0,), block_shape=(BLOCK,), order=(0,))
        tl.store(y + tl.arange(0, BLOCK), tl.load(src, boundary_check=(0,)))
""")


@pytest.mark.skipif(BLOCK_POINTERS, reason="this Triton still compiles block pointers")
def test_block_pointers_removed_name_the_release_that_compiles_them(tmp_path):
    (tmp_path / "k.py").write_text(BLOCK_POINTER_KERNEL)
    result = run_cli("report", tmp_path / "k.py:copy_rows", "--arch", "sm_90", "--signature",
                     "*fp32, *fp32, i32", "--set", "BLOCK=128")
    line = assert_error_first_line(result, EXIT_COMPILE, "k.py:7", "Block pointers have been removed")
    assert "were removed in Triton 3.9; Triton 3.8.0 compiles the kernel as written: REF@triton=3.8.0" in line


@pytest.mark.parametrize("message", ["tl.foo has been removed; use tl.bar", "X was removed in favor of Y",
                                     "this op is no longer supported"])
def test_any_removal_triton_words_points_at_an_older_release(message):
    from ttinspect.compile.failures import _removed_meaning

    meaning = _removed_meaning(message)
    assert "an older release compiles it as written (REF@triton=X.Y.Z" in meaning


def test_a_failure_that_is_no_removal_says_nothing_more():
    from ttinspect.compile.failures import _removed_meaning

    assert _removed_meaning("unsupported layout conversion") == ""
