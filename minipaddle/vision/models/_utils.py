"""Helpers the model zoo shares: the pretrained-weights refusal and MobileNet's channel rounding."""
from __future__ import annotations

from ...framework.errors import unimplemented

# Where Paddle 3.3.1 downloads each architecture's ImageNet weights (paddle/vision/models/*.py).
PADDLE_WEIGHT_URLS = {
    "alexnet": "https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/AlexNet_pretrained.pdparams",
    "vgg16": "https://paddle-hapi.bj.bcebos.com/models/vgg16.pdparams",
    "vgg19": "https://paddle-hapi.bj.bcebos.com/models/vgg19.pdparams",
    "resnet18": "https://paddle-hapi.bj.bcebos.com/models/resnet18.pdparams",
    "resnet34": "https://paddle-hapi.bj.bcebos.com/models/resnet34.pdparams",
    "resnet50": "https://paddle-hapi.bj.bcebos.com/models/resnet50.pdparams",
    "resnet101": "https://paddle-hapi.bj.bcebos.com/models/resnet101.pdparams",
    "resnet152": "https://paddle-hapi.bj.bcebos.com/models/resnet152.pdparams",
    "mobilenetv1_1.0": "https://paddle-hapi.bj.bcebos.com/models/mobilenetv1_1.0.pdparams",
    "mobilenetv2_1.0": "https://paddle-hapi.bj.bcebos.com/models/mobilenet_v2_x1.0.pdparams",
    "mobilenet_v3_small_x1.0": "https://paddle-hapi.bj.bcebos.com/models/mobilenet_v3_small_x1.0.pdparams",
    "mobilenet_v3_large_x1.0": "https://paddle-hapi.bj.bcebos.com/models/mobilenet_v3_large_x1.0.pdparams",
    "squeezenet1_0": "https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/SqueezeNet1_0_pretrained.pdparams",
    "squeezenet1_1": "https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/SqueezeNet1_1_pretrained.pdparams",
    "shufflenet_v2_x0_25": "https://paddle-hapi.bj.bcebos.com/models/shufflenet_v2_x0_25.pdparams",
    "shufflenet_v2_x0_33": "https://paddle-hapi.bj.bcebos.com/models/shufflenet_v2_x0_33.pdparams",
    "shufflenet_v2_x0_5": "https://paddle-hapi.bj.bcebos.com/models/shufflenet_v2_x0_5.pdparams",
    "shufflenet_v2_x1_0": "https://paddle-hapi.bj.bcebos.com/models/shufflenet_v2_x1_0.pdparams",
    "shufflenet_v2_x1_5": "https://paddle-hapi.bj.bcebos.com/models/shufflenet_v2_x1_5.pdparams",
    "shufflenet_v2_x2_0": "https://paddle-hapi.bj.bcebos.com/models/shufflenet_v2_x2_0.pdparams",
    "shufflenet_v2_swish": "https://paddle-hapi.bj.bcebos.com/models/shufflenet_v2_swish.pdparams",
    "densenet121": "https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/DenseNet121_pretrained.pdparams",
    "densenet161": "https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/DenseNet161_pretrained.pdparams",
    "densenet169": "https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/DenseNet169_pretrained.pdparams",
    "densenet201": "https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/DenseNet201_pretrained.pdparams",
    "densenet264": "https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/DenseNet264_pretrained.pdparams",
    "googlenet": "https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/GoogLeNet_pretrained.pdparams",
    "inception_v3": "https://paddle-hapi.bj.bcebos.com/models/inception_v3.pdparams",
}


def refuse_pretrained(arch: str) -> None:
    """`pretrained=True`: minipaddle downloads nothing, so say where Paddle would fetch the weights from.

    A .pdparams file is a pickle (loading one can run code), so minipaddle does not read it either; the
    hint shows how to turn it into plain arrays with Paddle and load those.
    """
    url = PADDLE_WEIGHT_URLS.get(arch)
    where = (f"Paddle would download them from {url}" if url else
             f"Paddle 3.3.1 has no pretrained weights for {arch!r} either")
    raise unimplemented(
        arch, f"pretrained=True: no weights are downloaded in this build of minipaddle ({where}).",
        hint="build the model with pretrained=False and load weights you converted yourself: with Paddle's "
             "Python, tools/convert_paddle_checkpoint.py w.pdparams w.npz (or np.savez('w.npz', **{k: v.numpy() "
             "for k, v in paddle.load('w.pdparams').items()})); then model.set_state_dict(dict(np.load('w.npz'))) "
             "-- the state_dict keys are Paddle's.")


def make_divisible(v: float, divisor: int = 8, min_value: int | None = None) -> int:
    """Round a channel count to a multiple of `divisor`, never more than 10% below `v` (MobileNet)."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v
