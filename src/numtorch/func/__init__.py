"""``torch.func`` (functorch's transforms) on numtorch.

``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``linearize``, ``jacrev``, ``jacfwd``, ``hessian``
(``_eager_transforms.py``), ``functional_call``, ``stack_module_state`` (``_functional_call.py``),
``replace_all_batch_norm_modules_`` (``_batch_norm.py``) and ``vmap`` (``_vmap.py``; batched tensors and the dispatcher in ``_batched.py``, the batching
rules in ``_batching_rules.py`` and ``_batching_rules_index.py``; custom Functions under vmap in
``_custom_function.py``; writes to captured tensors inside grad transforms: ``_captures.py``).
Modules are handled by duck typing (``named_parameters``, ``_parameters``, ``_buffers``...): this
package sits below ``nn`` in numtorch's layers. How the transforms work and where vmap and forward-mode
AD plug in: ``_seams.py``; user guide: ``docs/func.md``.
"""
from __future__ import annotations

from ._eager_transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp
from ._functional_call import functional_call, stack_module_state
from ._batch_norm import replace_all_batch_norm_modules_

from ._vmap import vmap

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call", "stack_module_state", "replace_all_batch_norm_modules_"]
