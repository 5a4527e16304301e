"""The strong-Wolfe line search of ``torch.optim.LBFGS(line_search_fn="strong_wolfe")``.

Nocedal & Wright, *Numerical Optimization*, algorithms 3.5 (bracketing) and 3.6 (zoom), with the
trial steps chosen by cubic interpolation, in the order PyTorch evaluates them, so that the same
closure sees the same sequence of step sizes.
"""
from __future__ import annotations

import numpy as np

__all__ = ["strong_wolfe"]


def cubic_minimizer(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through ``(x1, f1)``, ``(x2, f2)`` with slopes ``g1``, ``g2``, clamped to
    ``bounds`` (default: the interval between ``x1`` and ``x2``); the middle of the bounds when the cubic
    has no minimum."""
    lo, hi = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1 ** 2 - g1 * g2
    if disc < 0:
        return (lo + hi) / 2.0
    d2 = np.sqrt(disc)
    if x1 <= x2:
        x = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        x = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(x, lo), hi)


def strong_wolfe(evaluate, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """Search along direction ``d`` from the current point (loss ``f``, flat gradient ``g``, slope
    ``gtd = g @ d``) for a step ``t`` meeting the strong Wolfe conditions::

        f(t) <= f + c1 * t * gtd        (sufficient decrease)
        |f'(t)| <= c2 * |gtd|           (curvature)

    ``evaluate(t)`` returns ``(loss, flat_grad)`` at the point ``x + t * d`` (and puts the parameters
    back). Returns ``(loss, flat_grad, t, evaluations)`` of the accepted step.
    """
    d_norm = np.abs(d).max()
    f_new, g_new = evaluate(t)
    evals, gtd_new = 1, g_new @ d
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g.copy(), gtd
    done, it = False, 0
    # 1. bracketing: grow the step until an interval [lo, hi] is known to contain an acceptable one
    while it < max_ls:
        accept = abs(gtd_new) <= -c2 * gtd
        overshoot = f_new > f + c1 * t * gtd or (it > 1 and f_new >= f_prev)
        if overshoot or (not accept and gtd_new >= 0):  # a minimum lies between t_prev and t
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if accept:
            bracket, bracket_f, bracket_g, done = [t], [f_new], [g_new], True
            break
        # extrapolate: the cubic's minimiser, between 1.01 t and 10 t
        t_prev, t = t, cubic_minimizer(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                       bounds=(t + 0.01 * (t - t_prev), t * 10))
        f_prev, g_prev, gtd_prev = f_new, g_new.copy(), gtd_new
        f_new, g_new = evaluate(t)
        evals, gtd_new, it = evals + 1, g_new @ d, it + 1
    if it == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]
    # 2. zoom: shrink the bracket (low end: the lower loss) until a step satisfies both conditions
    insufficient = False
    low, high = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and it < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = cubic_minimizer(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])
        # keep trial steps away from the bracket's ends (a step too close makes no progress)
        top, bottom = max(bracket), min(bracket)
        eps = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < eps:
            if insufficient or t >= top or t <= bottom:
                t = top - eps if abs(t - top) < abs(t - bottom) else bottom + eps
                insufficient = False
            else:
                insufficient = True
        else:
            insufficient = False
        f_new, g_new = evaluate(t)
        evals, gtd_new, it = evals + 1, g_new @ d, it + 1
        if f_new > f + c1 * t * gtd or f_new >= bracket_f[low]:
            bracket[high], bracket_f[high], bracket_g[high], bracket_gtd[high] = t, f_new, g_new.copy(), gtd_new
            low, high = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], bracket_f[high] = bracket[low], bracket_f[low]
                bracket_g[high], bracket_gtd[high] = bracket_g[low], bracket_gtd[low]
            bracket[low], bracket_f[low], bracket_g[low], bracket_gtd[low] = t, f_new, g_new.copy(), gtd_new
    return bracket_f[low], bracket_g[low], bracket[low], evals
