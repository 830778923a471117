"""affine_grid and grid_sample: forward and gradients against torch (the same definitions), gradients by
central differences, clear errors."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument

from .opcheck import check_double_grad, check_grad, torch_or_skip

F = paddle.nn.functional
RNG = np.random.default_rng(21)


@pytest.mark.parametrize("shape", [[2, 3, 4, 5], [1, 2, 3, 4, 2]])
@pytest.mark.parametrize("align_corners", [True, False])
def test_affine_grid_matches_torch_and_differentiates(shape, align_corners):
    torch = torch_or_skip()
    k = len(shape) - 2
    theta = RNG.standard_normal((shape[0], k, k + 1))
    got = F.affine_grid(paddle.to_tensor(theta), shape, align_corners)
    want = torch.nn.functional.affine_grid(torch.tensor(theta), shape, align_corners)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
    check_grad(lambda t: F.affine_grid(t, shape, align_corners), [theta])
    check_double_grad(lambda t: F.affine_grid(t, shape, align_corners) ** 2, [theta])


CASES = [(m, p, a) for m in ("bilinear", "nearest") for p in ("zeros", "border", "reflection") for a in (True, False)]


@pytest.mark.parametrize("mode, padding_mode, align_corners", CASES)
def test_grid_sample_and_its_gradients_match_torch(mode, padding_mode, align_corners):
    torch = torch_or_skip()
    x = RNG.standard_normal((2, 3, 4, 5))
    grid = RNG.uniform(-1.4, 1.4, (2, 3, 2, 2))
    got_x, got_g = paddle.to_tensor(x, stop_gradient=False), paddle.to_tensor(grid, stop_gradient=False)
    out = F.grid_sample(got_x, got_g, mode, padding_mode, align_corners)
    tx, tg = torch.tensor(x, requires_grad=True), torch.tensor(grid, requires_grad=True)
    want = torch.nn.functional.grid_sample(tx, tg, mode, padding_mode, align_corners)
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    cot = RNG.standard_normal(out.shape)
    (out * paddle.to_tensor(cot)).sum().backward()
    (want * torch.tensor(cot)).sum().backward()
    np.testing.assert_allclose(got_x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got_g.grad.numpy(), tg.grad.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("mode, padding_mode, align_corners", CASES[::2])
def test_volumetric_grid_sample_matches_torch(mode, padding_mode, align_corners):
    torch = torch_or_skip()
    x = RNG.standard_normal((2, 2, 3, 4, 5))
    grid = RNG.uniform(-1.3, 1.3, (2, 2, 3, 2, 3))
    got_x, got_g = paddle.to_tensor(x, stop_gradient=False), paddle.to_tensor(grid, stop_gradient=False)
    out = F.grid_sample(got_x, got_g, mode, padding_mode, align_corners)
    tx, tg = torch.tensor(x, requires_grad=True), torch.tensor(grid, requires_grad=True)
    want = torch.nn.functional.grid_sample(tx, tg, mode, padding_mode, align_corners)
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    out.sum().backward()
    want.sum().backward()
    np.testing.assert_allclose(got_x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got_g.grad.numpy(), tg.grad.numpy(), rtol=1e-8, atol=1e-10)


def test_volumetric_grid_sample_gradients_are_numeric():
    x = RNG.standard_normal((1, 1, 2, 3, 3))
    grid = RNG.uniform(-1.1, 1.1, (1, 2, 1, 2, 3))
    check_grad(lambda a, g: F.grid_sample(a, g, padding_mode="border"), [x, grid])


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_gradients_are_numeric(padding_mode):
    x = RNG.standard_normal((1, 2, 3, 4))
    grid = RNG.uniform(-1.2, 1.2, (1, 2, 3, 2))
    check_grad(lambda a, g: F.grid_sample(a, g, padding_mode=padding_mode, align_corners=False), [x, grid])


def test_an_identity_grid_gives_the_image_back():
    x = paddle.rand([2, 3, 4, 5])
    theta = paddle.to_tensor(np.tile(np.eye(2, 3, dtype="float32"), (2, 1, 1)))
    grid = F.affine_grid(theta, [2, 3, 4, 5])
    np.testing.assert_allclose(F.grid_sample(x, grid).numpy(), x.numpy(), rtol=1e-5, atol=1e-6)


def test_sampling_errors_say_what_was_expected():
    with pytest.raises(InvalidArgument, match=r"affine_grid: theta has shape \[2, 2, 2\], expected \[N, 2, 3\]"):
        F.affine_grid(paddle.rand([2, 2, 2]), [2, 1, 3, 3])
    with pytest.raises(InvalidArgument, match=r"out_shape \[2, 1, 3\] must be 4 ints"):
        F.affine_grid(paddle.rand([2, 2, 3]), [2, 1, 3])
    with pytest.raises(InvalidArgument, match="grid_sample: mode got 'bicubic'"):
        F.grid_sample(paddle.rand([1, 1, 2, 2]), paddle.rand([1, 1, 1, 2]), mode="bicubic")
    with pytest.raises(InvalidArgument, match=r"grid \[N, H_out, W_out, 2\]"):
        F.grid_sample(paddle.rand([1, 1, 2, 2]), paddle.rand([1, 1, 1, 3]))
    with pytest.raises(InvalidArgument, match=r"grid \[N, D_out, H_out, W_out, 3\]"):
        F.grid_sample(paddle.rand([1, 1, 2, 2, 2]), paddle.rand([1, 1, 1, 1, 2]))
