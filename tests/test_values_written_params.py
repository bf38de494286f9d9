"""`capture --as ARCH --values`: which parameters a recorded launch may write through (kernel/written_params.py),
so that host code reading a kernel's read-only input afterwards is answered. The kernels are in
tests/data/values_written/; the analysis reads their source, nothing is compiled."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest
from cli_helpers import run_process

from ttinspect.kernel import written_params
from ttinspect.kernel.written_params import ParamWrites, param_writes, written_values

DATA = Path(__file__).parent / "data" / "values_written"


@pytest.fixture(scope="module")
def kernels():
    pytest.importorskip("triton")
    spec = importlib.util.spec_from_file_location("values_written_kernels", DATA / "kernels.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True)
def fresh_cache():
    written_params.reset()
    yield
    written_params.reset()


@pytest.mark.parametrize(("kernel", "written", "read_only"), [
    ("store_one", {"out_ptr"}, {"x_ptr"}),
    ("gather", {"out_ptr"}, {"x_ptr", "idx_ptr"}),
    ("scatter", {"out_ptr"}, {"x_ptr", "idx_ptr"}),  # an index loaded and cast to a scalar type: still out_ptr
    ("histogram", {"counts_ptr"}, {"x_ptr"}),  # atomic_add
    ("block_pointer", {"out_ptr"}, {"x_ptr"}),
    ("device_descriptor", {"out_ptr"}, {"x_ptr"}),  # tl.make_tensor_descriptor(...).store
    ("host_descriptor", {"out_desc"}, {"x_desc"}),  # a TensorDescriptor given by the host
    ("through_helpers", {"out_ptr"}, {"x_ptr"}),  # a @jit helper that stores, one that only loads: followed
    ("returned_pointer", {"out_ptr"}, {"x_ptr"}),  # a helper handing back pointer arithmetic
    ("alias", {"out_ptr", "x_ptr"}, set()),  # swapped under an `if`: either may be the one stored through
    ("alias_chain", {"out_ptr", "x_ptr"}, set()),  # through names assigned in a loop
    ("pointer_tuple", {"out_ptr", "a_ptr"}, {"b_ptr"}),  # a tuple's elements are not told apart
    ("read_and_write", {"x_ptr"}, set()),
    ("casts_to_a_constexpr_type", {"out_ptr"}, {"x_ptr"}),  # a value cast to a constexpr dtype is not a pointer
    ("reduces", {"out_ptr"}, {"x_ptr"}),  # tl.reduce with a @jit combine function that writes nothing
    ("leaks_an_address", {"table_ptr", "x_ptr"}, set()),  # x_ptr's address stored: whoever loads it may write
])
def test_the_parameters_a_kernel_may_write_through(kernels, kernel, written, read_only):
    writes = param_writes(getattr(kernels, kernel))
    assert writes.unknown is None
    assert {name for name in written | read_only if writes.may_write(name)} == written


@pytest.mark.parametrize(("kernel", "reason", "line_of"), [
    ("inline_asm", "inline_asm calls tl.inline_asm_elementwise, which is not understood", "y = tl.inline_asm"),
    ("calls_a_parameter", "calls_a_parameter calls ACTIVATION, which is not understood", "ACTIVATION(tl.load"),
    ("casts_an_integer", "casts_an_integer writes through a pointer not traced to a parameter", "address.to("),
])
def test_what_is_not_understood_counts_every_parameter_as_written(kernels, kernel, reason, line_of):
    writes = param_writes(getattr(kernels, kernel))
    assert writes.may_write("x_ptr")
    lines = (DATA / "kernels.py").read_text().splitlines()
    line = next(number for number, text in enumerate(lines, 1) if line_of in text)
    assert writes.unknown == f"{reason} ({DATA / 'kernels.py'}:{line})"


@pytest.mark.parametrize(("given", "understood"), [
    ({"ACTIVATION": None}, True),  # guarded by `if ACTIVATION is not None`, or a compile that fails
    ({"ACTIVATION": "_add"}, True),  # a @jit function that writes nothing: followed
    ({"ACTIVATION": "_store_tile"}, False),  # it stores through a loaded value: traced to no parameter
    ({}, False),
])
def test_a_parameter_called_as_a_function_is_read_as_the_launch_gave_it(kernels, given, understood):
    given = {name: getattr(kernels, value) if value else value for name, value in given.items()}
    writes = param_writes(kernels.calls_a_parameter, {"x_ptr": object(), **given})
    assert (writes.unknown is None) == understood, writes.unknown
    assert writes.may_write("out_ptr") and writes.may_write("x_ptr") != understood


def stand_in(name: str, source: str, **module_globals):
    """A @jit function as the analysis reads it (`src`, and `fn` with its module's globals)."""
    namespace = dict(module_globals)
    exec(compile(f"def {name}(*args):\n    pass\n", "stand_in.py", "exec"), namespace)  # noqa: S102 - test text
    return type("StandIn", (), {"src": source, "fn": staticmethod(namespace[name]), "file_name": "stand_in.py",
                                "def_file_line_number": 10})()


def test_a_helper_whose_source_cannot_be_read_counts_as_writing(kernels):
    broken = stand_in("helper", "def helper(p:\n")
    kernel = stand_in("kern", "def kern(x_ptr, out_ptr):\n    helper(x_ptr)\n", helper=broken)
    writes = param_writes(kernel)
    assert writes.may_write("x_ptr") and writes.may_write("out_ptr")
    assert writes.unknown == ("kern calls helper, where the source of helper cannot be read (stand_in.py:11)")


def test_a_kernel_is_read_once(kernels):
    assert param_writes(kernels.gather) is param_writes(kernels.gather)


@pytest.mark.parametrize(("writes", "expected"), [
    (ParamWrites(frozenset({"out"})), ["o", "extra"]),
    (ParamWrites(frozenset(), "not understood"), ["i", "o", "extra"]),
])
def test_the_values_a_launch_may_have_written(writes, expected):
    assert written_values(writes, {"inp": "i", "out": "o"}, ["extra"]) == expected


def test_a_pointer_type_given_for_a_written_parameter_makes_every_value_written(kernels):
    """A constexpr the body casts to, given a pointer type: the pointer it makes may point anywhere."""
    pointer = kernels.tl.pointer_type(kernels.tl.float32)
    bound = {"inp": "i", "out": "o", "DTYPE": pointer}
    assert written_values(ParamWrites(frozenset({"out", "DTYPE"})), bound, []) == ["i", "o", pointer]


@pytest.mark.slow
@pytest.mark.parametrize(("read", "answered"), [
    ("idx", True),  # only loaded by the kernel: torch's values still hold
    ("x", True),
    ("out", False),  # stored through
    ("x_as_out", False),  # the same storage given as the output too
    ("x_after_asm", False),  # a kernel the analysis does not understand: everything it was given
])
def test_host_code_reads_what_the_kernel_only_read(tmp_path, read, answered):
    pytest.importorskip("torch")
    pytest.importorskip("triton")
    shutil.copy(DATA / "program.py", tmp_path / "prog.py")
    done = run_process("capture", "--as", "sm_90", "--values", "-o", "run.ttcap", "--", sys.executable, "prog.py",
                       read, cwd=tmp_path)
    if answered:
        assert done.returncode == 0, done.stderr
        assert "read 7" in done.stdout
    else:
        assert done.returncode != 0
        kernel = "copy_asm" if read == "x_after_asm" else "gather"
        assert f"asks Tensor.item() of values that kernel {kernel} (launched at prog.py:" in done.stderr
