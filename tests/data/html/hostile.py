"""A kernel whose file tries to break out of an HTML page: </script><script>alert(1)</script>

`ttinspect html` must show every character of it as text (tests/test_html.py copies this file into a
folder named `<svg/onload=alert(2)>`, so its path is hostile too).
"""

import triton
import triton.language as tl

BANNER = "</script><script>alert(3)</script><!--"  # a string in the kernel's file


@triton.jit
def hostile_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # </script><script>alert(4)</script> <img src=x onerror=alert(5)> &amp; "quotes" 'too'
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.device_print("</script><script>alert(6)</script>", x)  # the text reaches the IR as a string
    tl.store(out_ptr + offsets, x * 2, mask=mask)
