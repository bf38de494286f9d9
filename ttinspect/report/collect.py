"""A build reduced to facts: `report_from_build(build)` collects them — the configuration's here, the rest
from the target's backend (backends/) — or reads them back from the build's entry (report/store.py).
The public `inspect(...)` is in api.py."""

from __future__ import annotations

from ttinspect.backends import backend_for
from ttinspect.engine.builds import Build
from ttinspect.facts.model import Fact, known, unknown
from ttinspect.kernel.options import OPTION_KEYS
from ttinspect.report.model import Report
from ttinspect.report.store import decode_report, encode_report, facts_file_name


def _config_facts(result: Build) -> list[Fact]:
    meta = result.metadata
    config = result.config
    blocks = tuple((k, v) for k, v in config.items() if k not in OPTION_KEYS and isinstance(v, int))
    warps = meta.get("num_warps", config.get("num_warps"))
    constexprs = (known("block_sizes", "block sizes / constexprs", "configuration", blocks,
                        "the tile and group constexprs the kernel was compiled with", "config")
                  if "ttinspect" in meta else
                  unknown("block_sizes", "block sizes / constexprs", "configuration",
                          "Triton's cache does not record a kernel's constexpr values (they are folded into "
                          "its IR)", "the tile and group constexprs the kernel was compiled with", "config"))
    return [
        constexprs,
        known("num_warps", "num_warps", "configuration", warps,
              "warps per program (CTA); threads = 32 × num_warps", "metadata"),
        known("threads", "threads per CTA", "configuration", warps * meta.get("warp_size", 32),
              "threads in one program", "metadata"),
        known("num_stages", "num_stages (configured)", "configuration", meta.get("num_stages"),
              "the software-pipelining depth asked for; `pipeline depth` below is what the PTX shows",
              "metadata"),
        known("shared_memory", "shared memory (bytes)", "configuration", meta.get("shared"),
              "dynamic shared memory per CTA from the compiled metadata (the PTX declares an unsized "
              "global_smem[])", "metadata"),
    ]


def report_from_build(result: Build, *, sass: bool = True) -> Report:
    """`sass=False` leaves out the SASS group (an nvdisasm run per kernel), for tables that show none
    of its facts. The facts of one of ttinspect's own entries are kept beside its artifacts (a derived
    file, digest-checked like the SASS, named by the fact code's digest): a warm report reads them back."""
    if not result.artifacts.verified:
        return _computed_report(result, sass)
    # The stages the facts come from are still read (digest-checked), so a damaged entry is found and
    # compiled again exactly as when the facts are computed; only parsing them is saved.
    for stage in ("ttir", "glir", "ttgir", "ptx", "amdgcn"):
        if result.artifacts.has(stage):
            result.artifacts.data(stage)
    result.artifacts.extra("ptxas_log")
    fresh: list[Report] = []

    def derive() -> bytes:
        fresh.append(_computed_report(result, sass))
        encoded = encode_report(fresh[0])
        return encoded if encoded is not None else b"null"

    try:
        data = result.artifacts.derived_file(facts_file_name(sass, result.target), derive)
    except OSError:
        data = b"null"
    if fresh:
        return fresh[0]
    decoded = decode_report(data, result)
    return decoded if decoded is not None else _computed_report(result, sass)


def _computed_report(result: Build, sass: bool) -> Report:
    own, loop_text = backend_for(result.target).facts(result, sass)
    return Report(result.label, result.kernel, result.target.name, str(result.metadata.get("triton_version")),
                  dict(result.config), tuple(_config_facts(result) + own), loop_text, result)
