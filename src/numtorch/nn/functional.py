"""``numtorch.nn.functional`` (mirrors ``torch.nn.functional``): the functional form of every layer.

The math lives in ``numtorch/_ops/`` (``conv.py``, ``nn_ops.py``); this module is the public API
with PyTorch's signatures and argument checking.
"""
from __future__ import annotations

# ======== convolution, pooling, padding, fold/unfold, interpolation ========

# ======== activations, softmax, normalization, dropout, embedding, losses, attention ========
