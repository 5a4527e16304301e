"""``torch.nn.utils.stateless``: the PyTorch 1.x home of ``functional_call``, deprecated for
``torch.func.functional_call`` (which this forwards to, with PyTorch's FutureWarning)."""
from __future__ import annotations

import warnings

from ...func import functional_call as _functional_call

__all__ = ["functional_call"]


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """Call ``module`` with its parameters and buffers replaced by ``parameters_and_buffers`` (name -> tensor)
    for this call only; see ``torch.func.functional_call``. Warns FutureWarning (deprecated)."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed in "
                  "a future version of PyTorch. Please use `torch.func.functional_call` instead which is a drop-in "
                  "replacement.", FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)
