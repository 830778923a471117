"""Training speed of ResNet-18 (Paddle's vision.models.resnet18, 10 classes) on 3x32x32 inputs, batch 32.

    python benchmarks/train_resnet.py [--rounds 3] [--json out.json] [--paddle-python PATH] [--no-first]

The issue "convolutional training on the CPU at PyTorch's speed" asks for a ResNet-18-style block
stack at >= 0.8x PyTorch: eight BasicBlocks (3x3 convolutions, batch norm, ReLU, the identity or a
1x1-conv shortcut), a 7x7 stem and max pooling, cross-entropy, SGD. PyTorch builds the same network
by hand (torchvision is not needed). Each framework in its own process, alternated, medians.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

BATCH, LR = 32, 0.01


def data(seed: int = 0):
    return harness.classification_data((BATCH, 3, 32, 32), 10, seed)


def paddle_like_step(paddle):
    paddle.seed(0)
    return harness.sgd_classifier_step(paddle, paddle.vision.models.resnet18(num_classes=10), *data(), LR)


def minipaddle_step():
    return paddle_like_step(harness.import_minipaddle())


def paddle_step():
    return paddle_like_step(harness.import_paddle())


def torch_step():
    import torch
    torch.set_num_threads(2)
    torch.manual_seed(0)
    nn = torch.nn

    class BasicBlock(nn.Module):
        def __init__(self, cin: int, cout: int, stride: int) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            out = torch.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return torch.relu(out + (x if self.down is None else self.down(x)))

    blocks = [BasicBlock(64, 64, 1), BasicBlock(64, 64, 1), BasicBlock(64, 128, 2), BasicBlock(128, 128, 1),
              BasicBlock(128, 256, 2), BasicBlock(256, 256, 1), BasicBlock(256, 512, 2), BasicBlock(512, 512, 1)]
    model = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                          nn.MaxPool2d(3, 2, 1), *blocks, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 10))
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    xs, ys = data()
    x, y = torch.from_numpy(xs), torch.from_numpy(ys)

    def step():
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
    return step, torch.__version__


BUILDERS = {"minipaddle": minipaddle_step, "torch": torch_step, "paddle": paddle_step}


def main(argv: list[str] | None = None) -> int:
    return harness.training_benchmark(__file__, __doc__, BUILDERS, "train_resnet",
                                      [("minipaddle", "torch", 0.8, "PyTorch CPU"),
                                       ("minipaddle", "paddle", 1.0, "PaddlePaddle")],
                                      window_seconds=2.0, argv=argv)


if __name__ == "__main__":
    sys.exit(main())
