"""A Helion kernel (`@helion.kernel`) as a kernel reference (refs/helion_kernels.py): the Triton Helion generates
for its arguments and a config — made on the target's virtual device, no GPU — kept as a read-only file in
ttinspect's cache, compiled as a file's kernel, each compiled line naming the Helion line it came from.

The kernels are tests/data/helion/helion_kernels.py (an add, a matmul listing two configs, a softmax, and two
examples). Skipped without helion (`pip install helion`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from cli_helpers import assert_one_line_error, run_cli
from ttinspect.errors import EXIT_USAGE
from ttinspect.refs.helion_source import annotated, origin_of_line, origins
from ttinspect.refs.resolver import RefOptions, resolve, resolve_one

# Skipped without helion, found but not imported: the kernels' file imports it under the virtual device, as a
# user's run does (importorskip would import it, and torch._dynamo with it, before any virtual device: torch's
# CudaInterface keeps the torch.cuda.get_device_properties it saw then, which Helion's matmul asks)
needs_helion = pytest.mark.skipif(importlib.util.find_spec("helion") is None, reason="needs helion")

FILE = Path(__file__).parent / "data" / "helion" / "helion_kernels.py"
SQUARES = "fp16[1024, 1024], fp16[1024, 1024]"


@needs_helion
def test_a_helion_kernel_is_compiled_from_the_triton_it_generates():
    built = resolve_one(f"{FILE}:add", RefOptions(signature=SQUARES, arch="sm_90"))
    assert built.kernel.endswith(":_helion_add") and built.target.name == "sm_90"
    assert built.note.startswith("Helion, default config: block_sizes=")
    generated = Path(built.source_file)
    assert "helion-generated" in generated.parts and generated.stat().st_mode & 0o222 == 0  # data ttinspect made
    text = generated.read_text()
    assert "@triton.jit" in text and "def _helion_add(" in text
    # the compiled lines name the Helion line they came from: the load is line 15's `out[tile] = ...`
    load = next(n for n, line in enumerate(text.splitlines(), 1) if "tl.load(x" in line)
    assert origin_of_line(generated, load) == "helion_kernels.py:15"
    assert "tt.load" in built.artifacts.text("ttgir")


@needs_helion
def test_the_source_view_says_the_helion_line_of_each_stage_line():
    result = run_cli("dump", f"{FILE}:add", "--signature", SQUARES, "--arch", "sm_90", "--stage", "ttgir", "--source")
    assert result.exit_code == 0, result.output
    assert "tl.load(x" in result.output and "# <- helion_kernels.py:15" in result.output


@needs_helion
def test_an_example_picks_the_kernel_s_config_and_its_target():
    built = resolve_one(f"{FILE}:square", RefOptions(config="2"))
    assert built.label.startswith("helion_kernels.py:square#2") and built.target.name == "sm_90"
    assert (built.config["num_warps"], built.config["num_stages"]) == (8, 4)
    assert "config 2 of 2" in built.note and "wgmma.mma_async" in built.artifacts.text("ptx")


@needs_helion
def test_config_all_gives_one_build_per_listed_config():
    builds = resolve(f"{FILE}:matmul", RefOptions(signature="fp16[256, 256], fp16[256, 256]", config="all",
                                                  arch="sm_90"))
    assert [(b.config["num_warps"], b.config["num_stages"]) for b in builds] == [(4, 3), (8, 4)]


@needs_helion
def test_a_config_of_the_search_space_is_the_same_every_time_and_set_changes_a_key():
    options = RefOptions(signature="fp16[4096], fp16[4096]", config="3", arch="sm_90")
    first, again = resolve_one(f"{FILE}:add", options), resolve_one(f"{FILE}:add", options)
    assert first.note == again.note and "search-space config 3" in first.note
    changed = resolve_one(f"{FILE}:add", RefOptions(signature="fp16[4096], fp16[4096]", arch="sm_90",
                                                    settings={"num_warps": 2, "block_sizes": "[256]"}))
    assert changed.config["num_warps"] == 2 and "block_sizes=[256]" in changed.note


@needs_helion
@pytest.mark.parametrize("args, fragments", [
    ((), ["add needs x, y", "--signature", "fp16[1024, 1024]"]),
    (("--signature", "*fp16, *fp16"), ["'*fp16' gives no shape", "fp16[1024, 1024]"]),
    (("--signature", "half[8], half[8]"), ["unknown dtype 'half'"]),
    (("--signature", "fp16[8], fp16[8], 3"), ["3 entries", "2 parameters"]),
    (("--signature", "fp16[8], fp16[8]", "--set", "bogus=3"), ["Helion could not generate Triton", "bogus"]),
    (("--signature", "fp16[8], fp16[8]", "--config", "all"), ["lists no configs"]),
])
def test_what_helion_cannot_be_given_is_one_line(args, fragments):
    assert_one_line_error(run_cli("report", f"{FILE}:add", *args), EXIT_USAGE, *fragments)


@needs_helion
@pytest.mark.parametrize("config, fragment", [(None, "lists 2 configs"), ("7", "lists 2 configs, numbered from 1")])
def test_a_kernel_listing_configs_needs_one_named(config, fragment):
    args = ("--config", config) if config else ()
    assert_one_line_error(run_cli("report", f"{FILE}:matmul", "--signature", "fp16[64, 64], fp16[64, 64]", *args),
                          EXIT_USAGE, fragment)


GENERATED = """@triton.jit
def _helion_k(x, out):
    # src[k.py:9]: for tile in hl.tile(n):
    offset_0 = tl.program_id(0) * 32

    # src[k.py:10]: out[tile] = x[tile]
    load = tl.load(x + offset_0)
    tl.store(out + offset_0, load)

def k(x, *, _launcher=_default_launcher):
    # src[k.py:8]: out = torch.empty_like(x)
    out = torch.empty_like(x)
    return out
"""


def test_the_origin_comments_map_each_code_line_and_only_the_kernel_s_are_marked():
    found = origins(GENERATED, "/src/k.py")
    assert {n: str(o) for n, o in found.items()} == {4: "/src/k.py:9", 7: "/src/k.py:10", 8: "/src/k.py:10",
                                                     12: "/src/k.py:8", 13: "/src/k.py:8"}
    marked = annotated(GENERATED, "/src/k.py").splitlines()
    assert len(marked) == len(GENERATED.splitlines())  # no line moves
    assert marked[6].endswith("  # <- k.py:10") and marked[11] == "    out = torch.empty_like(x)"


MIXED = """import torch
import triton
import triton.language as tl

import helion
import helion.language as hl


@triton.jit
def copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


@helion.kernel(configs=[helion.Config(block_sizes=[64]), helion.Config(block_sizes=[128])])
def scale(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(out.size()):
        out[tile] = x[tile] * 2
    return out


TTINSPECT_EXAMPLES = {"big": {"kernel": scale, "args": {"x": "fp16[4096]"}, "autotune_config": 2}}
"""


@needs_helion
def test_list_shows_every_kernel_a_reference_can_name_with_its_kind():
    import json

    listing = json.loads(run_cli("list", str(FILE), "--json").output)
    assert [(k["name"], k["kind"], k["autotune_configs"]) for k in listing["kernels"]] == [
        ("add", "helion", 0), ("matmul", "helion", 2), ("softmax", "helion", 0)]
    assert listing["kernels"][0]["params"] == ["x", "y"] and listing["kernels"][0]["line"] == 12
    assert listing["suggested"] == "add" and [e["kernel"] for e in listing["examples"]] == ["matmul", "softmax"]


@needs_helion
def test_list_of_a_module_mixing_triton_and_helion(tmp_path, monkeypatch):
    import json

    (tmp_path / "hmixed").mkdir()
    (tmp_path / "hmixed" / "__init__.py").write_text("")
    (tmp_path / "hmixed" / "ops.py").write_text(MIXED)
    monkeypatch.chdir(tmp_path)
    listing = json.loads(run_cli("list", "hmixed.ops", "--json").output)
    assert [(k["name"], k["kind"]) for k in listing["kernels"]] == [("copy", "jit"), ("scale", "helion")]
    assert listing["examples"][0]["kernel"] == "scale"
    text = run_cli("list", "hmixed.ops", env={"COLUMNS": "200"}).output
    assert "helion (2 configs)" in text and "big" in text
    unknown = run_cli("report", "hmixed.ops:nope")
    assert_one_line_error(unknown, EXIT_USAGE, "kernels: copy, scale", "examples: big")
