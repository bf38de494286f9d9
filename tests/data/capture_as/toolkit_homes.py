"""What torch.utils.cpp_extension says of the GPU toolkit, read the ways libraries read it (flashrnn calls
_find_cuda_home() at import): under capture --as, the target's vendor's toolkit, never this machine's."""
import torch.utils.cpp_extension as cpp

print("CUDA_HOME", cpp.CUDA_HOME, cpp._find_cuda_home())
print("ROCM_HOME", cpp.ROCM_HOME, cpp._find_rocm_home())
print("IS_HIP_EXTENSION", cpp.IS_HIP_EXTENSION)
print("include", cpp.include_paths(device_type="cuda")[-1])
