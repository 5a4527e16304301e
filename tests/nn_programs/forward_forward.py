"""The forward-forward algorithm (Hinton, 2022) on random data, written for PyTorch: each layer is trained
on its own to give high "goodness" (mean squared activation) to positive and low to negative inputs,
with no backward pass through the network. Run with torch or through ``python -m numtorch.alias``;
prints one JSON line with the per-layer losses and the accuracy of the goodness classifier."""
import json

import torch
import torch.nn as nn

torch.manual_seed(0)


class Layer(nn.Linear):
    def __init__(self, in_features, out_features):
        super().__init__(in_features, out_features)
        self.relu = nn.ReLU()
        self.opt = torch.optim.Adam(self.parameters(), lr=0.03)
        self.threshold = 2.0

    def forward(self, x):
        x_direction = x / (x.norm(2, 1, keepdim=True) + 1e-4)
        return self.relu(torch.mm(x_direction, self.weight.T) + self.bias.unsqueeze(0))

    def train_layer(self, x_pos, x_neg, epochs):
        losses = []
        for _ in range(epochs):
            g_pos = self.forward(x_pos).pow(2).mean(1)
            g_neg = self.forward(x_neg).pow(2).mean(1)
            loss = torch.log(1 + torch.exp(torch.cat([-g_pos + self.threshold, g_neg - self.threshold]))).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            losses.append(loss.item())
        return self.forward(x_pos).detach(), self.forward(x_neg).detach(), losses


def overlay(x, y, classes=4):
    x_ = x.clone()
    x_[:, :classes] *= 0.0
    x_[range(x.shape[0]), y] = x.max()
    return x_


x = torch.rand(32, 12)
y = torch.randint(0, 4, (32,))
x_pos = overlay(x, y)
x_neg = overlay(x, (y + torch.randint(1, 4, (32,))) % 4)
layers = [Layer(12, 16), Layer(16, 16)]
h_pos, h_neg, all_losses = x_pos, x_neg, []
for layer in layers:
    h_pos, h_neg, losses = layer.train_layer(h_pos, h_neg, epochs=15)
    all_losses.append(losses)

goodness_per_label = []
for label in range(4):
    h = overlay(x, torch.full((32,), label, dtype=torch.long))
    goodness = []
    for layer in layers:
        h = layer(h)
        goodness.append(h.pow(2).mean(1))
    goodness_per_label.append(sum(goodness).unsqueeze(1))
pred = torch.cat(goodness_per_label, 1).argmax(1)
print(json.dumps({"losses": all_losses, "accuracy": pred.eq(y).float().mean().item(), "pred": pred.tolist()}))
