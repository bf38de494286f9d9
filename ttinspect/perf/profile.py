"""A measured device profile (`ttinspect calibrate -o h100.json`, `--device-profile h100.json`): the figures
microbenchmarks measured on one GPU, read back as a typed value and laid over its datasheet row.

The file comes from elsewhere (another machine, a colleague, a download), so it is read as hostile input
(docs/architecture.md): a regular file of at most 64 KB, one JSON object of known keys, every number finite
and inside a bound a real GPU can have; anything else is one line naming the file and the field.

What a profile holds is what was *reached* (a Triton matmul's TFLOP/s, a copy kernel's GB/s), while the model
applies its own achievable share to a datasheet peak (terms.py: TC_ACHIEVABLE, HBM_ACHIEVABLE). So a
measured rate enters the device row divided by that share: the model then predicts the measured rate, not
80 % of it.
"""

from __future__ import annotations

import json
import math
import os
import stat
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from ttinspect.errors import UsageError
from ttinspect.files.source_files import read_regular
from ttinspect.perf.devices import Device, find_device
from ttinspect.perf.model import LAUNCH_US, Prediction
from ttinspect.perf.terms import HBM_ACHIEVABLE, TC_ACHIEVABLE

FORMAT = 1
KIND = "ttinspect-device-profile"
MAX_BYTES = 64 * 1024  # a profile is a few hundred bytes; anything larger is not one
DTYPES = ("fp16", "bf16", "fp8", "tf32", "int8", "fp32")
# (low, high) a real GPU's figure lies in: a value outside is a damaged or made-up file, refused
BOUNDS = {"tflops": (0.01, 100_000.0), "hbm_gbps": (1.0, 100_000.0), "l2_gbps": (1.0, 1_000_000.0),
          "launch_us": (0.1, 1_000.0)}
TEXT_FIELDS = ("device", "gpu", "arch", "measured_at", "triton", "torch")
KNOWN = {"format", "kind", *TEXT_FIELDS, "tflops", "hbm_gbps", "l2_gbps", "launch_us", "sms", "notes"}


@dataclass(frozen=True)
class DeviceProfile:
    """What calibrate measured on one GPU; None where it measured nothing (the datasheet figure stays)."""
    path: str  # the file it was read from ("" when made in memory)
    device: str  # the datasheet row it refines ("H100 SXM")
    gpu: str  # the name the GPU gave ("NVIDIA H100 80GB HBM3")
    arch: str  # "sm_90"
    measured_at: str | None
    tflops: Mapping[str, float]  # reached TFLOP/s per input dtype (fp32: FMA)
    hbm_gbps: float | None
    l2_gbps: float | None
    launch_us: float | None  # an empty kernel's time as do_bench measures it
    sms: int | None = None
    triton: str | None = None
    torch: str | None = None

    @property
    def label(self) -> str:
        """How outputs name it: `measured profile h100.json (NVIDIA H100 80GB HBM3, 2026-01-02)`."""
        when = f", {self.measured_at[:10]}" if self.measured_at else ""
        return f"measured profile {Path(self.path).name or '(in memory)'} ({self.gpu}{when})"

    def as_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "kind": KIND, "device": self.device, "gpu": self.gpu, "arch": self.arch,
                "measured_at": self.measured_at, "triton": self.triton, "torch": self.torch, "sms": self.sms,
                "tflops": dict(self.tflops), "hbm_gbps": self.hbm_gbps, "l2_gbps": self.l2_gbps,
                "launch_us": self.launch_us}


def read_profile(path: str | os.PathLike) -> DeviceProfile:
    """The profile at `path`, checked whole; one UsageError line (`FILE: ...`) for anything wrong."""
    where = str(path)
    try:
        info = os.stat(path)
    except OSError as error:
        raise UsageError(f"--device-profile {where}: cannot be read ({error.strerror or error})") from None
    if not stat.S_ISREG(info.st_mode):
        raise UsageError(f"--device-profile {where}: not a regular file")
    if info.st_size > MAX_BYTES:
        raise UsageError(f"--device-profile {where}: {info.st_size} bytes, more than a profile's "
                         f"{MAX_BYTES} (not a device profile)")
    data = read_regular(Path(path))
    if data is None or len(data) > MAX_BYTES:
        raise UsageError(f"--device-profile {where}: cannot be read as a regular file of at most {MAX_BYTES} B")
    try:
        record = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise UsageError(f"--device-profile {where}: not JSON ({str(error).splitlines()[0][:120]})") from None
    return profile_from_dict(record, where)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a profile holds")


def profile_from_dict(record: Any, where: str = "") -> DeviceProfile:
    """A profile from its JSON object (read_profile's second half; calibrate builds one the same way)."""
    def bad(field: str, why: str) -> UsageError:
        return UsageError(f"--device-profile {where}: {field} {why}")

    if not isinstance(record, dict):
        raise bad("the file", "is not a JSON object")
    if record.get("kind") != KIND or record.get("format") != FORMAT:
        raise bad("the file", f"is not a device profile (kind {KIND!r}, format {FORMAT}): made by "
                              "`ttinspect calibrate -o FILE`")
    unknown = sorted(str(k)[:40] for k in record if k not in KNOWN)
    if unknown:
        raise bad("the file", f"has keys a profile does not: {', '.join(unknown[:5])}")
    texts = {}
    for name in TEXT_FIELDS:
        value = record.get(name)
        if value is not None and (not isinstance(value, str) or len(value) > 200 or not value.isprintable()):
            raise bad(repr(name), "is not a short line of text")
        texts[name] = value
    if not texts["device"]:
        raise bad("'device'", "is missing: the datasheet row the profile refines (e.g. \"H100 SXM\")")
    try:
        row = find_device(texts["device"])
    except UsageError as error:
        raise bad("'device'", str(error)) from None
    tflops_in = record.get("tflops") or {}
    if not isinstance(tflops_in, dict):
        raise bad("'tflops'", "is not an object of dtype: TFLOP/s")
    tflops = {}
    for dtype, value in tflops_in.items():
        if dtype not in DTYPES:
            raise bad("'tflops'", f"names {str(dtype)[:20]!r}, not one of {', '.join(DTYPES)}")
        tflops[dtype] = _number(value, "tflops", f"'tflops.{dtype}'", bad)
    figures = {name: None if record.get(name) is None else _number(record[name], name, repr(name), bad)
               for name in ("hbm_gbps", "l2_gbps", "launch_us")}
    sms = record.get("sms")
    if sms is not None and (isinstance(sms, bool) or not isinstance(sms, int) or not 1 <= sms <= 4096):
        raise bad("'sms'", "is not a count of SMs (1-4096)")
    arch = texts["arch"] or row.arch
    if arch.rstrip("a") != row.arch:
        raise bad("'arch'", f"{arch} is not {row.name}'s target {row.arch}")
    return DeviceProfile(where, row.name, texts["gpu"] or row.name, row.arch, texts["measured_at"],
                         MappingProxyType(tflops), figures["hbm_gbps"], figures["l2_gbps"], figures["launch_us"],
                         sms, texts["triton"], texts["torch"])


def _number(value: Any, bound: str, field: str, bad) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise bad(field, f"is {json.dumps(value, default=repr)[:30]}, not a number")
    low, high = BOUNDS[bound]
    if not low <= value <= high:
        raise bad(field, f"is {value}, outside what a GPU measures ({low} to {high})")
    return float(value)


def measured_device(row: Device, profile: DeviceProfile) -> Device:
    """The datasheet row with the profile's figures laid over it (reached rates turned back into the peaks
    the model takes a share of; what the profile lacks stays the datasheet's)."""
    if profile.device != row.name:
        raise UsageError(f"--device-profile {profile.path}: measured on a {profile.device}, not the {row.name} "
                         "this prediction is for (name that device with --device, or drop the profile)")
    tflops = dict(row.tflops)
    for dtype, reached in profile.tflops.items():
        tflops[dtype] = reached if dtype == "fp32" else reached / TC_ACHIEVABLE
    return replace(row, tflops=MappingProxyType(tflops), sms=profile.sms or row.sms,
                   hbm_gbps=profile.hbm_gbps / HBM_ACHIEVABLE if profile.hbm_gbps else row.hbm_gbps,
                   l2_gbps=profile.l2_gbps or row.l2_gbps,
                   l2_gbps_assumed=row.l2_gbps_assumed and profile.l2_gbps is None,
                   source=f"{profile.label} over {row.source}")


def with_profile(p: Prediction, profile: DeviceProfile | None) -> Prediction:
    """A prediction made on `measured_device` said to be one (its assumptions name the profile, not the
    datasheet) and given the launch cost the profile measured in place of the model's fitted one."""
    figures = profile.label if profile is not None else "datasheet"
    details = {**p.details, "figures": figures}
    if profile is None:
        return replace(p, details=details)
    said = tuple(f"{profile.label} for {p.device} (the datasheet's where it measured nothing)"
                 if a.startswith("datasheet figures for") else a for a in p.assumptions)
    if p.time_ms is None or profile.launch_us is None:
        return replace(p, assumptions=said, details=details)
    breakdown = {**p.breakdown, "launch": profile.launch_us * 1e-3}
    time_ms = p.time_ms + (profile.launch_us - LAUNCH_US) * 1e-3
    scale = p.time_ms / time_ms
    return replace(p, time_ms=time_ms, breakdown=breakdown, assumptions=said, details=details,
                    tflops=p.tflops * scale if p.tflops else p.tflops, gbps=p.gbps * scale if p.gbps else p.gbps)
