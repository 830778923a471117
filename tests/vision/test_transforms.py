"""paddle.vision.transforms: each transform against hand-computed values, PyTorch's resize, keys and errors."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument, Unimplemented
from minipaddle.vision import transforms as T
from minipaddle.vision.transforms import functional as F

from ..ops.opcheck import torch_or_skip


def image(h=4, w=5, c=None, dtype=np.uint8):
    shape = (h, w) if c is None else (h, w, c)
    return (np.arange(np.prod(shape)) % 256).reshape(shape).astype(dtype)


def test_to_tensor_hwc_uint8_to_chw_float_in_0_1():
    img = np.array([[[0, 255, 51]], [[102, 0, 255]]], np.uint8)   # H=2, W=1, C=3
    x = T.ToTensor()(img)
    assert isinstance(x, paddle.Tensor) and x.shape == [3, 2, 1] and x.dtype == paddle.float32
    np.testing.assert_allclose(x.numpy()[:, :, 0], [[0, 0.4], [1, 0], [0.2, 1]], rtol=1e-6)
    hwc = T.ToTensor(data_format="HWC")(img)
    assert hwc.shape == [2, 1, 3]


def test_to_tensor_gray_gets_a_channel_and_float_input_is_not_rescaled():
    assert T.ToTensor()(image(3, 4)).shape == [1, 3, 4]
    x = T.ToTensor()(np.full((2, 2), 200.0, np.float32))   # Paddle: only uint8 is divided by 255
    np.testing.assert_array_equal(x.numpy(), np.full((1, 2, 2), 200.0))


def test_normalize_chw_tensor_and_hwc_array_per_channel():
    x = paddle.to_tensor(np.stack([np.full((2, 2), 1.0), np.full((2, 2), 3.0)]).astype(np.float32))
    out = T.Normalize(mean=[0.5, 1.0], std=[0.5, 2.0])(x)
    assert isinstance(out, paddle.Tensor)
    np.testing.assert_allclose(out.numpy()[:, 0, 0], [1.0, 1.0])
    hwc = np.zeros((1, 1, 3), np.uint8) + np.array([10, 20, 30], np.uint8)
    out = T.Normalize(mean=[10, 10, 10], std=[1, 2, 4], data_format="HWC")(hwc)
    np.testing.assert_allclose(out[0, 0], [0, 5, 5])
    assert out.dtype == np.float32


def test_normalize_to_rgb_reverses_channels_first():
    hwc = np.array([[[1.0, 2.0, 3.0]]], np.float32)
    out = T.Normalize(mean=0.0, std=1.0, data_format="HWC", to_rgb=True)(hwc)
    np.testing.assert_array_equal(out[0, 0], [3, 2, 1])


def test_normalize_of_a_grey_image_adds_the_channel_axis_as_paddle():
    grey = np.arange(12, dtype=np.uint8).reshape(3, 4)
    out = T.Normalize(mean=[127.5], std=[127.5], data_format="CHW")(grey)
    assert out.shape == (1, 3, 4) and out.dtype == np.float32
    np.testing.assert_allclose(out[0], (grey - 127.5) / 127.5, rtol=1e-6)
    assert T.Normalize(mean=127.5, std=127.5)(grey).shape == (3, 3, 4)   # a number means 3 channels
    assert F.normalize(grey, 127.5, 127.5).shape == (1, 3, 4)


def test_normalize_errors():
    with pytest.raises(InvalidArgument, match=r"an image of shape \[3, 2, 2\] \(CHW\) does not fit 2 mean/std"):
        T.Normalize(mean=[0.5, 0.5], std=[1.0, 1.0])(paddle.zeros([3, 2, 2]))
    with pytest.raises(InvalidArgument, match="mean has 2 values but std has 3"):
        T.Normalize(mean=[0.5, 0.5], std=1.0)(paddle.zeros([3, 2, 2]))
    with pytest.raises(InvalidArgument, match="has a 0, which would divide by zero"):
        T.Normalize(mean=0.0, std=[0.0])(paddle.zeros([1, 2, 2]))
    with pytest.raises(InvalidArgument, match="data_format got 'NCHW'"):
        T.Normalize(data_format="NCHW")


def test_resize_bilinear_by_hand_and_shorter_side_rule():
    img = np.array([[0, 100], [200, 300]], np.float32)
    up = F.resize(img, (4, 4))
    # half-pixel centers: output x=1 samples source x=0.25 -> 0.75*0 + 0.25*100
    np.testing.assert_allclose(up[0], [0, 25, 75, 100])
    np.testing.assert_allclose(up[:, 0], [0, 50, 150, 200])
    assert T.Resize(8)(image(4, 6)).shape == (8, 12)           # shorter side 4 -> 8, aspect kept
    assert T.Resize(3)(image(6, 4, 3)).shape == (4, 3, 3)            # int(3 * 6 / 4) = 4
    assert T.Resize(2)(image(6, 4, 3)).shape == (3, 2, 3)
    assert T.Resize((3, 7))(image(4, 5)).shape == (3, 7)


def test_resize_uint8_is_rounded_and_stays_uint8():
    img = np.array([[0, 1]], np.uint8)
    out = F.resize(img, (1, 4))
    assert out.dtype == np.uint8 and out.tolist() == [[0, 0, 1, 1]]  # 0.25 -> 0, 0.75 -> 1


@pytest.mark.parametrize("size", [(9, 13), (3, 2), (5, 5)])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_resize_matches_pytorch_interpolate(size, mode):
    torch = torch_or_skip()
    img = np.random.default_rng(0).uniform(0, 1, (6, 7, 3)).astype(np.float32)
    ours = F.resize(img, size, interpolation=mode)
    kwargs = {"align_corners": False} if mode == "bilinear" else {}
    ref = torch.nn.functional.interpolate(torch.from_numpy(img).permute(2, 0, 1)[None], size=size, mode=mode,
                                          **kwargs)[0].permute(1, 2, 0).numpy()
    np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=1e-6)


def test_resize_of_a_tensor_is_chw():
    x = paddle.to_tensor(np.ones((3, 4, 4), np.float32))
    out = T.Resize((2, 6))(x)
    assert isinstance(out, paddle.Tensor) and out.shape == [3, 2, 6]


def test_resize_errors():
    with pytest.raises(Unimplemented, match="interpolation 'bicubic' is not available"):
        T.Resize((2, 2), interpolation="bicubic")(image())
    with pytest.raises(InvalidArgument, match="size got 'big'"):
        T.Resize("big")


def test_pad_forms_and_modes():
    img = np.array([[1, 2], [3, 4]], np.uint8)
    assert F.pad(img, 1).shape == (4, 4) and F.pad(img, 1)[0].tolist() == [0, 0, 0, 0]
    assert F.pad(img, (1, 2)).shape == (6, 4)                    # (left/right, top/bottom)
    out = F.pad(img, (1, 0, 0, 0), fill=9)                        # (left, top, right, bottom)
    assert out.tolist() == [[9, 1, 2], [9, 3, 4]]
    assert F.pad(img, (0, 0, 1, 0), padding_mode="edge").tolist() == [[1, 2, 2], [3, 4, 4]]
    assert F.pad(img, (0, 0, 1, 0), padding_mode="reflect").tolist() == [[1, 2, 1], [3, 4, 3]]
    rgb = F.pad(np.zeros((1, 1, 3), np.uint8), 1, fill=(10, 20, 30))
    assert rgb[0, 0].tolist() == [10, 20, 30]


def test_crop_center_crop_and_errors():
    img = image(4, 5)
    np.testing.assert_array_equal(F.crop(img, 1, 2, 2, 3), img[1:3, 2:5])
    np.testing.assert_array_equal(T.CenterCrop(2)(img), img[1:3, 2:4])   # round(2/2)=1, round(3/2)=2
    with pytest.raises(InvalidArgument, match="larger than the image"):
        T.CenterCrop(6)(img)
    with pytest.raises(InvalidArgument, match="does not fit"):
        F.crop(img, 3, 0, 2, 2)


def test_random_crop_windows_come_from_the_padded_image_and_follow_paddle_seed():
    img = image(4, 4)
    crop = T.RandomCrop(4, padding=2)
    padded = F.pad(img, 2)
    windows = {tuple(padded[i:i + 4, j:j + 4].ravel()): (i, j) for i in range(5) for j in range(5)}
    paddle.seed(3)
    seen = [windows[tuple(crop(img).ravel())] for _ in range(200)]
    assert len(set(seen)) == 25   # every offset in 0..4 x 0..4 occurs
    paddle.seed(3)
    assert [windows[tuple(crop(img).ravel())] for _ in range(200)] == seen


def test_random_crop_pad_if_needed_and_errors():
    assert T.RandomCrop((6, 3), pad_if_needed=True)(image(4, 4)).shape == (6, 3)
    with pytest.raises(InvalidArgument, match="larger than the \\(padded\\) image"):
        T.RandomCrop(5)(image(4, 4))


def test_flips_by_hand_and_probability():
    img = image(2, 3)
    np.testing.assert_array_equal(T.RandomHorizontalFlip(prob=1.0)(img), img[:, ::-1])
    np.testing.assert_array_equal(T.RandomVerticalFlip(prob=1.0)(img), img[::-1])
    np.testing.assert_array_equal(T.RandomHorizontalFlip(prob=0.0)(img), img)
    paddle.seed(0)
    flips = [T.RandomHorizontalFlip(0.3)(img)[0, 0] != img[0, 0] for _ in range(2000)]
    assert abs(np.mean(flips) - 0.3) < 0.04
    x = paddle.to_tensor(np.arange(6, dtype=np.float32).reshape(1, 2, 3))
    np.testing.assert_array_equal(T.RandomHorizontalFlip(1.0)(x).numpy(), x.numpy()[:, :, ::-1])
    with pytest.raises(InvalidArgument, match="prob got 2"):
        T.RandomHorizontalFlip(prob=2)


def test_transpose_default_hwc_to_chw_and_gray():
    assert T.Transpose()(image(2, 3, 4)).shape == (4, 2, 3)
    assert T.Transpose()(image(2, 3)).shape == (1, 2, 3)
    with pytest.raises(InvalidArgument, match="not a permutation"):
        T.Transpose((0, 1))(image(2, 3, 4))


def test_compose_runs_in_order_and_names_the_failing_transform():
    pipeline = T.Compose([T.CenterCrop(2), T.ToTensor(), T.Normalize(mean=[0.5], std=[0.5])])
    x = pipeline(np.full((4, 4), 255, np.uint8))
    assert x.shape == [1, 2, 2] and np.allclose(x.numpy(), 1.0)
    broken = T.Compose([T.ToTensor(), T.ToTensor()])
    with pytest.raises(InvalidArgument, match="got a Tensor") as info:
        broken(image())
    assert "transform 1, ToTensor" in "".join(info.value.__notes__)
    assert "ToTensor(data_format='CHW')" in repr(pipeline)


def test_keys_apply_the_same_random_choice_to_image_and_mask_and_pass_labels():
    img, mask = image(6, 6), image(6, 6) + 1
    t = T.RandomCrop(3, keys=("image", "mask", "label"))
    for _ in range(20):
        a, m, label = t((img, mask, 7))
        np.testing.assert_array_equal(m, a + 1)
        assert label == 7
    flip = T.RandomHorizontalFlip(0.5, keys=("image", "mask"))
    for _ in range(20):
        a, m = flip((img, mask))
        np.testing.assert_array_equal(m, a + 1)
    with pytest.raises(InvalidArgument, match="key 'boxes' is not supported"):
        T.ToTensor(keys=("image", "boxes"))


def test_base_transform_subclass_and_bad_inputs():
    class AddOne(T.BaseTransform):
        def _apply_image(self, img):
            return img + 1
    assert AddOne()(np.zeros(2)).tolist() == [1, 1]
    assert AddOne()((np.zeros(1), "extra"))[1] == "extra"
    with pytest.raises(InvalidArgument, match="got list, expected a numpy HWC/HW image"):
        T.CenterCrop(2)([[1, 2], [3, 4]])
    with pytest.raises(InvalidArgument, match=r"shape \[2, 2, 2, 2\], expected HxW or HxWxC"):
        T.RandomHorizontalFlip(1.0)(np.zeros((2, 2, 2, 2)))


class FakePILImage:
    """Stands in for a PIL image (PIL is not a dependency): a PIL.* class that numpy can read."""

    __module__ = "PIL.Image"

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def __array__(self, dtype=None, copy=None):
        return self.array


def test_pil_images_are_read_as_numpy():
    img = image(4, 4, 3)
    x = T.ToTensor()(FakePILImage(img))
    assert x.shape == [3, 4, 4]
    np.testing.assert_array_equal(T.CenterCrop(2)(FakePILImage(img)), img[1:3, 1:3])
