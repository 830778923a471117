"""Golden cases: paddle.nn.utils (weight_norm, spectral_norm, parameters_to_vector, vector_to_parameters,
clip_grad_norm_, clip_grad_value_) and the Orthogonal and Dirac initializers."""
import numpy as np

from .harness import case, outcome

W = [[0.5, -1.0, 2.0, 0.25], [1.5, 0.75, -0.5, 1.0], [-2.0, 0.5, 1.0, -1.5]]     # a Linear(3, 4) weight
X = [[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]


def _linear(paddle):
    fc = paddle.nn.Linear(3, 4)
    fc.weight.set_value(np.array(W, dtype="float32"))
    fc.bias.set_value(np.array([0.1, -0.2, 0.3, 0.0], dtype="float32"))
    return fc


def _conv(paddle):
    conv = paddle.nn.Conv2D(2, 3, 2)
    conv.weight.set_value((np.sin(np.arange(24)) * 0.5).reshape([3, 2, 2, 2]).astype("float32"))
    conv.bias.set_value(np.array([0.0, 0.1, -0.1], dtype="float32"))
    return conv


def _state(layer):
    return [[k, list(v.shape)] for k, v in layer.state_dict().items()]


@case
def weight_norm_linear(paddle):
    fc = paddle.nn.utils.weight_norm(_linear(paddle))
    out = fc(paddle.to_tensor(X))
    (out * paddle.to_tensor([[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 1.0, 0.0]])).sum().backward()
    result = {"state_dict": _state(fc), "weight_g": fc.weight_g, "weight": fc.weight, "out": out,
              "grad g": fc.weight_g.grad, "grad v": fc.weight_v.grad,
              "twice": outcome(lambda: paddle.nn.utils.weight_norm(fc))}
    paddle.nn.utils.remove_weight_norm(fc)
    result.update({"removed state_dict": _state(fc), "removed weight": fc.weight,
                   "remove again": outcome(lambda: paddle.nn.utils.remove_weight_norm(fc))})
    return result


@case
def weight_norm_dims(paddle):
    whole = paddle.nn.utils.weight_norm(_linear(paddle), dim=None)
    last = paddle.nn.utils.weight_norm(_linear(paddle), dim=1)
    negative = paddle.nn.utils.weight_norm(_linear(paddle), dim=-1)
    conv = paddle.nn.utils.weight_norm(_conv(paddle), dim=0)
    conv_mid = paddle.nn.utils.weight_norm(_conv(paddle), dim=2)
    x = paddle.to_tensor(np.cos(np.arange(32)).reshape([1, 2, 4, 4]).astype("float32"))
    return {"dim=None g": whole.weight_g, "dim=None out": whole(paddle.to_tensor(X)),
            "dim=1 g": last.weight_g, "dim=1 out": last(paddle.to_tensor(X)),
            "dim=-1": _state(negative), "conv state_dict": _state(conv), "conv out": conv(x),
            "conv dim=2 g": conv_mid.weight_g, "conv dim=2 out": conv_mid(x)}


def _fixed_spectral(paddle, layer, u, v, **kwargs):
    layer = paddle.nn.utils.spectral_norm(layer, **kwargs)
    layer.weight_u.set_value(np.array(u, dtype="float32"))
    layer.weight_v.set_value(np.array(v, dtype="float32"))
    return layer


@case
def spectral_norm_linear(paddle):
    fc = _fixed_spectral(paddle, _linear(paddle), [0.6, 0.8, 0.0, 0.0], [1.0, 0.0, 0.0])
    out = fc(paddle.to_tensor(X))
    out.sum().backward()
    result = {"state_dict": _state(fc), "out": out, "u": fc.weight_u, "v": fc.weight_v, "weight": fc.weight,
              "grad weight_orig": fc.weight_orig.grad}
    fc.eval()
    result["eval out (no power iteration)"] = fc(paddle.to_tensor(X))
    result["eval u unchanged"] = fc.weight_u
    fc.train()
    more = _fixed_spectral(paddle, _linear(paddle), [0.6, 0.8, 0.0, 0.0], [1.0, 0.0, 0.0], n_power_iterations=5)
    result["5 iterations out"] = more(paddle.to_tensor(X))
    result["twice"] = outcome(lambda: paddle.nn.utils.spectral_norm(fc))
    result["0 iterations"] = outcome(lambda: paddle.nn.utils.spectral_norm(_linear(paddle), n_power_iterations=0))
    return result


@case
def spectral_norm_conv(paddle):
    conv = _fixed_spectral(paddle, _conv(paddle), [1.0, 0.0, 0.0], [0.5] * 8)
    x = paddle.to_tensor(np.cos(np.arange(32)).reshape([1, 2, 4, 4]).astype("float32"))
    dim1 = _fixed_spectral(paddle, _conv(paddle), [1.0, 0.0], [0.5, 0.5, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                                                              0.0], dim=1)
    return {"state_dict": _state(conv), "out": conv(x), "u": conv.weight_u, "dim=1 state_dict": _state(dim1),
            "dim=1 out": dim1(x)}


@case
def parameters_to_vector_and_back(paddle):
    fc = _linear(paddle)
    vec = paddle.nn.utils.parameters_to_vector(fc.parameters())
    paddle.nn.utils.vector_to_parameters(paddle.arange(16, dtype="float32"), fc.parameters())
    longer = _linear(paddle)
    paddle.nn.utils.vector_to_parameters(paddle.arange(20, dtype="float32") * 0.5, longer.parameters())
    return {"vector": vec, "stop_gradient": vec.stop_gradient, "weight after": fc.weight, "bias after": fc.bias,
            "longer vec": [longer.weight, longer.bias],
            "shorter vec": outcome(lambda: paddle.nn.utils.vector_to_parameters(paddle.ones([5]), fc.parameters()))}


def _with_grads(paddle):
    fc = _linear(paddle)
    (fc(paddle.to_tensor(X)) * paddle.to_tensor([[1.0, -2.0, 3.0, 0.5], [2.0, 1.0, -1.0, 0.0]])).sum().backward()
    return fc


@case
def clip_grad_norm(paddle):
    out = {}
    for norm_type in (2.0, 1.0, float("inf"), 0):
        fc = _with_grads(paddle)
        total = paddle.nn.utils.clip_grad_norm_(fc.parameters(), max_norm=1.5, norm_type=norm_type)
        out[f"norm_type={norm_type}"] = {"total": total, "weight grad": fc.weight.grad, "bias grad": fc.bias.grad}
    fc = _with_grads(paddle)
    out["large max_norm"] = [paddle.nn.utils.clip_grad_norm_(fc.parameters(), 1000.0), fc.weight.grad]
    fc = _with_grads(paddle)
    out["one tensor"] = [paddle.nn.utils.clip_grad_norm_(fc.bias, 0.5), fc.bias.grad, fc.weight.grad]
    out["no grads"] = paddle.nn.utils.clip_grad_norm_(_linear(paddle).parameters(), 1.0)
    out["norm_type 3"] = outcome(lambda: paddle.nn.utils.clip_grad_norm_(fc.parameters(), 1.0, norm_type=3))
    fc = _with_grads(paddle)
    with paddle.no_grad():
        fc.bias.grad[0] = float("inf")
    out["non-finite"] = outcome(lambda: paddle.nn.utils.clip_grad_norm_(fc.parameters(), 1.0, error_if_nonfinite=True))
    return out


@case
def clip_grad_value(paddle):
    fc = _with_grads(paddle)
    result = paddle.nn.utils.clip_grad_value_(fc.parameters(), 1.5)
    other = _with_grads(paddle)
    paddle.nn.utils.clip_grad_value_(other.weight, 0.5)
    return {"returns": result, "weight grad": fc.weight.grad, "bias grad": fc.bias.grad,
            "one tensor": [other.weight.grad, other.bias.grad]}


def _gram(w, rows_first):
    m = np.asarray(w.numpy(), dtype="float64").reshape([w.shape[0], -1])
    return np.round(m @ m.T if rows_first else m.T @ m, 5)


@case
def orthogonal_initializer(paddle):
    init = paddle.nn.initializer.Orthogonal()
    wide = paddle.create_parameter([3, 5], "float32", default_initializer=init)
    tall = paddle.create_parameter([5, 3], "float32", default_initializer=init)
    conv = paddle.create_parameter([4, 2, 3, 3], "float32", default_initializer=paddle.nn.initializer.Orthogonal(2.0))
    fc = paddle.nn.Linear(4, 4, weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Orthogonal()))
    return {"wide rows orthonormal": _gram(wide, True), "tall columns orthonormal": _gram(tall, False),
            "conv gain 2": _gram(conv, True), "square": _gram(fc.weight, True), "dtype": str(wide.dtype)[-7:]}


@case
def dirac_initializer(paddle):
    D = paddle.nn.initializer.Dirac
    conv = paddle.nn.Conv2D(2, 4, 3, padding=1, weight_attr=paddle.ParamAttr(initializer=D()), bias_attr=False)
    conv1d = paddle.nn.Conv1D(2, 6, 3, weight_attr=paddle.ParamAttr(initializer=D(groups=2)), bias_attr=False)
    x = paddle.to_tensor(np.arange(18, dtype="float32").reshape([1, 2, 3, 3]))
    return {"conv2d weight": conv.weight, "conv2d copies its input": conv(x), "conv1d groups=2": conv1d.weight}
