"""A library's own ctypes binding of NVML, in the shape device-smi's is (gptqmodel imports it): it loads
libnvidia-ml itself, declares each C function's argtypes and restype, checks every return code, and falls back
where a call fails — the total memory (which the virtual device does not know: NOT_SUPPORTED) falls back to
"unknown". Then it chooses its tile by what NVML said and launches a kernel."""
import ctypes
import ctypes.util

import torch
import triton
import triton.language as tl


class NVML:
    def __init__(self):
        self.lib = ctypes.CDLL(ctypes.util.find_library("nvidia-ml") or "libnvidia-ml.so.1")
        self.lib.nvmlErrorString.restype = ctypes.c_char_p
        self.lib.nvmlDeviceGetCount_v2.argtypes = [ctypes.POINTER(ctypes.c_uint)]
        self.lib.nvmlDeviceGetHandleByIndex_v2.argtypes = [ctypes.c_uint, ctypes.POINTER(ctypes.c_void_p)]
        self.lib.nvmlDeviceGetName.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint]
        self.check(self.lib.nvmlInit_v2())

    def check(self, code):
        if code != 0:
            raise RuntimeError(f"NVML error {code}: {self.lib.nvmlErrorString(code).decode()}")

    def count(self):
        count = ctypes.c_uint()
        self.check(self.lib.nvmlDeviceGetCount_v2(ctypes.byref(count)))
        return count.value

    def handle(self, index):
        handle = ctypes.c_void_p()
        self.check(self.lib.nvmlDeviceGetHandleByIndex_v2(index, ctypes.byref(handle)))
        return handle

    def name(self, handle):
        buffer = ctypes.create_string_buffer(96)
        self.check(self.lib.nvmlDeviceGetName(handle, buffer, 96))
        return buffer.value.decode()

    def capability(self, handle):
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.check(self.lib.nvmlDeviceGetCudaComputeCapability(handle, ctypes.pointer(major), ctypes.pointer(minor)))
        return major.value, minor.value

    def max_sm_clock(self, handle):
        mhz = ctypes.c_uint()
        self.check(self.lib.nvmlDeviceGetMaxClockInfo(handle, 1, ctypes.byref(mhz)))  # NVML_CLOCK_SM
        return mhz.value

    def memory_total(self, handle):
        memory = (ctypes.c_ulonglong * 3)()  # nvmlMemory_t: total, free, used
        self.check(self.lib.nvmlDeviceGetMemoryInfo(handle, memory))
        return memory[0]


nvml = NVML()
gpu = nvml.handle(0)
print("count", nvml.count())
print("name", nvml.name(gpu))
print("capability", nvml.capability(gpu), "max SM clock", nvml.max_sm_clock(gpu))
try:
    memory = nvml.memory_total(gpu)
except (OSError, RuntimeError) as error:  # the library's fallback
    memory = f"unknown ({error})"
print("memory", memory)


@triton.jit
def scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


x = torch.empty(8192, device="cuda")
block = 1024 if nvml.capability(gpu) >= (9, 0) else 256  # the library's per-architecture tile
scale[(triton.cdiv(x.numel(), block),)](x, torch.empty_like(x), x.numel(), BLOCK=block)
