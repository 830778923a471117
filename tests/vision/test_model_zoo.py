"""vision.models AlexNet, VGG, ResNet, MobileNetV1/V2/V3, SqueezeNet: Paddle's layout (see also
tests/compat/cases_models.py), small inputs run forward and backward on the CPU, checkpoints load,
pretrained=True says why not."""
from __future__ import annotations

import time

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import Unimplemented
from minipaddle.vision import models as M


@pytest.mark.parametrize("factory, kwargs", [
    (M.resnet18, {}), (M.resnet34, {}), (M.resnet50, {}), (M.mobilenet_v1, {"scale": 0.25}),
    (M.mobilenet_v2, {"scale": 0.5}), (M.vgg11, {"batch_norm": True}), (M.mobilenet_v3_small, {}),
    (M.mobilenet_v3_large, {"scale": 0.5}), (M.squeezenet1_1, {}), (M.shufflenet_v2_x0_5, {}), (M.densenet121, {}),
    (M.inception_v3, {}),
])
def test_small_images_give_logits_quickly(factory, kwargs):
    model = factory(num_classes=7, **kwargs)
    model.eval()
    start = time.perf_counter()
    size = 75 if factory is M.inception_v3 else 32        # InceptionV3's stem needs 75x75 at least
    out = model(paddle.rand([1, 3, size, size]))
    assert out.shape == [1, 7]
    assert time.perf_counter() - start < 20   # ResNet-50 on 1x3x32x32 takes well under a second once compiled


def test_resnet18_trains_one_step():
    paddle.seed(1)
    model = M.resnet18(num_classes=3)
    opt = paddle.optimizer.SGD(learning_rate=0.01, parameters=model.parameters())
    x = paddle.rand([2, 3, 32, 32])
    loss = paddle.nn.functional.cross_entropy(model(x), paddle.to_tensor([0, 2]))
    loss.backward()
    assert model.conv1.weight.grad is not None and model.fc.bias.grad is not None
    assert model.bn1._mean.grad is None            # running statistics are not trained
    before = model.conv1.weight.numpy().copy()
    opt.step()
    assert not np.allclose(before, model.conv1.weight.numpy())


def test_a_converted_checkpoint_loads_by_paddles_keys():
    source = M.mobilenet_v2(scale=0.25, num_classes=5)
    arrays = {k: v.numpy() for k, v in source.state_dict().items()}   # what np.load of a converted .npz gives
    target = M.mobilenet_v2(scale=0.25, num_classes=5)
    missing, unexpected = target.set_state_dict(arrays)
    assert missing == [] and unexpected == []
    x = paddle.rand([1, 3, 32, 32])
    source.eval(), target.eval()
    np.testing.assert_allclose(source(x).numpy(), target(x).numpy(), rtol=1e-6)


def test_mobilenet_v1_keeps_paddles_block_list_and_names():
    model = M.MobileNetV1(scale=0.25, num_classes=0, with_pool=False)
    assert len(model.dwsl) == 13
    names = [name for name, _ in model.named_children()]
    assert names[:3] == ["conv1", "conv2_1", "conv2_2"] and names[-1] == "conv6"
    assert model(paddle.rand([1, 3, 32, 32])).shape == [1, 256, 1, 1]


@pytest.mark.parametrize("factory, arch, url_part", [
    (M.resnet50, "resnet50", "paddle-hapi.bj.bcebos.com/models/resnet50.pdparams"),
    (M.alexnet, "alexnet", "AlexNet_pretrained.pdparams"),
    (M.mobilenet_v2, "mobilenetv2_1.0", "mobilenet_v2_x1.0.pdparams"),
    (M.mobilenet_v3_small, "mobilenet_v3_small_x1.0", "mobilenet_v3_small_x1.0.pdparams"),
    (M.squeezenet1_0, "squeezenet1_0", "SqueezeNet1_0_pretrained.pdparams"),
])
def test_pretrained_says_no_weights_are_downloaded_and_where_paddle_gets_them(factory, arch, url_part):
    with pytest.raises(Unimplemented, match="no weights are downloaded") as info:
        factory(pretrained=True)
    assert url_part in str(info.value) and arch in str(info.value)
    assert "set_state_dict" in str(info.value)


def test_pretrained_vgg_with_batch_norm_has_no_weights_anywhere():
    with pytest.raises(Unimplemented, match="Paddle 3.3.1 has no pretrained weights for 'vgg16_bn'"):
        M.vgg16(pretrained=True, batch_norm=True)


def test_resnet_rejects_an_unknown_depth():
    with pytest.raises(ValueError, match="depth got 20"):
        M.ResNet(M.BasicBlock, 20)
    with pytest.raises(ValueError, match="supported layers are"):
        M.DenseNet(layers=100)


def test_googlenet_returns_the_main_and_the_two_auxiliary_outputs():
    model = M.googlenet(num_classes=0, with_pool=False)
    out, aux1, aux2 = model(paddle.rand([1, 3, 64, 64]))
    assert (out.shape, aux1.shape, aux2.shape) == ([1, 1024, 1, 1], [1, 512, 3, 3], [1, 528, 3, 3])


def test_densenet_without_pool_gives_the_feature_maps():
    assert M.densenet121(num_classes=0, with_pool=False)(paddle.rand([1, 3, 32, 32])).shape == [1, 1024, 1, 1]


def test_conv_norm_activation_has_a_bias_only_without_norm():
    from minipaddle.vision.ops import ConvNormActivation
    assert list(ConvNormActivation(3, 4).state_dict()) == ["0.weight", "1.weight", "1.bias", "1._mean", "1._variance"]
    assert list(ConvNormActivation(3, 4, norm_layer=None).state_dict()) == ["0.weight", "0.bias"]
