"""Compile errors raised inside @triton.jit helpers (tl.exp takes fp32/fp64 only; the values are bf16): the
error names the helper's line and the call sites that led there (tests/test_release_suffix_round5.py)."""
import triton
import triton.language as tl

import helper_errors_lib as lib


@triton.jit
def tanh_by_exp(x):
    return 1.0 - tl.exp(-2.0 * x)  # line 11: the error


@triton.jit
def twice(x):
    return tanh_by_exp(x) * 2  # line 16: calls tanh_by_exp


@triton.jit
def one_helper(X, Y, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.store(Y + i, tanh_by_exp(tl.load(X + i)))  # line 22


@triton.jit
def two_helpers(X, Y, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.store(Y + i, twice(tl.load(X + i)))  # line 28


@triton.jit
def helper_of_another_module(X, Y, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.store(Y + i, lib.exp_of(tl.load(X + i)))  # line 34


@triton.jit
def inside_triton_library(X, Y, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.store(Y + i, tl.sigmoid(tl.load(X + i)))  # line 40


@triton.jit
def no_helper(X, Y, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.store(Y + i, tl.exp(tl.load(X + i)))  # line 46
