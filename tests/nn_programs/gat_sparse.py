"""A two-layer graph attention network (Velickovic et al.) on a random graph, written for PyTorch: layer 1
computes attention over edges with index ops and scatter (index_add_), layer 2 puts the attention logits in a
sparse COO matrix, normalises them with torch.sparse.softmax and aggregates with torch.sparse.mm."""
import json

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)
N, FIN, HID, HEADS, C = 30, 10, 8, 2, 3
x = torch.randn(N, FIN)
y = torch.randint(0, C, (N,))
src, dst = torch.randint(0, N, (90,)), torch.randint(0, N, (90,))
loops = torch.arange(N)
pairs = torch.cat([torch.stack([dst, src]), torch.stack([src, dst]), torch.stack([loops, loops])], 1)
adj = torch.sparse_coo_tensor(pairs, torch.ones(pairs.shape[1]), (N, N)).coalesce()
dst, src = adj.indices()  # unique edges src -> dst, self loops included


class EdgeAttention(nn.Module):
    """Multi-head attention over the edges, normalised per destination node with scatter sums."""

    def __init__(self, fin, fout, heads):
        super().__init__()
        self.heads, self.fout = heads, fout
        self.W = nn.Linear(fin, heads * fout, bias=False)
        self.a_src = nn.Parameter(torch.empty(heads, fout))
        self.a_dst = nn.Parameter(torch.empty(heads, fout))
        nn.init.xavier_uniform_(self.a_src)
        nn.init.xavier_uniform_(self.a_dst)

    def forward(self, x):
        h = self.W(x).view(-1, self.heads, self.fout)
        e = F.leaky_relu((h * self.a_src).sum(-1)[src] + (h * self.a_dst).sum(-1)[dst], 0.2)  # (E, heads)
        w = (e - e.max()).exp()
        denom = torch.zeros(N, self.heads).index_add_(0, dst, w)
        alpha = w / denom[dst]
        out = torch.zeros(N, self.heads, self.fout).index_add_(0, dst, alpha.unsqueeze(-1) * h[src])
        return out.reshape(N, -1)


class SparseAttention(nn.Module):
    """One head whose attention matrix is a sparse COO tensor: sparse.softmax over each row's edges."""

    def __init__(self, fin, fout):
        super().__init__()
        self.W = nn.Linear(fin, fout, bias=False)
        self.a = nn.Linear(2 * fout, 1, bias=False)

    def forward(self, x):
        h = self.W(x)
        logits = F.leaky_relu(self.a(torch.cat([h[dst], h[src]], 1)).squeeze(1), 0.2)
        att = torch.sparse.softmax(torch.sparse_coo_tensor(torch.stack([dst, src]), logits, (N, N)), 1)
        return torch.sparse.mm(att, h)


class GAT(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = EdgeAttention(FIN, HID, HEADS)
        self.l2 = SparseAttention(HID * HEADS, C)

    def forward(self, x):
        return self.l2(F.elu(self.l1(x)))


model = GAT()
opt = torch.optim.Adam(model.parameters(), lr=0.01)
losses = []
for step in range(10):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    losses.append(loss.item())
print(json.dumps({"losses": losses, "W1": model.l1.W.weight.tolist(), "a_src": model.l1.a_src.tolist(),
                  "a2": model.l2.a.weight.tolist(), "out": model(x).tolist()}))
