"""`bench` and `profile` of captured kernels (FILE.ttcap:KERNEL[#N][:KEY=VALUE,...]): the captured launch
replayed (gpu/replay.py). Here, without a GPU: what a capture lacks, a mixed list, an option that sizes a matmul,
are each one line before anything looks for a GPU; a good reference says in one line that it needs one; and the
replay itself (the plan, its launch, the comparison with the first) runs under Triton's interpreter on CPU
tensors. On a GPU: tests/gpu/test_capture_replay_gpu.py times it."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from capture_programs import ROW_SCALE_KERNEL, capture_interpreted, run_interpreted
from cli_helpers import assert_one_line_error, run_cli

sys.path.insert(0, str(Path(__file__).parent / "data" / "captures"))
from make_example import write_example  # noqa: E402  (the synthetic capture's writer, beside its data)

HAS_CUDA = False
try:
    import torch

    HAS_CUDA = torch.cuda.is_available()
except ImportError:
    pass

PROGRAM = ROW_SCALE_KERNEL + textwrap.dedent("""\
    x = torch.randn(6, 50)
    y = torch.empty(6, 50)
    row_scale[(6,)](x, y, 50, x.stride(0), 3.0, BLOCK=16)
""")


@pytest.fixture(scope="module")
def captured(tmp_path_factory) -> Path:
    """A capture of PROGRAM's launch, run under the interpreter."""
    return capture_interpreted(tmp_path_factory.mktemp("replay"), PROGRAM)


def test_the_replay_of_a_change_computes_what_the_captured_launch_computed(captured):
    """Two replays from the same seed — the captured BLOCK and another — give the same tensors; a change of
    the scalar gives others (the comparison can fail)."""
    code = textwrap.dedent(f"""\
        from ttinspect.gpu.replay import _Launch, compared, plans
        refs = ["{captured}:row_scale", "{captured}:row_scale:BLOCK=64,num_warps=2"]
        launches = [_Launch(p, "cpu") for p in plans(refs)]
        finals = [launch.result() for launch in launches]
        print(compared(launches, finals, 0), compared(launches, finals, 1))
        print(launches[1].keywords)
        print(launches[0].replay.args["scale"], launches[0].replay.grid)
        again = _Launch(plans([refs[0]])[0], "cpu")
        again.args["scale"] = 4.0
        print(compared([launches[0], again], [finals[0], again.result()], 1))
    """)
    stdout = run_interpreted(code)
    lines = stdout.splitlines()
    assert lines[0] == "None 0.0"
    assert lines[1] == "{'BLOCK': 64, 'num_warps': 2}"
    assert lines[2] == "3.0 (6, 1, 1)"
    assert float(lines[3]) > 0.1  # scale 4 against 3 on normal data: the check sees a wrong result


def test_each_replay_starts_from_the_same_data(captured):
    code = textwrap.dedent(f"""\
        from ttinspect.gpu.replay import _Launch, plans
        a, b = (_Launch(plans(["{captured}:row_scale"])[0], "cpu") for _ in range(2))
        print(bool((a.args["x_ptr"] == b.args["x_ptr"]).all()), a.args["x_ptr"].stride())
    """)
    stdout = run_interpreted(code)
    assert stdout.split() == ["True", "(50,", "1)"]


@pytest.mark.skipif(HAS_CUDA, reason="a GPU is here: tests/gpu/test_capture_replay_gpu.py times the replay")
@pytest.mark.parametrize("command", ["bench", "profile"])
def test_a_good_reference_without_a_gpu_is_one_line(captured, command):
    result = run_cli(command, f"{captured}:row_scale", f"{captured}:row_scale:BLOCK=32")
    assert_one_line_error(result, 5, "needs a CUDA GPU")


@pytest.mark.parametrize("command", ["bench", "profile"])
def test_what_the_capture_lacks_is_said_before_looking_for_a_gpu(tmp_path, command):
    example = write_example(tmp_path)
    lines = [json.loads(line) for line in example.read_text().splitlines()]
    for record in lines:
        if record.get("type") == "launches":
            record["grids"], record["pairs"] = [], []  # (no grid, so no grid went with any arguments)
    example.write_text("".join(json.dumps(r) + "\n" for r in lines))
    assert_one_line_error(run_cli(command, f"{example}:scale_add#1"), 2, "no grid", "scale_add#1")


@pytest.mark.parametrize("args, fragment", [
    (["{cap}:row_scale", "opt"], "not both in one run: 'opt' is not a capture reference"),
    (["{cap}:row_scale", "--sizes", "1024"], "--sizes sizes a matmul variant"),
    (["{cap}:row_scale", "--plot", "x.png"], "--plot sizes a matmul variant"),
    (["{cap}:row_scale:BLOK=3"], "BLOK is not a constexpr or launch option of row_scale"),
    (["{cap}:row_scale@sm_90"], "a replay runs on this GPU"),
    (["{cap}:nope"], "no kernel 'nope' in the capture"),
])
def test_bench_refuses_in_one_line(captured, args, fragment):
    result = run_cli("bench", *[a.format(cap=captured) for a in args])
    assert_one_line_error(result, 2, fragment)


def test_profile_refuses_a_matmul_size_for_a_captured_kernel(captured):
    assert_one_line_error(run_cli("profile", f"{captured}:row_scale", "--size", "1024"), 2, "--size sizes a matmul")


WRAPPED = textwrap.dedent("""\
    import torch
    import triton
    import triton.language as tl

    class LaunchWrapper(triton.runtime.KernelInterface):
        '''A library's own launch wrapper (as flag-gems' LibEntry): a KernelInterface holding the kernel as fn.'''
        def __init__(self, fn):
            self.fn = fn

        def run(self, *args, **kwargs):
            return self.fn.run(*args, **kwargs)

    @LaunchWrapper
    @triton.jit
    def doubled(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

    x = torch.randn(40)
    y = torch.empty(40)
    doubled[(3,)](x, y, 40, BLOCK=16)
""")


def test_a_kernel_under_a_librarys_own_launch_wrapper_replays(tmp_path):
    capture = capture_interpreted(tmp_path, WRAPPED)
    code = textwrap.dedent(f"""\
        from ttinspect.gpu.replay import _Launch, plans
        launch = _Launch(plans(["{capture}:doubled"])[0], "cpu")
        x, y = launch.result()[:2]
        print(bool((y == 2 * x).all()))
    """)
    stdout = run_interpreted(code)
    assert stdout.strip() == "True"


KERNEL_MODULE = textwrap.dedent("""\
    import triton
    import triton.language as tl

    @triton.jit
    def col_sum(x_ptr, out_ptr, n_rows, stride, BLOCK: tl.constexpr):
        cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for row in range(0, n_rows):
            acc += tl.load(x_ptr + row * stride + cols)
        tl.store(out_ptr + cols, acc)
""")

KERNEL_USER = textwrap.dedent("""\
    import torch
    from colsum import col_sum

    x = torch.randn(64, 32)
    out = torch.empty(32)
    col_sum[(2,)](x, out, 64, x.stride(0), BLOCK=16)
""")


@pytest.fixture
def edited(tmp_path) -> Path:
    """A capture of a kernel module, whose loop was then rewritten as check's TTI001 fix says (tl.range)."""
    capture = capture_interpreted(tmp_path, KERNEL_USER, {"colsum.py": KERNEL_MODULE})
    (tmp_path / "colsum.py").write_text(KERNEL_MODULE.replace("range(0, n_rows)", "tl.range(0, n_rows, num_stages=3)"))
    return capture


def test_a_fix_made_in_the_file_replays_beside_the_captured_text(edited):
    code = textwrap.dedent(f"""\
        from ttinspect.gpu.replay import _Launch, compared, plans
        replays = plans(["{edited}:col_sum"], "both")
        print([r.label for r in replays])
        print(["tl.range" in open(r.file).read() for r in replays])
        launches = [_Launch(r, "cpu") for r in replays]
        finals = [launch.result() for launch in launches]
        print(compared(launches, finals, 1))
    """)
    stdout = run_interpreted(code, cwd=edited.parent)
    labels, sources, diff = stdout.splitlines()
    assert labels == "['run.ttcap:col_sum (captured)', 'run.ttcap:col_sum (current)']"
    assert sources == "[False, True]"  # the text the run compiled, then the file as it is now
    assert diff == "0.0"  # the fix computes the same sums


def test_a_changed_file_without_a_source_choice_is_one_line(edited):
    result = run_cli("bench", f"{edited}:col_sum")
    assert_one_line_error(result, 2, "changed since the capture", "--source captured")


def test_source_is_for_captured_kernels_only():
    assert_one_line_error(run_cli("bench", "opt", "--source", "both"), 2, "--source chooses a captured kernel's file")
