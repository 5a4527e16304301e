"""A DCGAN (Radford et al.) training on random 16x16 images, written for PyTorch: run as is with torch, or
through ``python -m numtorch.alias``. Prints one JSON line: the losses of each step and weight sums."""
import json

import torch
import torch.nn as nn

torch.manual_seed(0)
nz, ngf, ndf, nc = 8, 8, 8, 3


def weights_init(m):
    name = m.__class__.__name__
    if name.find("Conv") != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif name.find("BatchNorm") != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


netG = nn.Sequential(
    nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
    nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
    nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False), nn.Tanh())
netD = nn.Sequential(
    nn.Conv2d(nc, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
    nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2), nn.LeakyReLU(0.2, inplace=True),
    nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False), nn.Sigmoid())
netG.apply(weights_init)
netD.apply(weights_init)
criterion = nn.BCELoss()
optD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
optG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
real_label, fake_label = 1.0, 0.0
losses = []
for step in range(3):
    real = torch.rand(6, nc, 16, 16) * 2 - 1
    netD.zero_grad()
    label = torch.full((6,), real_label)
    errD_real = criterion(netD(real).view(-1), label)
    errD_real.backward()
    noise = torch.randn(6, nz, 1, 1)
    fake = netG(noise)
    label.fill_(fake_label)
    errD_fake = criterion(netD(fake.detach()).view(-1), label)
    errD_fake.backward()
    optD.step()
    netG.zero_grad()
    label.fill_(real_label)
    errG = criterion(netD(fake).view(-1), label)
    errG.backward()
    optG.step()
    losses.append([errD_real.item(), errD_fake.item(), errG.item()])
print(json.dumps({"losses": losses, "G": [p.detach().double().sum().item() for p in netG.parameters()],
                  "D": [p.detach().double().sum().item() for p in netD.parameters()],
                  "bn": netD[3].running_var.tolist()}))
