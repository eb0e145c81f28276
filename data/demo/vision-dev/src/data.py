"""ImageNet data pipeline with RandAugment and mixup."""


class MixupCollator:
    def __init__(self, alpha: float = 0.8, num_classes: int = 1000) -> None:
        self.alpha = alpha
        self.num_classes = num_classes

    def __call__(self, batch):
        raise NotImplementedError("mixup is applied on the GPU in the training step")


def build_transforms(randaug_n: int = 2, randaug_m: int = 9):
    return {"randaug_n": randaug_n, "randaug_m": randaug_m, "resize": 224}
