"""What `nvidia-smi` prints for the questions the virtual device knows the answer to, in its exact format.

Programs ask the GPU through the vendors' command-line tools (Triton's `nvsmi(["clocks.max.sm"])`, which
xformers' matmul perf model calls; `nvidia-smi -L` to count GPUs). Read on an H200 (nvidia-smi 580.159.04):

    $ nvidia-smi --query-gpu=name,compute_cap,count,clocks.max.sm,index --format=csv
    name, compute_cap, count, clocks.max.sm [MHz], index
    NVIDIA H200, 9.0, 1, 1980 MHz, 0
    $ nvidia-smi -L
    GPU 0: NVIDIA H200 (UUID: GPU-...)

`noheader` drops the header, `nounits` the values' units (the header keeps its `[MHz]`); no `--format` is csv
with a header; `-i N` past the last GPU prints "No devices were found" and exits 6.

Known: name, compute_cap, count, index, the maximum SM / graphics / memory clocks (cudaDeviceProp's clockRate
and memoryClockRate are those maxima: 1980 and 2619 MHz on the H100). Not known, refused naming the field:
`memory.total` (the board's memory before the driver's reservation: 143771 MiB on the H200 where torch's
total_memory is 143156 MiB — another number than the device table's), `driver_version` (the GPU machine's
driver), every measured or per-board field (memory.used, utilization, temperature, power, uuid, pci.*), and
any field ttinspect does not know. In `-L` the UUID, which names one physical GPU, is all zeros.

Under an AMD target `nvidia-smi` is not installed (a ROCm machine's); under an NVIDIA one `rocm-smi`,
`amd-smi`, `rocminfo` are not (`absent_on_target`). Their own outputs on AMD are not answered (no format read on
an AMD GPU yet): refused with the line.
"""

from __future__ import annotations

from typing import Callable

from ttinspect.virtual.numbers import DeviceNumbers

AMD_PROGRAMS = frozenset({"rocm-smi", "amd-smi", "rocminfo", "rocm_agent_enumerator"})
NVIDIA_PROGRAMS = frozenset({"nvidia-smi"})
NO_DEVICE_EXIT = 6  # nvidia-smi's exit code for "No devices were found" (read on the H200)
_ZERO_UUID = "GPU-00000000-0000-0000-0000-000000000000"


class Unknown(Exception):
    """A question nvidia-smi would answer and the virtual device cannot: `what` names it, `why` says why."""

    def __init__(self, what: str, why: str):
        super().__init__(f"{what}: {why}")
        self.what, self.why = what, why


def absent_on_target(program: str, numbers: DeviceNumbers) -> bool:
    """The other vendor's tool: not installed on a machine of the target's vendor."""
    return program in (NVIDIA_PROGRAMS if numbers.amd else AMD_PROGRAMS)


def _mhz(key: str) -> Callable[[DeviceNumbers], tuple[str, str]]:
    def read(numbers: DeviceNumbers) -> tuple[str, str]:
        khz = numbers.values.get(key)
        if khz is None:
            raise Unknown(key, "no source for it in ttinspect's device table (give it with --device-props "
                               f"{key}=KHZ)")
        return str(int(khz) // 1000), "MHz"
    return read


# field -> how its value is read ((text, unit or "")); a value that depends on the GPU's index takes it
_FIELDS: dict[str, Callable[[DeviceNumbers], tuple[str, str]]] = {
    "name": lambda n: (str(n.values["name"]), ""),
    "gpu_name": lambda n: (str(n.values["name"]), ""),
    "compute_cap": lambda n: ("{}.{}".format(*n.capability), ""),
    "count": lambda n: (str(n.values["device_count"]), ""),
    "clocks.max.sm": _mhz("clock_rate"),
    "clocks.max.graphics": _mhz("clock_rate"),
    "clocks.max.gr": _mhz("clock_rate"),
    "clocks.max.memory": _mhz("memory_clock_rate"),
    "clocks.max.mem": _mhz("memory_clock_rate"),
}
_NOT_KNOWN = {
    "memory.total": "nvidia-smi counts the board's memory before the driver's reservation (143771 MiB on an "
                    "H200 whose torch total_memory is 143156 MiB): not the device table's number",
    "driver_version": "the GPU machine's driver, which no table here holds",
}
_MEASURED = ("memory.", "utilization.", "temperature.", "power.", "clocks.", "fan.", "pstate", "ecc.", "pcie.",
             "encoder.", "clocks_throttle", "clocks_event")


def field_unknown(field: str) -> Unknown:
    """Why the device cannot answer a field (also asked of NVML's C functions that read it: smi_c_calls.py)."""
    if field in _NOT_KNOWN:
        return Unknown(field, _NOT_KNOWN[field])
    if field.startswith(_MEASURED):
        return Unknown(field, "measured on the running GPU")
    if field in ("uuid", "serial", "gpu_uuid", "gpu_serial") or field.startswith(("pci", "vbios", "inforom")):
        return Unknown(field, "it names one physical GPU")
    return Unknown(field, "not a field the virtual device knows")


def _options(argv: list[str]) -> dict[str, str]:
    """nvidia-smi's options as given: `--query-gpu=A,B`, `--format=csv,...`, `-i N` / `--id=N`, `-L`."""
    found: dict[str, str] = {}
    position = 0
    while position < len(argv):
        word = argv[position]
        name, has_value, value = word.partition("=")
        if name in ("-i", "--id", "--query-gpu", "--format") and not has_value:
            position += 1
            value = argv[position] if position < len(argv) else ""
        elif name == "--list-gpus":
            name = "-L"
        found[name] = value
        position += 1
    return found


def nvidia_smi(argv: list[str], numbers: DeviceNumbers) -> tuple[str, int]:
    """What `nvidia-smi ARGV...` prints and its exit code; Unknown where the device cannot answer."""
    options = _options(argv)
    extra = set(options) - {"-i", "--id", "--query-gpu", "--format", "-L"}
    if extra or not ({"-L", "--query-gpu"} & set(options)):
        shown = " ".join(argv) or "(no arguments: the status table)"
        raise Unknown(shown, "only --query-gpu=... [--format=csv,...] [-i N] and -L are answered (the rest "
                             "reads the running GPU)")
    count = int(numbers.values["device_count"])
    ids = options.get("-i", options.get("--id"))
    indices = list(range(count))
    if ids is not None:
        try:
            indices = [int(part) for part in ids.split(",")]
        except ValueError as error:
            raise Unknown(f"-i {ids}", "a GPU given by UUID or PCI bus id names one physical GPU") from error
        if any(not 0 <= index < count for index in indices):
            return "No devices were found\n", NO_DEVICE_EXIT
    if "-L" in options:
        return "".join(f"GPU {i}: {numbers.values['name']} (UUID: {_ZERO_UUID})\n" for i in indices), 0
    fields = [field.strip() for field in options["--query-gpu"].split(",") if field.strip()]
    formats = {part.strip() for part in options.get("--format", "csv").split(",")}
    if not formats <= {"csv", "noheader", "nounits"} or "csv" not in formats:
        raise Unknown(f"--format={options.get('--format')}", "only csv (with noheader, nounits) is answered")
    rows: list[str] = []
    header: list[str] = []
    for index in indices:
        row = []
        for field in fields:
            if field == "index":
                value, unit = str(index), ""
            elif field in _FIELDS:
                value, unit = _FIELDS[field](numbers)
            else:
                raise field_unknown(field)
            if len(rows) == 0:
                header.append(f"{field} [{unit}]" if unit else field)
            row.append(value if not unit or "nounits" in formats else f"{value} {unit}")
        rows.append(", ".join(row))
    lines = ([] if "noheader" in formats else [", ".join(header)]) + rows
    return "".join(line + "\n" for line in lines), 0
