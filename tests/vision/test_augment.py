"""Augmentation: colour adjustments (float formulas and PIL's integer arithmetic for uint8 images), grayscale,
rotation, erasing, resized crops and the random transforms built on them (reproducible with paddle.seed).
Paddle's own answers are in tests/compat/cases_transforms.py."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument
from minipaddle.vision.transforms.adjust import perspective_coeffs

T = paddle.vision.transforms
F = T.functional
RNG = np.random.default_rng(4)
RGB = RNG.integers(0, 256, (6, 7, 3)).astype("uint8")
FLOAT = RNG.random((6, 7, 3)).astype("float32")


def test_float_adjustments_are_blends_with_an_extreme_image():
    grey = FLOAT @ np.array([0.2989, 0.587, 0.114], dtype="float32")
    np.testing.assert_allclose(F.adjust_brightness(FLOAT, 0.5), FLOAT * 0.5, rtol=1e-6)
    np.testing.assert_allclose(F.adjust_contrast(FLOAT, 0.3), np.clip(grey.mean() + 0.3 * (FLOAT - grey.mean()), 0, 1),
                               rtol=1e-5)
    np.testing.assert_allclose(F.adjust_saturation(FLOAT, 0.0), np.repeat(grey[:, :, None], 3, 2), rtol=1e-5)
    np.testing.assert_allclose(F.adjust_brightness(FLOAT, 3.0).max(), 1.0)        # clipped to the float range
    np.testing.assert_allclose(F.adjust_hue(F.adjust_hue(FLOAT, 0.3), -0.3), FLOAT, atol=1e-5)
    np.testing.assert_allclose(F.adjust_hue(FLOAT, 0.5), F.adjust_hue(FLOAT, -0.5), atol=1e-5)


def test_tensor_images_are_chw_and_stay_tensors():
    x = paddle.to_tensor(FLOAT.transpose(2, 0, 1))
    out = F.adjust_saturation(x, 1.5)
    assert isinstance(out, paddle.Tensor) and out.shape == [3, 6, 7]
    np.testing.assert_allclose(out.numpy().transpose(1, 2, 0), F.adjust_saturation(FLOAT, 1.5), rtol=1e-6)
    assert F.to_grayscale(x).shape == [1, 6, 7] and F.to_grayscale(x, 3).shape == [3, 6, 7]


def test_uint8_images_follow_pils_integer_arithmetic():
    r, g, b = (RGB[..., i].astype(np.uint32) for i in range(3))
    grey = (r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16
    np.testing.assert_array_equal(F.to_grayscale(RGB), grey.astype(np.uint8))
    assert F.to_grayscale(RGB, 3).shape == (6, 7, 3)
    np.testing.assert_array_equal(F.adjust_brightness(RGB, 0.5), (RGB.astype(np.float32) * 0.5).astype(np.uint8))
    mean = int(grey.mean() + 0.5)
    want = np.clip(mean + np.float32(1.5) * (RGB.astype(np.float32) - mean), 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(F.adjust_contrast(RGB, 1.5), want)
    assert F.adjust_hue(RGB, 0.0).dtype == np.uint8
    assert np.abs(F.adjust_hue(RGB, 0.0).astype(int) - RGB).max() <= 8      # PIL's 8-bit HSV loses a little


@pytest.mark.parametrize("angle", [0, 90, 180, 270])
def test_right_angle_rotations_of_a_square_move_pixels_exactly(angle):
    square = RNG.random((5, 5, 2)).astype("float32")
    np.testing.assert_allclose(F.rotate(square, angle), np.rot90(square, k=angle // 90), atol=1e-6)


def test_rotate_fill_expand_and_centre():
    img = np.ones((4, 6), dtype="uint8") * 200
    out = F.rotate(img, 45, fill=7)
    assert out.shape == (4, 6) and out[0, 0] == 7 and out[2, 3] == 200
    assert F.rotate(img, 90, expand=True).shape == (6, 4)
    assert F.rotate(paddle.ones([3, 4, 6]), 30, interpolation="bilinear", expand=True).shape[0] == 3
    with pytest.raises(InvalidArgument, match="interpolation got 'bicubic'"):
        F.rotate(img, 10, interpolation="bicubic")


def test_erase_copies_unless_inplace():
    img = RGB.copy()
    out = F.erase(img, 1, 2, 2, 3, 0)
    assert out[1:3, 2:5].max() == 0 and img[1:3, 2:5].max() > 0
    F.erase(img, 0, 0, 1, 1, np.array([1, 2, 3]), inplace=True)
    assert img[0, 0].tolist() == [1, 2, 3]


def test_random_transforms_are_reproducible_with_paddle_seed():
    pipeline = T.Compose([T.ColorJitter(0.4, 0.4, 0.4, 0.1), T.RandomRotation(20), T.RandomResizedCrop(4),
                          T.RandomErasing(prob=1.0, value="random")])
    paddle.seed(3)
    first = pipeline(RGB)
    paddle.seed(3)
    np.testing.assert_array_equal(pipeline(RGB), first)
    assert first.shape == (4, 4, 3) and first.dtype == np.uint8


def test_random_resized_crop_and_erasing_respect_their_ranges():
    paddle.seed(0)
    crop = T.RandomResizedCrop((3, 5), scale=(0.5, 0.5), ratio=(1.0, 1.0))
    for _ in range(5):
        out = crop(np.arange(100, dtype="float32").reshape(10, 10))
        assert out.shape == (3, 5)
        top, left, h, w = crop.params
        assert (h, w) == (7, 7) and 0 <= top <= 3 and 0 <= left <= 3
    erase = T.RandomErasing(prob=1.0, scale=(0.25, 0.25), ratio=(1.0, 1.0), value=(1, 2, 3))
    out = erase(np.zeros((8, 8, 3), "uint8"))
    assert (out.sum(axis=2) > 0).sum() == 16 and set(np.unique(out[..., 2])) == {0, 3}
    assert T.RandomErasing(prob=0.0)(RGB) is RGB


def test_transform_arguments_are_checked():
    with pytest.raises(InvalidArgument, match="BrightnessTransform: a single number must be non negative"):
        T.BrightnessTransform(-1)
    with pytest.raises(InvalidArgument, match=r"HueTransform: values \[0.2, 0.9\] should lie between"):
        T.HueTransform((0.2, 0.9))
    with pytest.raises(InvalidArgument, match="value got 'x'"):
        T.RandomErasing(value="x")
    with pytest.raises(InvalidArgument, match="hue_factor got 0.7"):
        F.adjust_hue(RGB, 0.7)
    with pytest.raises(InvalidArgument, match="num_output_channels got 2"):
        T.Grayscale(2)
    assert T.BrightnessTransform(0)(RGB) is RGB and T.HueTransform(0).value is None


def test_affine_with_identity_parameters_returns_the_image_and_matches_rotate():
    square = RNG.random((5, 5, 2)).astype("float32")
    np.testing.assert_allclose(F.affine(square, 0, [0, 0], 1.0, 0), square, atol=1e-6)
    np.testing.assert_allclose(F.affine(square, -90, [0, 0], 1.0, 0), F.rotate(square, 90), atol=1e-6)
    shifted = F.affine(square, 0, [1, 0], 1.0, 0)                 # one pixel to the right, filled with 0
    np.testing.assert_allclose(shifted[:, 1:], square[:, :-1], atol=1e-6)
    assert not shifted[:, 0].any()


def test_random_affine_draws_within_its_ranges():
    paddle.seed(5)
    t = T.RandomAffine(10, translate=(0.2, 0.2), scale=(0.8, 1.2), shear=(-5, 5, -3, 3))
    for _ in range(5):
        t(RGB)
        angle, (tx, ty), scale, (sx, sy) = t.params
        assert -10 <= angle <= 10 and abs(tx) <= 7 * 0.2 and abs(ty) <= 6 * 0.2 and 0.8 <= scale <= 1.2
        assert -5 <= sx <= 5 and -3 <= sy <= 3
    with pytest.raises(InvalidArgument, match="translate got"):
        T.RandomAffine(0, translate=(1.5, 0))
    with pytest.raises(InvalidArgument, match="shear got"):
        T.RandomAffine(0, shear=(1, 2, 3))


def test_perspective_maps_the_start_corners_onto_the_end_corners():
    start = [[0, 0], [6, 0], [6, 5], [0, 5]]
    np.testing.assert_allclose(F.perspective(FLOAT, start, start), FLOAT, atol=1e-6)
    end = [[1, 0], [6, 1], [5, 5], [0, 4]]
    c = perspective_coeffs(start, end)
    for (ex, ey), (sx, sy) in zip(end, start):      # the map takes each end point back to its start point
        den = c[6] * ex + c[7] * ey + 1
        assert (c[0] * ex + c[1] * ey + c[2]) / den == pytest.approx(sx, abs=1e-9)
        assert (c[3] * ex + c[4] * ey + c[5]) / den == pytest.approx(sy, abs=1e-9)
    paddle.seed(1)
    t = T.RandomPerspective(prob=1.0, distortion_scale=0.4)
    assert t(RGB).shape == RGB.shape
    starts, ends = t.params
    assert starts == [[0, 0], [6, 0], [6, 5], [0, 5]] and all(0 <= x <= 7 and 0 <= y <= 6 for x, y in ends)
    with pytest.raises(InvalidArgument, match="distortion_scale got 2"):
        T.RandomPerspective(distortion_scale=2)
