"""Shared plumbing of the examples: arguments, progress bars, curves, checkpoints, the final metric line."""
from __future__ import annotations

import argparse
import os
import time

import numtorch as torch


def parser(description: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--seed", type=int, default=1337, help="random seed (numtorch.manual_seed)")
    ap.add_argument("--out", default=None, help="directory for the checkpoint (.pt) and the curves (.png)")
    ap.add_argument("--smoke", action="store_true", help="tiny configuration that finishes in seconds (for tests)")
    ap.add_argument("--no-progress", action="store_true", help="disable the tqdm progress bar")
    return ap


def progress(iterable, args, **kwargs):
    """A tqdm progress bar (plain iteration when tqdm is missing or --no-progress/--smoke is given)."""
    if args.no_progress or args.smoke:
        return iterable
    try:
        from tqdm.auto import tqdm  # optional: only the progress bar needs tqdm
    except ImportError:
        return iterable
    return tqdm(iterable, **kwargs)


def save_outputs(args, name: str, checkpoint: dict, curves: dict, xlabel: str = "step", ylabel: str = "loss"):
    """Write ``DIR/NAME.pt`` (numtorch.save, loadable by torch.load) and ``DIR/NAME.png`` (curves)."""
    if not args.out:
        return None
    os.makedirs(args.out, exist_ok=True)
    ckpt = os.path.join(args.out, f"{name}.pt")
    torch.save(checkpoint, ckpt)
    png = os.path.join(args.out, f"{name}.png")
    import matplotlib  # optional and slow to import: only plots need it
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # optional: only plots need it
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, (xs, ys) in curves.items():
        ax.plot(xs, ys, label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(name)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)
    return ckpt, png


SMOKE_NOTICE = "smoke run (a tiny configuration that checks the example runs): the metrics below are not meaningful"


def final_line(smoke: bool = False, **metrics) -> str:
    """Print (and return) the last line: ``name=value`` pairs, floats with 4 decimals (seconds with 1).

    ``smoke=True`` (a ``--smoke`` run) prints ``SMOKE_NOTICE`` on the line before, so that a smoke
    run's accuracy or loss is not read as a failed training; the last line keeps its format."""
    if smoke:
        print(SMOKE_NOTICE, flush=True)
    parts = []
    for k, v in metrics.items():
        if isinstance(v, float):
            parts.append(f"{k}={v:.1f}" if k == "seconds" else f"{k}={v:.4f}")
        else:
            parts.append(f"{k}={v}")
    line = " ".join(parts)
    print(line, flush=True)
    return line


class Timer:
    def __init__(self):
        self.t0 = time.perf_counter()

    def __call__(self) -> float:
        return time.perf_counter() - self.t0
