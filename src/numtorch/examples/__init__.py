"""Runnable examples: ``python -m numtorch.examples.NAME --help``.

digits (default demo, no download), mnist, makemore, gpt, minilm. Each trains or runs a real model
with PyTorch-style code on numtorch, shows a tqdm progress bar, writes a checkpoint and a PNG of its
curves with ``--out DIR``, has ``--smoke`` for a seconds-long run, and prints its final metrics as
``name=value`` pairs on the last line.
"""
