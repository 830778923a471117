"""Golden cases: the augmentation functions and transforms (colour adjustments, grayscale, rotation, erasing,
resized crops) on Tensor images (Paddle's Tensor path) and on uint8 images (PIL images under Paddle, which
minipaddle's numpy images stand for: its datasets give the PIL pixels as numpy arrays)."""
import numpy as np

from .harness import case, outcome

RGB = ((np.arange(4 * 5 * 3).reshape(4, 5, 3) * 37) % 256).astype("uint8")


def _tensor(paddle):
    return paddle.to_tensor((RGB.transpose(2, 0, 1) / 255.0).astype("float32"))


def _pil_or_numpy(a):
    """A PIL image where PIL is installed (Paddle's venv), else the numpy array (minipaddle's)."""
    try:
        from PIL import Image
    except ImportError:
        return a
    return Image.fromarray(a)


@case
def color_adjustments_on_tensors(paddle):
    F = paddle.vision.transforms.functional
    x = _tensor(paddle)
    return {"brightness 1.5": F.adjust_brightness(x, 1.5), "brightness 0.3": F.adjust_brightness(x, 0.3),
            "contrast 0.4": F.adjust_contrast(x, 0.4), "contrast 1.7": F.adjust_contrast(x, 1.7),
            "saturation 0.2": F.adjust_saturation(x, 0.2), "saturation 2.0": F.adjust_saturation(x, 2.0),
            "hue 0.25": F.adjust_hue(x, 0.25), "hue -0.4": F.adjust_hue(x, -0.4),
            "grey 1": F.to_grayscale(x), "grey 3": F.to_grayscale(x, 3),
            "grey contrast": F.adjust_contrast(F.to_grayscale(x), 0.5)}


@case
def color_adjustments_on_uint8_images(paddle):
    F = paddle.vision.transforms.functional
    img = _pil_or_numpy(RGB)
    return {"brightness 1.5": np.asarray(F.adjust_brightness(img, 1.5)),
            "contrast 0.4": np.asarray(F.adjust_contrast(img, 0.4)),
            "saturation 0.2": np.asarray(F.adjust_saturation(img, 0.2)),
            "hue 0.25": np.asarray(F.adjust_hue(img, 0.25)),
            "grey": np.asarray(F.to_grayscale(img)), "grey 3": np.asarray(F.to_grayscale(img, 3))}


@case
def rotate_tensors(paddle):
    F = paddle.vision.transforms.functional
    x = _tensor(paddle)
    return {"30 nearest": F.rotate(x, 30), "30 bilinear": F.rotate(x, 30, interpolation="bilinear"),
            "-45 expand": F.rotate(x, -45, expand=True), "90 centre (1, 1)": F.rotate(x, 90, center=(1, 1)),
            "20 fill": F.rotate(x, 20, fill=[0.5, 0.25, 1.0]),
            "bilinear fill": F.rotate(x, 15, interpolation="bilinear", fill=0.5)}


@case
def deterministic_augmentation_transforms(paddle):
    T = paddle.vision.transforms
    x = _tensor(paddle)
    square = paddle.to_tensor(np.linspace(0, 1, 3 * 6 * 6).reshape(3, 6, 6).astype("float32"))
    return {"Grayscale": T.Grayscale()(x), "Grayscale 3": T.Grayscale(3)(x),
            "RandomRotation (90, 90)": T.RandomRotation((90, 90))(x),
            "BrightnessTransform(0)": T.BrightnessTransform(0)(x), "HueTransform(0)": T.HueTransform(0)(x),
            "ColorJitter()": T.ColorJitter()(x), "RandomErasing(prob=0)": T.RandomErasing(prob=0)(x),
            "RandomResizedCrop whole": T.RandomResizedCrop(3, scale=(1.0, 1.0), ratio=(1.0, 1.0))(square),
            "erase": T.functional.erase(x, 1, 2, 2, 2, paddle.to_tensor([[[0.5]], [[0.25]], [[0.0]]])),
            "RandomRotation -3": outcome(lambda: T.RandomRotation(-3)),
            "BrightnessTransform -1": outcome(lambda: T.BrightnessTransform(-1)),
            "HueTransform (0.2, 0.9)": outcome(lambda: T.HueTransform((0.2, 0.9)))}


@case
def affine_tensors(paddle):
    F = paddle.vision.transforms.functional
    T = paddle.vision.transforms
    x = _tensor(paddle)
    square = paddle.to_tensor(np.linspace(0, 1, 3 * 5 * 5).reshape(3, 5, 5).astype("float32"))
    return {"rotate 30": F.affine(x, 30, [0, 0], 1.0, 0),
            "translate": F.affine(x, 0, [1, -1], 1.0, 0),
            "scale 0.7 bilinear": F.affine(x, 0, [0, 0], 0.7, 0, interpolation="bilinear"),
            "shear (20, 10)": F.affine(x, 0, [0, 0], 1.0, [20, 10]),
            "all, fill": F.affine(x, 15, [1, 0], 1.2, 5, fill=[0.5, 0.5, 0.5]),
            "centre (1, 1) on a square": F.affine(square, 45, [0, 0], 1.0, 0, center=[1, 1]),
            "RandomAffine fixed": T.RandomAffine((20, 20), shear=(10, 10, 5, 5))(x),
            "RandomAffine scale": T.RandomAffine(0, scale=(0.5, 0.5), interpolation="bilinear")(x),
            "bad scale": outcome(lambda: F.affine(x, 0, [0, 0], -1.0, 0)),
            "RandomAffine translate 2": outcome(lambda: T.RandomAffine(0, translate=(2, 0)))}


@case
def perspective_tensors(paddle):
    F = paddle.vision.transforms.functional
    T = paddle.vision.transforms
    x = _tensor(paddle)
    start = [[0, 0], [4, 0], [4, 3], [0, 3]]
    return {"nearest": F.perspective(x, start, [[1, 0], [4, 1], [3, 3], [0, 2]]),
            "bilinear fill": F.perspective(x, start, [[0, 1], [3, 0], [4, 2], [1, 3]], interpolation="bilinear",
                                           fill=[0.5, 0.5, 0.5]),
            "identity": F.perspective(x, start, start),
            "RandomPerspective prob 0": T.RandomPerspective(prob=0.0)(x),
            "RandomPerspective no distortion": T.RandomPerspective(prob=1.0, distortion_scale=0.0)(x)}
