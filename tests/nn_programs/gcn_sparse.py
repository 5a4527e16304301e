"""A two-layer graph convolution network (Kipf & Welling) on a random graph, written for PyTorch: the
normalised adjacency D^-1/2 (A + I) D^-1/2 is a sparse COO tensor, propagation is torch.sparse.mm and @,
and learnable edge weights scale the adjacency's values (gradients through the sparse values)."""
import json

import torch
import torch.nn as nn
import torch.nn.functional as F

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
print(json.dumps({"losses": losses, "out": out.tolist(), "edge_weight": model.edge_weight.tolist(),
                  "l1": model.l1.weight.tolist(), "deg": deg.tolist(), "nnz": int(A._nnz())}))
