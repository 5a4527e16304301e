"""Training health, as Karpathy's makemore lectures (parts 3 and 4) plot it.

``Diagnostics(model, optimizer)`` attaches hooks and records, per layer and per step:

* forward hooks (``Module.register_forward_hook``) on the model's leaf modules: the output's mean and
  standard deviation, the share of saturated units for ``Tanh`` (``|out| > 0.97``) and ``Sigmoid``
  (within 0.03 of 0 or 1), the share of dead units for ``ReLU`` (zero for every example of the
  batch);
* tensor hooks (``Tensor.register_hook``) on those outputs: the gradient's mean and std;
* optimizer step hooks (``register_step_pre_hook`` / ``register_step_post_hook``), per parameter:
  the gradient-to-data ratio ``std(grad) / std(data)`` and the update-to-data ratio
  ``log10(std(update) / std(data))`` where ``update`` is what ``step()`` changed and ``data`` the
  parameter before it (the lecture's rule of thumb: about -3).

Standard deviations are PyTorch's default ``Tensor.std()`` (unbiased). ``plot_activations``,
``plot_gradients`` (histograms of the last recorded step, one curve per layer), ``plot_update_ratios``
(one curve per parameter over steps) write PNG files with matplotlib's Agg canvas (no display
needed). ``summary()`` gives a text report with warnings. ``remove()`` (or leaving a ``with`` block)
removes every hook it added::

    with Diagnostics(model, opt) as diag:
        for step in range(1000):
            loss = F.cross_entropy(model(x), y); opt.zero_grad(); loss.backward(); opt.step()
    print(diag.summary()); diag.plot_activations("act.png")
"""
from __future__ import annotations

import math
import os
from collections import OrderedDict

import numpy as np

from .. import nn
from .._tensor import Tensor

__all__ = ["Diagnostics", "LayerRecord", "ParamRecord"]

_ACTIVATIONS = (nn.Tanh, nn.Sigmoid, nn.ReLU)


def _std(a) -> float:
    """PyTorch's ``Tensor.std()``: unbiased (n - 1), in float64."""
    return float(np.std(a, dtype=np.float64, ddof=1)) if a.size > 1 else float("nan")


def _div(a: float, b: float) -> float:
    """a / b, with inf (or nan for 0 / 0) where b is 0: a constant parameter (a zero bias, BatchNorm's
    initial weight of ones) has no spread to compare with."""
    if b == 0 or b != b:
        return float("nan") if a == 0 or a != a else float("inf")
    return a / b


class LayerRecord:
    """What one layer's output looked like: lists indexed like ``steps`` (the grad lists like
    ``grad_steps``). ``saturated``: share of saturated (Tanh/Sigmoid) or dead (ReLU) units, or None."""

    def __init__(self, name, module):
        self.name, self.kind = name, type(module).__name__
        self.steps, self.mean, self.std, self.saturated = [], [], [], []
        self.grad_steps, self.grad_mean, self.grad_std = [], [], []
        self.last_output = self.last_grad = None  # arrays of the last recorded step, for histograms

    def __repr__(self):
        return f"LayerRecord({self.name!r}, {self.kind}, {len(self.steps)} steps)"


class ParamRecord:
    """One parameter's ratios per recorded optimizer step (``steps``)."""

    def __init__(self, name, shape):
        self.name, self.shape = name, tuple(shape)
        self.steps, self.grad_data, self.update_data = [], [], []

    def __repr__(self):
        return f"ParamRecord({self.name!r}, {len(self.steps)} steps)"


class Diagnostics:
    """Record activation, gradient and update statistics of ``model`` during training.

    Args:
        model: any ``nn.Module``; its leaf modules (or those of ``layer_types``) are watched.
        optimizer: the optimizer whose ``step()`` ends each training step; without one call
            ``diag.step()`` after each step (then no update ratios are recorded).
        layer_types: module classes to watch (default: every leaf module).
        every: record every ``every``-th step (forward statistics, gradients and ratios).
        saturation: the ``|tanh|`` threshold (sigmoid: distance ``1 - saturation`` from 0 or 1).
        train_only: ignore forward passes of modules in eval mode (e.g. validation).

    Attributes: ``layers`` (name -> ``LayerRecord``), ``params`` (name -> ``ParamRecord``),
    ``step_count`` (optimizer steps seen).
    """

    def __init__(self, model, optimizer=None, layer_types=None, every=1, saturation=0.97, train_only=True):
        self.model, self.optimizer = model, optimizer
        self.every, self.saturation, self.train_only = max(1, int(every)), saturation, train_only
        self.step_count = 0
        self.layers = OrderedDict()
        self.params = OrderedDict((n, ParamRecord(n, p.shape)) for n, p in model.named_parameters())
        self._param_names = {id(p): n for n, p in model.named_parameters()}
        self._handles = []          # module and optimizer hooks
        self._tensor_handles = {}   # handle id -> handle of a tensor hook not fired yet
        self._before = {}           # parameter name -> its data before the current step()
        self._named = None          # parameter name -> parameter, made at the first step
        for name, m in model.named_modules():
            leaf = not m._modules
            if (layer_types is None and leaf) or (layer_types is not None and isinstance(m, tuple(layer_types))):
                self.layers[name] = LayerRecord(name or type(m).__name__, m)
                self._handles.append(m.register_forward_hook(self._forward_hook(name)))
        if optimizer is not None:
            self._handles.append(optimizer.register_step_pre_hook(self._pre_step))
            self._handles.append(optimizer.register_step_post_hook(self._post_step))

    # ------------------------------------------------------------------ hooks
    def _recording(self) -> bool:
        return self.step_count % self.every == 0

    def _forward_hook(self, name):
        def hook(module, inputs, output):
            if not isinstance(output, Tensor) or not self._recording() or (self.train_only and not module.training):
                return None
            rec = self.layers[name]
            a = output._data
            if a.dtype.kind not in "fc":
                return None
            if rec.steps and rec.steps[-1] == self.step_count:  # a second forward in one step: keep the last
                for lst in (rec.steps, rec.mean, rec.std, rec.saturated):
                    lst.pop()
            rec.steps.append(self.step_count)
            rec.mean.append(float(np.mean(a, dtype=np.float64)))
            rec.std.append(_std(a))
            rec.saturated.append(self._saturated(module, a))
            rec.last_output = a
            if output.requires_grad:
                self._watch_grad(output, rec)
            return None
        return hook

    def _saturated(self, module, a):
        if isinstance(module, nn.Tanh):
            return float(np.mean(np.abs(a) > self.saturation))
        if isinstance(module, nn.Sigmoid):
            return float(np.mean((a < 1 - self.saturation) | (a > self.saturation)))
        if isinstance(module, nn.ReLU):  # dead: zero for every example (rows of dim 0) of the batch
            flat = a.reshape(a.shape[0], -1) if a.ndim > 1 else a.reshape(1, -1)
            return float(np.mean(np.all(flat == 0, axis=0)))
        return None

    def _watch_grad(self, output, rec):
        step = self.step_count
        handle = None

        def grad_hook(g):
            self._tensor_handles.pop(handle.id, None)
            ga = g._data
            if rec.grad_steps and rec.grad_steps[-1] == step:
                for lst in (rec.grad_steps, rec.grad_mean, rec.grad_std):
                    lst.pop()
            rec.grad_steps.append(step)
            rec.grad_mean.append(float(np.mean(ga, dtype=np.float64)))
            rec.grad_std.append(_std(ga))
            rec.last_grad = ga
            return None

        handle = output.register_hook(grad_hook)
        self._tensor_handles[handle.id] = handle

    def _pre_step(self, optimizer, args, kwargs):
        if not self._recording():
            return None
        self._before = {}
        for group in optimizer.param_groups:
            for p in group["params"]:
                name = self._param_names.get(id(p))
                if name is None or p.grad is None:
                    continue
                self._before[name] = p._data.copy()
                rec = self.params[name]
                rec.steps.append(self.step_count)
                rec.grad_data.append(_div(_std(p.grad._data), _std(p._data)))
        return None

    def _post_step(self, optimizer, args, kwargs):
        for name, old in self._before.items():
            p = self._by_name(name)
            update = p._data.astype(np.float64) - old
            ratio = _div(_std(update), _std(old))
            self.params[name].update_data.append(math.log10(ratio) if ratio > 0 else
                                                 float("-inf") if ratio == 0 else ratio)
        self._before = {}
        self.step()

    def _by_name(self, name):
        if self._named is None:
            self._named = dict(self.model.named_parameters())
        return self._named[name]

    def step(self):
        """Mark the end of a training step (done by the optimizer's step hook when one is given)."""
        self.step_count += 1
        for h in list(self._tensor_handles.values()):  # gradients that never came (no backward this step)
            h.remove()
        self._tensor_handles.clear()

    # ------------------------------------------------------------------ removal
    def remove(self):
        """Remove every hook this object added (module, optimizer and pending tensor hooks)."""
        for h in self._handles:
            h.remove()
        self._handles = []
        for h in list(self._tensor_handles.values()):
            h.remove()
        self._tensor_handles.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False

    # ------------------------------------------------------------------ reports
    def summary(self, saturated_warn=0.10, dead_warn=0.10, ratio_high=-2.0, ratio_low=-4.0, last=10) -> str:
        """Text report: per layer the last recorded mean/std/saturation and gradient std, per parameter
        the mean of the last ``last`` update ratios; then warnings (saturated or dead share above the
        thresholds, update/data ratio above 10**ratio_high or below 10**ratio_low)."""
        lines = [f"diagnostics after {self.step_count} steps"]
        warnings = []
        for rec in self.layers.values():
            if not rec.steps:
                continue
            line = f"layer {rec.name} ({rec.kind}): mean {rec.mean[-1]:+.3f} std {rec.std[-1]:.3f}"
            sat = rec.saturated[-1]
            if sat is not None:
                what = "dead" if rec.kind == "ReLU" else "saturated"
                line += f" {what} {100 * sat:.1f}%"
                if sat > (dead_warn if what == "dead" else saturated_warn):
                    warnings.append(f"layer {rec.name} ({rec.kind}): {100 * sat:.0f}% of units {what}")
            if rec.grad_std:
                line += f" grad std {rec.grad_std[-1]:.2e}"
            lines.append(line)
        for rec in self.params.values():
            recent = [u for u in rec.update_data[-last:] if math.isfinite(u)]
            if not recent:
                continue
            ud = float(np.mean(recent))
            gd = rec.grad_data[-1]
            lines.append(f"param {rec.name} {list(rec.shape)}: grad/data {gd:.2e} update/data log10 {ud:+.2f}")
            if len(rec.shape) < 2:  # the lectures judge the weights; biases start at zero
                continue
            if ud > ratio_high:
                warnings.append(f"update/data ratio 1e{round(ud)} for '{rec.name}': learning rate too high?")
            elif ud < ratio_low:
                warnings.append(f"update/data ratio 1e{round(ud)} for '{rec.name}': learning rate too low?")
        lines += ["warnings:"] + [f"  {w}" for w in warnings] if warnings else ["no warnings"]
        return "\n".join(lines)

    def warnings(self, **kwargs) -> list[str]:
        """The warning lines of ``summary()``."""
        text = self.summary(**kwargs)
        return [line.strip() for line in text.split("warnings:\n", 1)[1].splitlines()] if "warnings:" in text else []

    def _figure(self, width=8, height=4):
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # optional dependency, plots only
        from matplotlib.figure import Figure  # optional dependency, plots only
        fig = Figure(figsize=(width, height))
        FigureCanvasAgg(fig)
        return fig, fig.add_subplot(1, 1, 1)

    def _histograms(self, path, attr, title, layer_types):
        fig, ax = self._figure()
        types = tuple(t.__name__ if isinstance(t, type) else t for t in layer_types) if layer_types else None
        recs = [r for r in self.layers.values() if getattr(r, attr) is not None]
        if types is None and any(r.kind in {t.__name__ for t in _ACTIVATIONS} for r in recs):
            types = tuple(t.__name__ for t in _ACTIVATIONS)  # the lectures plot the nonlinearities
        legends = []
        for rec in recs:
            if types is not None and rec.kind not in types:
                continue
            a = np.asarray(getattr(rec, attr), dtype=np.float64).reshape(-1)
            hy, hx = np.histogram(a, bins=50, density=True)
            ax.plot((hx[:-1] + hx[1:]) / 2, hy)
            extra = ""
            if attr == "last_output" and rec.saturated and rec.saturated[-1] is not None:
                extra = f", {'dead' if rec.kind == 'ReLU' else 'saturated'} {100 * rec.saturated[-1]:.1f}%"
            legends.append(f"layer {rec.name} ({rec.kind}): mean {a.mean():+.2f}, std {a.std(ddof=1):.2e}{extra}")
        ax.legend(legends, fontsize=7)
        last = max((r.steps[-1] for r in recs if r.steps), default=0)
        ax.set_title(f"{title} (step {last}, counting from 0)")
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        return path

    def plot_activations(self, path, layer_types=None):
        """Histograms of the last recorded outputs, one curve per layer (the nonlinearities, when the
        model has any, else every layer; or those of ``layer_types``); writes ``path`` (PNG)."""
        return self._histograms(path, "last_output", "activation distribution", layer_types)

    def plot_gradients(self, path, layer_types=None):
        """Histograms of the last recorded output gradients, one curve per layer; writes ``path``."""
        return self._histograms(path, "last_grad", "gradient distribution", layer_types)

    def plot_update_ratios(self, path, min_dim=2):
        """log10(std(update) / std(data)) per step, one curve per parameter with at least ``min_dim``
        dimensions (the weights), and the lecture's -3 guide line; writes ``path``."""
        fig, ax = self._figure()
        legends = []
        for rec in self.params.values():
            if len(rec.shape) >= min_dim and rec.update_data:
                ax.plot(rec.steps[:len(rec.update_data)], rec.update_data)
                legends.append(rec.name)
        if legends:
            ax.axhline(-3, color="k", linestyle="--", linewidth=0.8)
        ax.legend(legends, fontsize=7)
        ax.set_xlabel("step")
        ax.set_ylabel("log10(update std / data std)")
        ax.set_title("update:data ratio")
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        return path

    def plot_all(self, directory, prefix="diagnostics"):
        """All three plots into ``directory``; returns their paths."""
        os.makedirs(directory, exist_ok=True)
        return [self.plot_activations(os.path.join(directory, f"{prefix}_activations.png")),
                self.plot_gradients(os.path.join(directory, f"{prefix}_gradients.png")),
                self.plot_update_ratios(os.path.join(directory, f"{prefix}_update_ratios.png"))]
