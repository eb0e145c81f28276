"""Training entry point for ViT pretraining."""

import math


def cosine_with_warmup(step: int, warmup_steps: int, total_steps: int, base_lr: float) -> float:
    """Linear warmup to base_lr, then cosine decay to zero."""
    if step < warmup_steps:
        return base_lr * (step + 1) / warmup_steps
    progress = (step - warmup_steps) / max(1, total_steps - warmup_steps)
    return 0.5 * base_lr * (1 + math.cos(math.pi * progress))


def clip_gradients(parameters, max_norm: float = 1.0) -> float:
    """Clip the global gradient norm; returns the norm before clipping."""
    total = 0.0
    for p in parameters:
        if p.grad is not None:
            total += float(p.grad.pow(2).sum())
    norm = math.sqrt(total)
    if norm > max_norm:
        scale = max_norm / (norm + 1e-6)
        for p in parameters:
            if p.grad is not None:
                p.grad.mul_(scale)
    return norm


def check_finite(loss: float, step: int) -> None:
    if math.isnan(loss) or math.isinf(loss):
        raise FloatingPointError(f"Loss is NaN at step {step}; lower the learning rate")
