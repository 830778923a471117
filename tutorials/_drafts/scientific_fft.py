"""Draft for the scientific-computing tutorial: a signal's spectrum with paddle.fft, and a filter in the
frequency domain whose cutoff is learned by gradient descent (the gradient flows through rfft and irfft).

Run: .venv/bin/python tutorials/_drafts/scientific_fft.py   (about a second)
"""
import numpy as np

import minipaddle as paddle

# %% [markdown]
# ## 1. A spectrum: which frequencies are in a signal?
# One second of a 5 Hz tone plus a weaker 40 Hz hum, sampled 200 times. `rfft` gives the n // 2 + 1
# non-negative frequencies of a real signal (the negative ones mirror them); `rfftfreq` says which
# frequency, in Hz, each entry stands for.

# %%
rate = 200
t = paddle.arange(rate, dtype="float32") / rate
tone = paddle.sin(2 * np.pi * 5 * t)
hum = 0.5 * paddle.sin(2 * np.pi * 40 * t)
signal = tone + hum

spectrum = paddle.fft.rfft(signal)                 # complex64, 101 entries
freqs = paddle.fft.rfftfreq(rate, d=1.0 / rate)   # 0, 1, ..., 100 Hz
amplitude = paddle.abs(spectrum) * 2 / rate        # a sine of amplitude A shows as A
_, peaks = paddle.topk(amplitude, k=2)
print("strongest frequencies (Hz):", sorted(freqs.numpy()[peaks.numpy()].tolist()))
print("their amplitudes:", np.round(np.sort(amplitude.numpy()[peaks.numpy()]), 3).tolist())

# %% [markdown]
# ## 2. Filtering in the frequency domain, with a gradient
# A low-pass filter multiplies the spectrum by a mask that is 1 below a cutoff and 0 above it, then goes
# back with `irfft`. Make the mask soft (a sigmoid of frequency) and its cutoff a parameter: the loss
# "filtered signal vs the clean tone" is then differentiable in the cutoff, through rfft, the mask and
# irfft, and gradient descent finds a cutoff that removes the hum.

# %%
cutoff = paddle.to_tensor([60.0], stop_gradient=False)   # start above the hum: nothing is removed yet
optimizer = paddle.optimizer.Adam(learning_rate=2.0, parameters=[cutoff])


def low_pass(x, cutoff):
    mask = paddle.sigmoid((cutoff - freqs) / 2.0)        # ~1 below the cutoff, ~0 above
    return paddle.fft.irfft(paddle.fft.rfft(x) * mask.astype("complex64"), n=rate)


for step in range(60):
    loss = ((low_pass(signal, cutoff) - tone) ** 2).mean()
    loss.backward()
    optimizer.step()
    optimizer.clear_grad()
    if step % 20 == 0:
        print(f"step {step:2d}  cutoff {cutoff.item():5.1f} Hz  loss {loss.item():.4f}")

final = ((low_pass(signal, cutoff) - tone) ** 2).mean().item()
print(f"learned cutoff {cutoff.item():.1f} Hz, loss {final:.6f}")
assert 5 < cutoff.item() < 40 and final < 1e-3, "the filter should keep 5 Hz and remove 40 Hz"

# %% [markdown]
# ## Summary
# - `rfft` of a real signal gives its non-negative frequencies; `rfftfreq(n, d)` labels them in Hz.
# - Transforms are ops with gradients: a loss computed after `irfft` trains a parameter used on the spectrum.
# - Exercise: learn a band-stop filter (two cutoffs) that removes only the hum; compare `norm="ortho"`.
