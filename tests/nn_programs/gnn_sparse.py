"""Two graph neural networks on random graphs, written for PyTorch (one file: one interpreter start per run).

GCN (Kipf & Welling), two layers: the normalised adjacency D^-1/2 (A + I) D^-1/2 is a sparse COO tensor,
propagation is torch.sparse.mm and @, and learnable edge weights scale the adjacency's values (gradients
through the sparse values).

GAT (Velickovic et al.), two layers: layer 1 computes multi-head attention over edges with index ops and
scatter (index_add_); layer 2 puts the attention logits in a sparse COO matrix, normalises them with
torch.sparse.softmax and aggregates with torch.sparse.mm.
"""
import json

import torch
import torch.nn as nn
import torch.nn.functional as F

# ---------------------------------------------------------------------------------------------- GCN
torch.manual_seed(0)
N, FIN, HID, C = 40, 12, 16, 4
x = torch.randn(N, FIN)
y = torch.randint(0, C, (N,))
src, dst = torch.randint(0, N, (120,)), torch.randint(0, N, (120,))
loops = torch.arange(N)
edges = torch.cat([torch.stack([src, dst]), torch.stack([dst, src]), torch.stack([loops, loops])], 1)
A = torch.sparse_coo_tensor(edges, torch.ones(edges.shape[1]), (N, N)).coalesce()
idx = A.indices()
ones = torch.ones_like(A.values())  # binarised: repeated edges count once
deg = torch.sparse.sum(torch.sparse_coo_tensor(idx, ones, (N, N)), 1).to_dense()
dinv = deg.pow(-0.5)
norm = dinv[idx[0]] * dinv[idx[1]]


class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(FIN, HID)
        self.l2 = nn.Linear(HID, C)
        self.edge_weight = nn.Parameter(torch.ones(idx.shape[1]))

    def forward(self, x):
        adj = torch.sparse_coo_tensor(idx, norm * self.edge_weight, (N, N))
        h = F.relu(torch.sparse.mm(adj, self.l1(x)))
        h = F.dropout(h, 0.3, self.training)
        return adj @ self.l2(h)


model = GCN()
opt = torch.optim.Adam(model.parameters(), lr=0.02, weight_decay=5e-4)
train = torch.arange(N) < 30
losses = []
for step in range(12):
    opt.zero_grad()
    loss = F.cross_entropy(model(x)[train], y[train])
    loss.backward()
    opt.step()
    losses.append(loss.item())
model.eval()
with torch.no_grad():
    out = model(x)
results = {"gcn_losses": losses, "gcn_out": out.tolist(), "gcn_edge_weight": model.edge_weight.tolist(),
           "gcn_l1": model.l1.weight.tolist(), "gcn_deg": deg.tolist(), "gcn_nnz": int(A._nnz())}


# ---------------------------------------------------------------------------------------------- GAT
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
results.update(gat_losses=losses, gat_W1=model.l1.W.weight.tolist(), gat_a_src=model.l1.a_src.tolist(),
               gat_a2=model.l2.a.weight.tolist(), gat_out=model(x).tolist())
print(json.dumps(results))
