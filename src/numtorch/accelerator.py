"""``numtorch.accelerator`` (mirrors ``torch.accelerator``): no accelerator on this backend."""


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def current_accelerator(check_available: bool = False):
    return None
