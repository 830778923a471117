"""LeNet-5 as Paddle defines it (paddle.vision.models.LeNet), for 1x28x28 images such as MNIST."""
from __future__ import annotations

from ... import nn


class LeNet(nn.Layer):
    """Two conv + max-pool stages, then three Linear layers; `num_classes <= 0` drops the classifier.

    >>> LeNet()(paddle.rand([2, 1, 28, 28])).shape      # doctest: +SKIP
    [2, 10]
    """

    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        self.num_classes = num_classes
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2))
        if num_classes > 0:
            self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, num_classes))

    def forward(self, inputs):
        x = self.features(inputs)
        if self.num_classes > 0:
            x = self.fc(x.flatten(1))
        return x
