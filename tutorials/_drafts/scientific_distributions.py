"""Draft for the scientific-computing tutorial: a zoo of paddle.distribution's distributions (their samples
against their densities), a KL divergence in closed form and by Monte Carlo, and a distribution fitted by
gradient descent through rsample (the reparameterization trick).

Run: .venv/bin/python tutorials/_drafts/scientific_distributions.py   (a few seconds; with matplotlib
installed it also saves distribution_zoo.png)
"""
import numpy as np

import minipaddle as paddle
from minipaddle import distribution as D

paddle.seed(2024)

# %% [markdown]
# ## 1. A zoo: samples against densities
# Every distribution can draw samples (`sample(shape)`) and evaluate its log-density (`log_prob`). If both
# are right, a histogram of many draws traces the density `prob(x)`. Below: for each distribution, the
# share of 20 000 draws in a few bins, next to what the density predicts for that bin: its integral over
# the bin, taken as the average of `prob` at 25 points across the bin times the bin's width.

# %%
zoo = {
    "Normal(0, 1)": D.Normal(0.0, 1.0),
    "Laplace(0, 1)": D.Laplace(0.0, 1.0),
    "Gumbel(0, 1)": D.Gumbel(0.0, 1.0),
    "StudentT(3, 0, 1)": D.StudentT(3.0, 0.0, 1.0),
    "Gamma(2, 1)": D.Gamma(2.0, 1.0),
    "Beta(2, 5)": D.Beta(2.0, 5.0),
    "LogNormal(0, 0.5)": D.LogNormal(0.0, 0.5),
}
ranges = {"Gamma(2, 1)": (0.0, 6.0), "Beta(2, 5)": (0.0, 1.0), "LogNormal(0, 0.5)": (0.0, 3.0)}

histograms = {}
for name, dist in zoo.items():
    draws = dist.sample([20000]).numpy()
    low, high = ranges.get(name, (-4.0, 4.0))
    counts, edges = np.histogram(draws, bins=6, range=(low, high))
    points = np.linspace(edges[:-1], edges[1:], 27)[1:-1]          # 25 points inside each bin
    density = dist.prob(paddle.to_tensor(points.astype("float32"))).numpy().astype("float64")
    histograms[name] = (draws, low, high, dist)
    print(f"{name:18s} mean {float(dist.mean):6.3f} (sampled {draws.mean():6.3f})")
    print("   sampled share:    ", np.round(counts / len(draws), 3).tolist())
    print("   integral of prob: ", np.round(density.mean(0) * (edges[1] - edges[0]), 3).tolist())

# %% [markdown]
# The two rows agree to the sampling noise (20 000 draws leave about 0.003 per bin). With matplotlib
# installed, the same comparison as a picture:

# %%
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    plt = None
if plt is not None:
    fig, axes = plt.subplots(1, len(histograms), figsize=(3 * len(histograms), 2.6))
    for ax, (name, (draws, low, high, dist)) in zip(axes, histograms.items()):
        ax.hist(draws, bins=40, range=(low, high), density=True, alpha=0.5)
        grid = np.linspace(low + 1e-3, high - 1e-3, 200).astype("float32")
        ax.plot(grid, dist.prob(paddle.to_tensor(grid)).numpy())
        ax.set_title(name, fontsize=11)
    fig.tight_layout()
    fig.savefig("distribution_zoo.png")
    print("saved distribution_zoo.png")

# %% [markdown]
# ## 2. KL divergence: closed form and Monte Carlo
# KL(p || q) = E_p[log p(x) - log q(x)]. For two normals it has a closed form, which `kl_divergence`
# looks up in its table (`register_kl` adds entries). Averaging log p - log q over draws from p estimates
# the same number.

# %%
p = D.Normal(0.0, 1.0)
q = D.Normal(1.0, 2.0)
x = p.sample([50000])
estimate = float((p.log_prob(x) - q.log_prob(x)).mean())
print(f"KL(p || q): closed form {float(D.kl_divergence(p, q)):.4f}, Monte Carlo {estimate:.4f}")

# %% [markdown]
# ## 3. Fitting a distribution through its samples
# `rsample` builds each draw as loc + scale * eps with eps ~ N(0, 1) drawn once, so the draw is a
# differentiable function of loc and scale. Minimizing a Monte Carlo estimate of KL(q || target) over q's
# parameters then works with plain gradient descent: q moves onto the target.

# %%
target = D.Normal(3.0, 0.5)
loc = paddle.to_tensor([0.0], stop_gradient=False)
log_scale = paddle.to_tensor([0.0], stop_gradient=False)   # scale = exp(log_scale) stays positive
optimizer = paddle.optimizer.Adam(learning_rate=0.1, parameters=[loc, log_scale])
for _ in range(150):
    q = D.Normal(loc, log_scale.exp())
    z = q.rsample([256])
    loss = (q.log_prob(z) - target.log_prob(z)).mean()
    loss.backward()
    optimizer.step()
    optimizer.clear_grad()
print(f"fitted loc {float(loc):.2f} (target 3.00), scale {float(log_scale.exp()):.2f} (target 0.50)")

# %% [markdown]
# ## Summary
# - A distribution has a batch shape (independent copies) and an event shape (one draw); `sample(shape)`
#   returns shape + batch_shape + event_shape.
# - `log_prob`, `entropy`, `mean`, `variance` (and `cdf` where Paddle has it) are tensors you can
#   differentiate; `rsample` makes the draws differentiable too.
# - `kl_divergence` dispatches on the pair of classes; Monte Carlo checks any entry.
#
# Exercises: fit a `Gamma` to the same target by maximum likelihood instead (its rsample is
# differentiable in the rate only, so use log_prob of fixed data); check `kl_divergence` for two `Beta`s
# by Monte Carlo.
