"""A small variational autoencoder on scikit-learn's handwritten digits.

The 1,797 8x8 digit scans that ship inside scikit-learn (scaled to [0, 1]) are encoded into a
2-dimensional latent space. The encoder gives a diagonal Normal posterior q(z | x), sampled
with ``rsample`` (the reparameterisation trick); the decoder gives a ContinuousBernoulli
likelihood p(x | z) for the pixel intensities (proper for values in [0, 1], unlike a
Bernoulli); the prior is a standard Normal. The loss is the negative ELBO:

    ELBO = E_q[log p(x | z)] - KL(q(z | x) || p(z))

with the KL term in closed form from ``kl_divergence``. Runs unchanged under PyTorch.

    python examples/vae/main.py [--epochs 10] [--latent 2] [--seed 0]
"""

import argparse
import time

import numpy as np

import torch
import torch.nn as nn
import torch.optim as optim
from torch.distributions import ContinuousBernoulli, Independent, Normal, kl_divergence


def load_digits_01():
    """The digits as a float32 tensor of shape (1797, 64) with values in [0, 1]."""
    from sklearn.datasets import load_digits

    images = load_digits().images.reshape(-1, 64).astype(np.float32) / 16.0
    return torch.tensor(images.tolist(), dtype=torch.float32)


class VAE(nn.Module):
    """Encoder 64 -> hidden -> (mu, log sigma) of q(z | x); decoder latent -> hidden -> 64
    logits of p(x | z)."""

    def __init__(self, latent=2, hidden=128):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(64, hidden), nn.ReLU())
        self.to_loc = nn.Linear(hidden, latent)
        self.to_log_scale = nn.Linear(hidden, latent)
        self.decoder = nn.Sequential(nn.Linear(latent, hidden), nn.ReLU(), nn.Linear(hidden, 64))
        self.latent = latent

    def posterior(self, x):
        """q(z | x): a diagonal Normal, one event of ``latent`` dims per row."""
        h = self.encoder(x)
        return Independent(Normal(self.to_loc(h), self.to_log_scale(h).exp()), 1)

    def likelihood(self, z):
        """p(x | z): independent continuous Bernoullis over the 64 pixels."""
        return Independent(ContinuousBernoulli(logits=self.decoder(z)), 1)

    def prior(self, batch):
        zeros = torch.zeros(batch, self.latent)
        return Independent(Normal(zeros, torch.ones(batch, self.latent)), 1)

    def elbo(self, x):
        """The evidence lower bound of each row of ``x`` (one reparameterised sample)."""
        q = self.posterior(x)
        z = q.rsample()
        log_lik = self.likelihood(z).log_prob(x)
        return log_lik - kl_divergence(q, self.prior(x.shape[0]))


def train(epochs=10, latent=2, seed=0, batch_size=64, lr=3e-3, log=print):
    """Train and return the list of per-epoch mean training ELBOs (nats per image)."""
    torch.manual_seed(seed)
    data = load_digits_01()
    model = VAE(latent)
    opt = optim.Adam(model.parameters(), lr=lr)
    n = data.shape[0]
    history = []
    for epoch in range(1, epochs + 1):
        start = time.time()
        perm = torch.randperm(n)
        total = 0.0
        for i in range(0, n, batch_size):
            x = data[perm[i : i + batch_size]]
            loss = -model.elbo(x).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += -float(loss) * x.shape[0]
        history.append(total / n)
        log(f"epoch {epoch:3d}  ELBO {history[-1]:9.3f}  ({time.time() - start:.2f} s)")
    return history


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--latent", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    train(args.epochs, args.latent, args.seed)


if __name__ == "__main__":
    main()
