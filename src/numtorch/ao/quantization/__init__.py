"""``numtorch.ao.quantization``: ``QuantStub``/``DeQuantStub`` (identities before conversion, as in PyTorch).

numtorch has no quantized tensors: ``prepare``, ``convert``, ``fuse_modules``, qconfigs and observers
raise NotImplementedError when used. A model that merely contains the stubs (torchvision's
quantizable models, before quantization) runs in float.
"""
from __future__ import annotations

from ..._stand_ins import raising_getattr
from ...nn.modules.module import Module

__all__ = ["QuantStub", "DeQuantStub"]


class QuantStub(Module):
    """Marks where a quantized model would quantize its input; the identity until ``convert``."""

    def __init__(self, qconfig=None):
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x):
        return x


class DeQuantStub(QuantStub):
    """Marks where a quantized model would dequantize; the identity until ``convert``."""


__getattr__ = raising_getattr("torch.ao.quantization", NotImplementedError, "numtorch has no quantized tensors")
