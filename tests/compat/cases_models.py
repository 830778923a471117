"""Golden cases: paddle.vision.models are built as Paddle builds them -- the same state_dict keys, shapes
and order (so converted Paddle checkpoints load), the same output shapes, and, with the same weights,
the same outputs."""
import numpy as np

from .harness import case


def _keys_and_shapes(model):
    return [[k, list(v.shape)] for k, v in model.state_dict().items()]


def _fill_deterministically(paddle, model):
    """Give every parameter fixed values (running variances positive), the same under both frameworks."""
    state = {}
    for i, (k, v) in enumerate(model.state_dict().items()):
        n = int(np.prod(v.shape)) if len(v.shape) else 1
        values = 0.2 * np.sin(np.arange(n) * 0.37 + i) / np.sqrt(max(n // max(v.shape[0], 1), 1))
        if k.endswith("_variance"):
            values = 1.0 + np.abs(values)
        state[k] = values.reshape(v.shape).astype("float32")
    model.set_state_dict(state)
    model.eval()
    return model


def _image(paddle, size, batch=1):
    n = batch * 3 * size * size
    return paddle.to_tensor((np.cos(np.arange(n) * 0.11) * 0.5).reshape([batch, 3, size, size]).astype("float32"))


def _summary(paddle, model, size):
    return {"state_dict": _keys_and_shapes(model), "output shape": list(model(_image(paddle, size)).shape)}


@case
def alexnet_keys_and_output(paddle):
    M = paddle.vision.models
    full = M.AlexNet()
    features = _fill_deterministically(paddle, M.alexnet(num_classes=0))
    return {"state_dict": _keys_and_shapes(full), "without classifier": _keys_and_shapes(features),
            "output 1x3x64x64, num_classes=0": features(_image(paddle, 64))}


@case
def vgg16_keys_and_output(paddle):
    model = paddle.vision.models.vgg16()
    model.eval()
    return _summary(paddle, model, 32)


@case
def vgg_features_with_and_without_batch_norm(paddle):
    M = paddle.vision.models
    out = {}
    for name in ("vgg11", "vgg13", "vgg16", "vgg19"):
        for bn in (False, True):
            model = getattr(M, name)(batch_norm=bn, num_classes=0, with_pool=False)
            out[f"{name} batch_norm={bn}"] = _keys_and_shapes(model)
    small = _fill_deterministically(paddle, M.vgg11(batch_norm=True, num_classes=0, with_pool=False))
    out["vgg11_bn output 1x3x32x32, num_classes=0"] = small(_image(paddle, 32))
    return out


@case
def resnet18_keys_and_output(paddle):
    model = _fill_deterministically(paddle, paddle.vision.models.resnet18(num_classes=10))
    full = paddle.vision.models.resnet18()
    return {"state_dict": _keys_and_shapes(full), "output 2x3x32x32": model(_image(paddle, 32, batch=2))}


@case
def resnet34_keys(paddle):
    model = paddle.vision.models.resnet34(num_classes=10)
    model.eval()
    return _summary(paddle, model, 32)


@case
def resnet50_keys_and_output(paddle):
    model = _fill_deterministically(paddle, paddle.vision.models.resnet50(num_classes=10))
    return {"state_dict": _keys_and_shapes(model), "output 1x3x32x32": model(_image(paddle, 32))}


@case
def resnet101_keys(paddle):
    model = paddle.vision.models.resnet101()
    return {"state_dict": _keys_and_shapes(model)}


@case
def resnet_without_pool_or_classifier(paddle):
    model = paddle.vision.models.resnet18(num_classes=0, with_pool=False)
    model.eval()
    return _summary(paddle, model, 64)


@case
def mobilenet_v1_keys_and_output(paddle):
    M = paddle.vision.models
    small = _fill_deterministically(paddle, M.mobilenet_v1(scale=0.25, num_classes=10))
    return {"state_dict": _keys_and_shapes(M.MobileNetV1()), "scale 0.25": _keys_and_shapes(small),
            "output 1x3x64x64": small(_image(paddle, 64))}


@case
def mobilenet_v2_keys_and_output(paddle):
    M = paddle.vision.models
    small = _fill_deterministically(paddle, M.mobilenet_v2(scale=0.5, num_classes=10))
    return {"state_dict": _keys_and_shapes(M.MobileNetV2()), "scale 0.5": _keys_and_shapes(small),
            "output 1x3x64x64": small(_image(paddle, 64))}


@case
def model_parameter_counts(paddle):
    M = paddle.vision.models
    count = lambda m: int(sum(int(np.prod(p.shape)) for p in m.parameters()))  # noqa: E731
    return {"resnet18": count(M.resnet18()), "mobilenet_v1": count(M.mobilenet_v1()),
            "mobilenet_v2": count(M.mobilenet_v2()), "resnext50_32x4d": count(M.resnext50_32x4d(num_classes=10)),
            "wide_resnet50_2 trainable": len([p for p in M.wide_resnet50_2(num_classes=10).parameters()
                                              if not p.stop_gradient])}


@case
def mobilenet_v3_keys_and_output(paddle):
    M = paddle.vision.models
    small = _fill_deterministically(paddle, M.mobilenet_v3_small(scale=0.5, num_classes=10))
    return {"small": _keys_and_shapes(M.MobileNetV3Small()), "large": _keys_and_shapes(M.mobilenet_v3_large()),
            "small 0.5 output 1x3x64x64": small(_image(paddle, 64))}


@case
def squeezenet_keys_and_output(paddle):
    M = paddle.vision.models
    v11 = _fill_deterministically(paddle, M.squeezenet1_1(num_classes=10))
    v10 = _fill_deterministically(paddle, M.squeezenet1_0(num_classes=10))
    return {"1.0": _keys_and_shapes(M.SqueezeNet("1.0")), "1.1": _keys_and_shapes(v11),
            "1.1 output 2x3x64x64": v11(_image(paddle, 64, batch=2)), "1.0 output 1x3x64x64": v10(_image(paddle, 64)),
            "without pool": list(M.squeezenet1_1(num_classes=10, with_pool=False)(_image(paddle, 64)).shape)}


@case
def shufflenet_v2_keys_and_output(paddle):
    M = paddle.vision.models
    small = _fill_deterministically(paddle, M.shufflenet_v2_x0_25(num_classes=10))
    swish = _fill_deterministically(paddle, M.shufflenet_v2_swish(num_classes=10))
    return {"x1_0": _keys_and_shapes(M.shufflenet_v2_x1_0()), "x0_25": _keys_and_shapes(small),
            "x0_25 output 1x3x64x64": small(_image(paddle, 64)), "swish output 1x3x64x64": swish(_image(paddle, 64)),
            "x2_0 shapes": [s for _, s in _keys_and_shapes(M.shufflenet_v2_x2_0(num_classes=0))][-6:]}


@case
def densenet_keys_and_output(paddle):
    M = paddle.vision.models
    small = _fill_deterministically(paddle, M.densenet121(num_classes=10))
    return {"121": _keys_and_shapes(small), "161 last keys": _keys_and_shapes(M.densenet161(num_classes=10))[-8:],
            "161 count": len(M.densenet161().state_dict()), "264 count": len(M.densenet264().state_dict()),
            "121 output 1x3x32x32": small(_image(paddle, 32)),
            "dropout": _keys_and_shapes(M.DenseNet(layers=169, dropout=0.2, num_classes=0))[-4:]}


@case
def googlenet_keys_and_outputs(paddle):
    M = paddle.vision.models
    model = _fill_deterministically(paddle, M.googlenet(num_classes=10))
    features = M.googlenet(num_classes=0, with_pool=False)
    return {"state_dict": _keys_and_shapes(model), "outputs 1x3x224x224": list(model(_image(paddle, 224))),
            "without head 1x3x64x64": [list(o.shape) for o in features(_image(paddle, 64))]}


@case
def inception_v3_keys_and_output(paddle):
    M = paddle.vision.models
    model = _fill_deterministically(paddle, M.inception_v3(num_classes=10))
    return {"state_dict": _keys_and_shapes(model), "output 1x3x75x75": model(_image(paddle, 75)),
            "without head": list(M.inception_v3(num_classes=0, with_pool=False)(_image(paddle, 75)).shape)}
