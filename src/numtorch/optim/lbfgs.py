"""L-BFGS (mirrors ``torch.optim.LBFGS``): a quasi-Newton method that needs a ``closure``.

Each ``step(closure)`` runs up to ``max_iter`` iterations: the search direction comes from the
two-loop recursion over the last ``history_size`` curvature pairs ``(s, y)``, and the step is a fixed
``lr`` (the first iteration is scaled by ``1 / sum|grad|``). PyTorch's stopping rules apply
(``tolerance_grad``, ``tolerance_change``, ``max_eval``). With ``line_search_fn="strong_wolfe"`` each
step's size comes from a line search instead (``_line_search.py``). All parameters form one flat
vector, so there is a single param group.
"""
from __future__ import annotations

import numpy as np

from .._tensor import _make
from ..autograd.grad_mode import enable_grad
from ._line_search import strong_wolfe
from .optimizer import Optimizer, _no_grad_step

__all__ = ["LBFGS"]


def _arr(t):
    return None if t is None else t._data


class LBFGS(Optimizer):
    """``LBFGS(params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
    history_size=100, line_search_fn=None)``; ``step(closure)`` returns the closure's first loss.

    Raises ValueError for more than one param group (as PyTorch); RuntimeError when ``step`` is called
    without a closure or with a ``line_search_fn`` other than ``"strong_wolfe"``.
    """

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                        tolerance_change=tolerance_change, history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _gather_flat_grad(self) -> np.ndarray:
        return np.concatenate([np.zeros(p._data.size, p._data.dtype) if p.grad is None
                               else p.grad._data.reshape(-1) for p in self._params])

    def _add_grad(self, step_size: float, direction: np.ndarray) -> None:
        offset = 0
        for p in self._params:
            n = p._data.size
            p._data += (step_size * direction[offset:offset + n]).reshape(p._data.shape).astype(p._data.dtype,
                                                                                              copy=False)
            offset += n

    def _directional_evaluator(self, closure, d: np.ndarray):
        """``evaluate(t)``: the loss and flat gradient at ``params + t * d``; the parameters are put back."""
        def evaluate(t):
            saved = [p._data.copy() for p in self._params]
            self._add_grad(t, d)
            with enable_grad():
                loss = float(closure())
            flat_grad = self._gather_flat_grad()
            for p, x in zip(self._params, saved):
                np.copyto(p._data, x)
            return loss, flat_grad
        return evaluate

    @_no_grad_step
    def step(self, closure=None):
        """Run up to ``max_iter`` L-BFGS iterations; ``closure()`` re-evaluates the loss and gradients."""
        if closure is None:
            raise RuntimeError("LBFGS requires a closure: optimizer.step(closure)")
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tol_grad, tol_change, history_size = group["tolerance_grad"], group["tolerance_change"], group["history_size"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if np.abs(flat_grad).max() <= tol_grad:
            return orig_loss
        # state keeps Tensors (as PyTorch does, so it saves and loads); the math runs on their arrays
        d, t, h_diag, prev_loss = _arr(state.get("d")), state.get("t"), state.get("H_diag"), state.get("prev_loss")
        prev_flat_grad = _arr(state.get("prev_flat_grad"))
        old_dirs, old_stps = [_arr(v) for v in state.get("old_dirs", [])], [_arr(v) for v in state.get("old_stps", [])]
        ro = list(state.get("ro", []))
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d, old_dirs, old_stps, ro, h_diag = -flat_grad, [], [], [], 1.0
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = float(y @ s)
                if ys > 1e-10:  # keep only pairs with positive curvature
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0), old_stps.pop(0), ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / float(y @ y)
                # two-loop recursion: d = -H grad
                al = [0.0] * len(old_dirs)
                q = -flat_grad
                for i in range(len(old_dirs) - 1, -1, -1):
                    al[i] = float(old_stps[i] @ q) * ro[i]
                    q = q - al[i] * old_dirs[i]
                d = r = q * h_diag
                # PyTorch keeps the two-loop coefficients as state["al"] (history_size slots); so does this
                kept = state.setdefault("al", [None] * history_size)
                kept[:len(al)] = [_make(np.asarray(a, flat_grad.dtype)) for a in al]
                for i in range(len(old_dirs)):
                    be_i = float(old_dirs[i] @ r) * ro[i]
                    r += old_stps[i] * (al[i] - be_i)
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss
            t = min(1.0, 1.0 / float(np.abs(flat_grad).sum())) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad @ d
            if gtd > -tol_change:  # not a descent direction
                break
            ls_func_evals = 0
            opt_cond = False
            if group["line_search_fn"] is not None:
                if group["line_search_fn"] != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                loss, flat_grad, t, ls_func_evals = strong_wolfe(self._directional_evaluator(closure, d), t, d, loss,
                                                                 flat_grad, gtd, max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = np.abs(flat_grad).max() <= tol_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    with enable_grad():
                        loss = float(closure())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= tol_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if np.abs(d * t).max() <= tol_change or abs(loss - prev_loss) < tol_change:
                break
        state.update(d=_make(d), t=t, old_dirs=[_make(v) for v in old_dirs], old_stps=[_make(v) for v in old_stps],
                     ro=ro, H_diag=h_diag, prev_flat_grad=_make(prev_flat_grad), prev_loss=prev_loss)
        return orig_loss
