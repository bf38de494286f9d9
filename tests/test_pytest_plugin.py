"""The pytest plugin (ttinspect/pytest_plugin.py): the `ttinspect` fixture, `expect`, the failure
sections, the entry point, and that loading it costs nothing in sessions that do not use it.

Inner sessions run through pytester in-process (fast) and share this session's artifact cache
(TTINSPECT_CACHE_DIR, set by conftest.py, is inherited), so each kernel compiles once per session.
"""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import textwrap

import pytest

from ttinspect import UsageError, inspect
from ttinspect.pytest_plugin import ExpectationFailed, expect

pytest_plugins = ["pytester"]

# pytester's inline runs put sys.modules back as it was before each run: a Triton first imported inside one
# is dropped after it, and importing Triton's native extension a second time aborts the process (SIGABRT,
# seen when this file runs alone). Imported here once, it stays for every inline run.
pytest.importorskip("triton")

# A user's own kernel, written next to the inner test files.
USER_KERNEL = '''
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))
'''

USER_ARGS = '''
from ttinspect import Pointer
ARGS = {"a_ptr": Pointer("fp16"), "b_ptr": Pointer("fp16"), "c_ptr": Pointer("fp16"),
        "M": 4096, "N": 4096, "K": 4096, "stride_am": 4096, "stride_ak": 1,
        "stride_bk": 4096, "stride_bn": 1, "stride_cm": 4096, "stride_cn": 1}
CONFIG = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "num_warps": 4, "num_stages": 3}
'''


@pytest.fixture(scope="module", autouse=True)
def _triton_loaded_once():
    # In-process inner sessions drop the modules they imported when they end; triton's C extension
    # cannot be imported a second time, so it is imported here, out here, first.
    importlib.import_module("ttinspect.compile")


@pytest.fixture(autouse=True)
def _autoload(monkeypatch):
    # The inner sessions find the plugin through its entry point, as a user's session does.
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)


@pytest.fixture(scope="module")
def opt3():
    return inspect("opt", arch="sm_90", num_stages=3)


@pytest.fixture(scope="module")
def add():
    return inspect("add", arch="sm_90")  # no loop: pipeline_depth is unknown, with a reason


# --- through pytest: fixture, messages, sections ---------------------------------------------

def test_fixture_passing_session(pytester):
    pytester.makepyfile(userkern=USER_KERNEL, userargs=USER_ARGS)
    pytester.makepyfile(test_ok='''
        from ttinspect.pytest_plugin import expect
        from userargs import ARGS, CONFIG
        from userkern import matmul_kernel

        def test_shipped_variant(ttinspect):
            r = ttinspect.inspect("opt", arch="sm_90", num_stages=3)
            assert r.pipeline_depth == 3
            ttinspect.expect(r, pipeline_depth=3, tensor_core_path="wgmma", max_shared_memory=49152,
                             min_pipeline_depth=3, wait_group=[2],
                             loop_wgmma={"m64n32k16.f32.f16.f16": 4})

        def test_own_kernel(ttinspect):
            r = ttinspect.inspect_jit(matmul_kernel, ARGS, CONFIG, arch="sm_80")
            assert expect(r, pipeline_depth=3, tensor_core_path="mma.sync",
                          max_shared_memory=48 * 1024) is r

        def test_diff(ttinspect):
            d = ttinspect.diff("opt", "opt:num_stages=3", arch="sm_90")
            assert d.change("pipeline_depth").after == 3
            assert len(ttinspect.reports) == 2
    ''')
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    result.stdout.no_fnmatch_line("*ttinspect: *on sm_*---*")  # no sections for passing tests


def test_failing_expect_lists_mismatches_their_evidence_and_the_command_for_the_rest(pytester):
    pytester.makepyfile(test_fail='''
        def test_depth(ttinspect):
            r = ttinspect.inspect("opt", arch="sm_90", num_stages=3)
            ttinspect.expect(r, pipeline_depth=4, tensor_core_path="wgmma", max_shared_memory=16384)
    ''')
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "E*ExpectationFailed: ttinspect: 2 of 3 expectation(s) failed for opt:num_stages=3 on sm_90*",
        "E*  pipeline_depth: expected 4, got 3",
        "E*pipeline depth (num_stages): *Two witnesses agree: PTX wait_group 2 / 2 commit groups per iteration + 2*",
        "E*ptx:*  cp.async.wait_group 2;",  # the line that shows it
        "E*  max_shared_memory: expected <= 16384, got 30720",
        "E*dynamic shared memory per CTA*",
        "E*every fact: ttinspect report opt:num_stages=3 --arch sm_90 --explain",
        "E*the main loop: ttinspect dump opt:num_stages=3 --arch sm_90 --loop*",
    ])
    text = result.stdout.str()
    assert "tensor_core_path: expected" not in text  # the passing check is not listed
    assert "main loop PTX:" not in text and "ttinspect report:" not in text  # the rest is a command away
    assert "-- ttinspect: opt:num_stages=3 on sm_90 --" not in text
    assert len(text.splitlines()) < 40, text  # was ~610 lines: every fact and the whole main-loop PTX
    verbose = pytester.runpytest("-p", "no:cacheprovider", "-vv")
    verbose.assert_outcomes(failed=1)
    verbose.stdout.fnmatch_lines(["*-- ttinspect: opt:num_stages=3 on sm_90 --*", "  pipeline_depth = 3",
                                  "main loop PTX:", "*wgmma.mma_async*"])


def test_bare_assert_gets_facts_section_only_where_the_fixture_was_used(pytester):
    pytester.makepyfile(test_bare='''
        import pytest
        import ttinspect as tti

        @pytest.fixture(scope="module")
        def naive():
            return tti.inspect("naive", arch="sm_90")   # made without the fixture, handed to the test

        def test_bare(ttinspect):
            r = ttinspect.inspect("opt", arch="sm_90", num_stages=3)
            assert r.pipeline_depth == 4

        def test_other_fixture_report(ttinspect, naive):
            assert naive.tensor_core_path == "mma.sync"

        def test_no_fixture():
            r = tti.inspect("opt", arch="sm_90", num_stages=3)
            assert r.pipeline_depth == 5

        def test_bad_key_is_an_error_not_an_assertion(ttinspect):
            ttinspect.expect(ttinspect.inspect("opt", arch="sm_90", num_stages=3), pipline_depth=3)
    ''')
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines([
        "*_ test_bare _*",
        "E*assert 3 == 4",
        "*-- ttinspect: opt:num_stages=3 on sm_90 --*",
        "ttinspect report: opt:num_stages=3 on sm_90 (Triton *)",
        "  pipeline_depth = 3",
        "  loop_wait_group = 2",
        "  tensor_core_path = wgmma",
        "main loop PTX:",
        "*cp.async.wait_group*2;",
        "*_ test_other_fixture_report _*",
        "*-- ttinspect: naive on sm_90 --*",
        "  tensor_core_path = wgmma",
        "*_ test_no_fixture _*",
    ])
    text = result.stdout.str()
    no_fixture = text[text.index("_ test_no_fixture _"):text.index("_ test_bad_key")]
    assert "ttinspect report:" not in no_fixture  # isolation: untouched without the fixture
    bad_key = text[text.index("_ test_bad_key"):]
    assert "UsageError: expect(): unknown fact key(s) 'pipline_depth'" in bad_key
    assert "ttinspect report:" not in bad_key.split("short test summary")[0]


def test_report_equality_shows_differing_facts(pytester):
    pytester.makepyfile(test_eq='''
        def test_same(ttinspect):
            assert ttinspect.inspect("opt", arch="sm_90") == ttinspect.inspect("opt:num_stages=3@sm_90")
    ''')
    result = pytester.runpytest("-p", "no:cacheprovider", "-vv")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "E*ttinspect Report opt on sm_90 == opt:num_stages=3 on sm_90",
        "E*differing facts (left != right):",
        "E*  pipeline_depth: 4 != 3",
        "E*  loop_wait_group: 4 != 2",
    ])


def test_registered_through_the_entry_point(pytester):
    eps = importlib.metadata.entry_points(group="pytest11")
    assert [ep.value for ep in eps if ep.name == "ttinspect"] == ["ttinspect.pytest_plugin"]
    result = pytester.runpytest("--trace-config", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["registered third-party plugins:", "*ttinspect-*pytest_plugin.py*"])
    result = pytester.runpytest("--fixtures", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*fixtures defined from ttinspect.pytest_plugin*", "ttinspect -- *"])
    result = pytester.runpytest("--fixtures", "-p", "no:ttinspect", "-p", "no:cacheprovider")
    result.stdout.no_fnmatch_line("ttinspect -- *")


def test_loading_the_plugin_imports_nothing_heavy(pytester):
    heavy = ("triton", "torch", "rich", "numpy", "ttinspect.report.collect", "ttinspect.engine.builds")
    probe = ("import sys, ttinspect.pytest_plugin as p; "
             f"print([m for m in {heavy!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": ""})
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
    # A whole user session that does not use the plugin: loaded (entry point), yet nothing imported.
    pytester.makepyfile(test_plain=textwrap.dedent(f'''
        import sys

        def test_plain():
            assert "ttinspect.pytest_plugin" in sys.modules
            assert [m for m in {heavy!r} if m in sys.modules] == []
    '''))
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


# --- expect itself -----------------------------------------------------------------------------

def test_expect_passes_and_returns_the_report(opt3):
    assert expect(opt3, pipeline_depth=3, tensor_core_path="wgmma", num_warps=4,
                  tensor_core_ops_per_iteration=4, loop_wait_group=(2,), wait_group=[2],
                  block_sizes={"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32,
                               "GROUP_SIZE_M": 8}) is opt3


def test_budgets(opt3):
    expect(opt3, max_shared_memory=49152, min_pipeline_depth=3, max_pipeline_depth=3,
           max_tensor_core_ops_per_iteration=8)
    with pytest.raises(ExpectationFailed) as info:
        expect(opt3, max_shared_memory=16 * 1024, min_pipeline_depth=4, max_num_warps=8)
    message = str(info.value)
    assert "2 of 3 expectation(s) failed" in message
    assert "max_shared_memory: expected <= 16384, got 30720" in message
    assert "min_pipeline_depth: expected >= 4, got 3" in message
    assert "max_num_warps" not in message
    assert info.value.report is opt3 and len(info.value.mismatches) == 2
    with pytest.raises(UsageError, match="numeric facts only; tensor_core_path is 'wgmma'"):
        expect(opt3, max_tensor_core_path=3)
    with pytest.raises(UsageError, match="needs a number"):
        expect(opt3, max_shared_memory="48k")


def test_unknown_facts_fail_with_their_reason(add):
    fact = add.fact("pipeline_depth")
    assert fact.value is None and fact.unknown
    expect(add, pipeline_depth=None, tensor_core_path="none")  # None: "this fact is unknown"
    for check in ({"pipeline_depth": 1}, {"min_pipeline_depth": 1}):
        with pytest.raises(ExpectationFailed) as info:
            expect(add, **check)
        assert f"got unknown ({fact.unknown})" in str(info.value)


def test_unknown_keys_list_the_valid_ones(opt3):
    with pytest.raises(UsageError) as info:
        expect(opt3, pipline_depth=3, tensor_core_path="wgmma")
    message = str(info.value)
    assert "unknown fact key(s) 'pipline_depth' (did you mean pipeline_depth" in message
    assert "Valid keys: block_sizes, num_warps," in message and "tensor_core_path" in message
    assert "max_<key> / min_<key>" in message
    with pytest.raises(UsageError, match="max_shared_memory"):
        expect(opt3, max_shared_memry=1)
    with pytest.raises(UsageError, match="at least one"):
        expect(opt3)
    with pytest.raises(UsageError, match="not a kernel reference"):
        expect({"pipeline_depth": 3}, pipeline_depth=3)


def test_a_diff_from_another_fixture_is_shown_on_failure():
    """A Diff handed to the test by another fixture contributes both its reports to the failure output."""
    from types import SimpleNamespace

    from test_render_text import fixture_report

    from ttinspect.compare.facts_diff import diff_reports
    from ttinspect.pytest_plugin import _reports_of

    a, b = fixture_report("naive-sm_89"), fixture_report("opt-sm_89")
    item = SimpleNamespace(stash={}, funcargs={"d": diff_reports(a, b), "other": 3})
    assert _reports_of(item) == [a, b]
