"""``torch.signal.windows``: SciPy-style window functions (``sym=True`` by default; float32/float64).

The windows themselves live in ``numtorch/_ops/windows.py`` next to ``torch.hann_window`` & co.
"""
from ..._ops.windows import (bartlett, blackman, cosine, exponential, gaussian, general_cosine, general_hamming,
                             hamming, hann, kaiser, nuttall)

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming",
           "hamming", "hann", "kaiser", "nuttall"]
