"""Golden cases: the label shapes Paddle's losses take, and square_error_cost."""
from .harness import case, outcome

LOGITS = [[1.0, 2.0, 3.0], [1.0, 0.5, 0.2], [0.3, 0.1, 2.0]]


@case
def nll_loss_takes_labels_of_shape_n_and_n_1(paddle):
    F = paddle.nn.functional
    log_probs = F.log_softmax(paddle.to_tensor(LOGITS), axis=1)
    flat = paddle.to_tensor([2, 0, 1])
    column = paddle.to_tensor([[2], [0], [1]])
    return {"[N]": F.nll_loss(log_probs, flat), "[N, 1]": F.nll_loss(log_probs, column),
            "[N, 1] none": F.nll_loss(log_probs, column, reduction="none"),
            "[N, 1] sum": F.nll_loss(log_probs, column, reduction="sum"),
            "[N, 1] weighted": F.nll_loss(log_probs, column, weight=paddle.to_tensor([1.0, 2.0, 0.5])),
            "NLLLoss layer": paddle.nn.NLLLoss()(log_probs, column)}


@case
def nll_loss_gradient_with_n_1_labels(paddle):
    F = paddle.nn.functional
    logits = paddle.to_tensor(LOGITS, stop_gradient=False)
    F.nll_loss(F.log_softmax(logits, axis=1), paddle.to_tensor([[2], [0], [1]])).backward()
    return logits.grad


@case
def nll_loss_rejects_a_label_of_the_wrong_length(paddle):
    F = paddle.nn.functional
    log_probs = F.log_softmax(paddle.to_tensor(LOGITS), axis=1)
    return outcome(lambda: F.nll_loss(log_probs, paddle.to_tensor([[2], [0]])))


@case
def cross_entropy_takes_labels_of_shape_n_and_n_1(paddle):
    F = paddle.nn.functional
    logits = paddle.to_tensor(LOGITS)
    return {"[N]": F.cross_entropy(logits, paddle.to_tensor([2, 0, 1])),
            "[N, 1]": F.cross_entropy(logits, paddle.to_tensor([[2], [0], [1]])),
            "[N, 1] none": F.cross_entropy(logits, paddle.to_tensor([[2], [0], [1]]), reduction="none")}


@case
def square_error_cost(paddle):
    F = paddle.nn.functional
    pred = paddle.to_tensor([[1.0], [2.0], [4.0]])
    label = paddle.to_tensor([[0.5], [3.0], [4.0]])
    cost = F.square_error_cost(pred, label)
    return {"cost": cost, "mean": paddle.mean(cost)}
