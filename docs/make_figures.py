"""Make the pictures of docs/viz.md, docs/diagnostics.md and docs/profiler.md into docs/img/.

    python docs/make_figures.py            # from the repository root, with numtorch[viz] installed

* ``img/viz_mlp.svg``: ``draw_graph`` of a small MLP's loss (needs Graphviz's ``dot``; without it the
  DOT text is written to ``img/viz_mlp.dot`` and the script says how to render it);
* ``img/viz_double_backward.svg``: the graph of a gradient penalty (a ``create_graph=True`` result);
* ``img/diagnostics_*.png``: ``Diagnostics`` plots of 1000 steps of the makemore MLP + BatchNorm
  model (lecture 4) on ``names.txt`` (``--names PATH``; default ``../shared/data/names.txt``, else
  made-up names);
* ``img/profiler_trace.png``: the recorded events of one training step as a timeline (the view
  ``chrome://tracing`` shows for ``export_chrome_trace``), drawn with matplotlib; and
  ``img/profiler_table.txt``, the ``key_averages().table()`` shown on the page.
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # steadier timings for the profiler picture
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))

import numtorch as torch  # noqa: E402
import numtorch.nn as nn  # noqa: E402
import numtorch.nn.functional as F  # noqa: E402
from numtorch.examples import makemore  # noqa: E402
from numtorch.profiler import ProfilerActivity, profile, record_function  # noqa: E402
from numtorch.utils.diagnostics import Diagnostics  # noqa: E402
from numtorch.utils.viz import draw_graph, render  # noqa: E402

IMG = os.path.join(HERE, "img")


def graph_figures():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    x, y = torch.randn(16, 3), torch.randn(16, 1)
    loss = F.mse_loss(model(x), y)
    params = dict(model.named_parameters())
    x_hat = torch.randn(8, 3, requires_grad=True)
    (g,) = torch.autograd.grad(model(x_hat).sum(), x_hat, create_graph=True)
    penalty = ((g.norm(2, dim=1) - 1) ** 2).mean()
    for name, t in (("viz_mlp", loss), ("viz_double_backward", penalty)):
        dot = draw_graph(t, params=params)
        if shutil.which("dot"):
            print("wrote", render(dot, os.path.join(IMG, name + ".svg"), format="svg"))
        else:
            path = os.path.join(IMG, name + ".dot")
            with open(path, "w") as f:
                f.write(dot.source)
            print(f"wrote {path}; Graphviz's dot is not installed: render it with `dot -Tsvg {path} -o "
                  f"{path[:-4]}.svg` after installing graphviz (apt-get install graphviz / brew install graphviz)")


def read_names(path):
    if path and os.path.exists(path):
        return makemore.read_words(path)
    rng = random.Random(0)  # made-up names, so the figures can be made anywhere
    syl = ["an", "be", "ca", "do", "el", "fi", "ga", "ha", "is", "jo", "ki", "lu", "ma", "ne", "ol", "pa", "ri",
           "sa", "ty", "wen", "xa", "ya", "zo", "mi", "la", "ra", "qu", "uv"]
    return ["".join(rng.choice(syl) for _ in range(rng.randint(1, 4))) for _ in range(5000)]


def diagnostics_figures(names_path, steps=1000):
    words = read_names(names_path)
    stoi, _ = makemore.vocabulary(words)
    x, y = makemore.build_dataset(makemore.split_words(words)[0], stoi, 3)
    torch.manual_seed(42)
    model = makemore.make_mlp_bn(len(stoi))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with Diagnostics(model, opt) as diag:
        for _ in range(steps):
            ix = torch.randint(0, len(y), (32,))
            loss = F.cross_entropy(model(x[ix]), y[ix])
            opt.zero_grad()
            loss.backward()
            opt.step()
    for path in diag.plot_all(IMG, prefix="diagnostics"):
        print("wrote", path)
    print(diag.summary())


def profiler_figures():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 128), nn.Tanh(), nn.Linear(128, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(256, 64), torch.randint(0, 10, (256,))
    for _ in range(3):  # warm up (first calls allocate)
        F.cross_entropy(model(x), y).backward()
        opt.step()
        opt.zero_grad()
    for _ in range(2):  # the second profile is shown (the first one's first calls pay for warming up)
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            with record_function("forward"):
                loss = F.cross_entropy(model(x), y)
            with record_function("backward"):
                loss.backward()
            with record_function("optimizer.step"):
                opt.step()
        opt.zero_grad()
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=12)
    with open(os.path.join(IMG, "profiler_table.txt"), "w") as f:
        f.write(table)
    print(table)
    draw_timeline(prof.events(), os.path.join(IMG, "profiler_trace.png"))


def draw_timeline(events, path):
    """Each event as a bar at its nesting depth, as chrome://tracing draws a trace."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # only this figure draws directly
    from matplotlib.figure import Figure  # only this figure draws directly
    fig = Figure(figsize=(9, 2.6))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    t0 = min(e.start_us for e in events)
    colors = {}
    for e in events:
        depth, p = 0, e.cpu_parent
        while p is not None:
            depth, p = depth + 1, p.cpu_parent
        c = colors.setdefault(e.name.split(": ")[-1], f"C{len(colors) % 10}")
        ax.barh(-depth, e.cpu_time_total / 1e3, left=(e.start_us - t0) / 1e3, height=0.8, color=c, edgecolor="k",
                linewidth=0.3)
        if e.cpu_time_total > 0.06 * (max(v.end_us for v in events) - t0):
            ax.text((e.start_us - t0) / 1e3, -depth, " " + e.name.split(": ")[-1], va="center", fontsize=6)
    ax.set_yticks([])
    ax.set_xlabel("ms")
    ax.set_title("profiler events of one training step (export_chrome_trace shows the same in Perfetto)",
                 fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    print("wrote", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--names", default=os.path.join(HERE, "..", "..", "shared", "data", "names.txt"))
    args = ap.parse_args()
    os.makedirs(IMG, exist_ok=True)
    graph_figures()
    diagnostics_figures(args.names)
    profiler_figures()


if __name__ == "__main__":
    main()
