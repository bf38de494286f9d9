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


def load_kernels(file_name: str):
    pytest.importorskip("triton")
    spec = importlib.util.spec_from_file_location(f"values_written_{Path(file_name).stem}", DATA / file_name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def kernels():
    return load_kernels("kernels.py")


@pytest.fixture(scope="module")
def adversarial():
    """Kernels that try to hide a write (tests/data/values_written/adversarial.py)."""
    return load_kernels("adversarial.py")


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
    ("advanced_block_pointer", {"out_ptr"}, {"x_ptr"}),  # read through tl.advance
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


@pytest.mark.parametrize(("kernel", "written", "read_only"), [
    ("tuple_from_helper", {"out_ptr"}, set()),  # a helper's tuple: its elements are not told apart
    ("list_indexed", {"out_ptr"}, set()),
    ("where_pointer", {"out_ptr"}, {"x_ptr"}),
    ("advanced_in_loop", {"out_ptr"}, {"x_ptr"}),  # a block pointer advanced in a loop, stored through
    ("descriptor_atomic", {"out_ptr"}, {"x_ptr"}),  # a device descriptor's atomic_add
    ("atomics_with_sem", {"out_ptr", "lock_ptr"}, {"x_ptr"}),
    ("store_by_keyword", {"out_ptr"}, {"x_ptr"}),  # tl.store(value=..., pointer=...)
    ("store_in_ranges", {"out_ptr"}, {"x_ptr"}),  # tl.static_range, tl.range
    ("nested_keywords", {"out_ptr"}, {"x_ptr"}),  # helpers called by keyword, a default left out
    ("module_attribute_helper", {"out_ptr"}, {"x_ptr"}),  # helper_lib.store_tile(...)
    ("imported_helper", {"out_ptr"}, {"x_ptr"}),  # a helper imported from another module under a new name
    ("plus_zero_to_helper", {"out_ptr"}, {"x_ptr"}),  # `out_ptr + 0` given to a helper that stores
    ("libdevice_math", {"out_ptr"}, {"x_ptr"}),
    ("shadowed", {"out_ptr"}, set()),  # a parameter assigned another: both count
    ("loop_over_pointers", {"a_ptr", "out_ptr"}, set()),  # for p in (a, b): tl.store(p + i, v)
    ("walrus", {"out_ptr"}, {"x_ptr"}),
    ("augmented", {"out_ptr"}, set()),  # p += out_ptr - x_ptr
    ("both_branches", {"out_ptr", "other_ptr"}, {"x_ptr"}),
    ("while_loop", {"out_ptr"}, set()),  # assigned after the store in a loop: the next iteration stores through it
    ("early_return", {"out_ptr"}, {"x_ptr"}),
    ("pointer_method_store", {"out_ptr"}, {"x_ptr"}),  # (out_ptr + offs).store(v)
    ("closure_kernel", {"out_ptr"}, {"x_ptr"}),  # a closure's helper shadows the module's read-only one
    ("gluon_atomic", {"out_ptr"}, {"x_ptr"}),  # a Gluon kernel that calls only the language's own ops
])
def test_a_write_the_kernel_hides_is_found(adversarial, kernel, written, read_only):
    writes = param_writes(getattr(adversarial, kernel))
    assert writes.unknown is None, writes.unknown
    assert {name for name in written | read_only if writes.may_write(name)} == written


@pytest.mark.parametrize(("kernel", "given", "reason"), [
    ("recursive", {}, "is called recursively"),
    ("cast_to_pointer", {}, "writes through a pointer not traced to a parameter"),  # tl.cast(p, pointer_type)
    ("method_cast_to_pointer", {}, "writes through a pointer not traced to a parameter"),  # p.to(pointer_type)
    ("address_round_trip", {}, "writes through a pointer not traced to a parameter"),  # int64 back to a pointer
    ("constexpr_helper", {}, "calls STORE, which is not understood"),  # no launch says what STORE is
    ("extern_call", {}, "calls tl.core.extern_elementwise, which is not understood"),  # any bitcode library
    ("gluon_kernel", {}, "calls gl.arange, which is not understood"),
    ("tuned", {}, "the source of the kernel cannot be read"),  # the Autotuner (a launch reads its JITFunction)
    ("namespace_default", {}, "namespace_default is given an object of type type for OPS"),  # OPS.max: a store
    ("namespace_constexpr", {"OPS": "Ops"}, "namespace_constexpr is given an object of type type for OPS"),
])
def test_a_write_the_analysis_cannot_follow_counts_every_parameter(adversarial, kernel, given, reason):
    given = {name: getattr(adversarial, value) for name, value in given.items()}
    writes = param_writes(getattr(adversarial, kernel), given)
    assert writes.may_write("out_ptr") and writes.may_write("x_ptr")
    assert reason in (writes.unknown or "")


def test_a_helper_given_as_a_constexpr_is_followed(adversarial):
    writes = param_writes(adversarial.constexpr_helper, {"STORE": adversarial.helper_lib.store_tile, "BLOCK": 16})
    assert writes.unknown is None
    assert writes.may_write("out_ptr") and not writes.may_write("x_ptr")


def test_a_launchs_plain_values_keep_the_answer(adversarial):
    torch = pytest.importorskip("torch")
    tensor = torch.zeros(4)
    tl = adversarial.tl
    given = {"x_ptr": tensor, "out_ptr": (tensor, None), "STORE": adversarial.helper_lib.store_tile,
             "BLOCK": tl.constexpr(16)}
    assert param_writes(adversarial.constexpr_helper, given).unknown is None


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
    writes = param_writes(kernels.calls_a_parameter, {"x_ptr": 0, **given})
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


@pytest.mark.slow
def test_a_kernel_that_writes_through_an_address_makes_every_address_taken_unknown(tmp_path):
    """The analysis cannot follow a pointer cast: the kernel may write anywhere the program gave it an address
    of — every tensor whose data_ptr() was taken is unknown after the launch; one whose address never left stays
    known."""
    pytest.importorskip("torch")
    pytest.importorskip("triton")
    shutil.copy(DATA / "address_table.py", tmp_path / "prog.py")
    done = run_process("capture", "--as", "sm_90", "--values", "-o", "run.ttcap", "--", sys.executable, "prog.py",
                       cwd=tmp_path)
    assert done.returncode != 0 and "y 0.0" in done.stdout and "x " not in done.stdout, done.stdout
    assert "prog.py:23 asks Tensor.__float__() of values that kernel through_table (launched at prog.py:21)" \
        in " ".join(done.stderr.split()), done.stderr
