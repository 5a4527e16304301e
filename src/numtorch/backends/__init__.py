"""``numtorch.backends`` (mirrors ``torch.backends``): settable flags that programs set; they change nothing."""
from __future__ import annotations

import types

__all__ = ["cuda", "cudnn", "mps", "mkldnn", "openmp"]

cuda = types.SimpleNamespace(
    matmul=types.SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                                 allow_bf16_reduced_precision_reduction=True),
    is_built=lambda: False, flash_sdp_enabled=lambda: False, enable_flash_sdp=lambda enabled: None,
    enable_mem_efficient_sdp=lambda enabled: None, enable_math_sdp=lambda enabled: None)
cudnn = types.SimpleNamespace(allow_tf32=True, benchmark=False, deterministic=False, enabled=True,
                              is_available=lambda: False, version=lambda: None)
mps = types.SimpleNamespace(is_available=lambda: False, is_built=lambda: False)
mkldnn = types.SimpleNamespace(is_available=lambda: False, enabled=False)
openmp = types.SimpleNamespace(is_available=lambda: False)
