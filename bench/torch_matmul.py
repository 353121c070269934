"""The ceiling anchor for the GPU figures: PyTorch's float32 matmul on the same GPU.
Prints lines in gpu_bench's format. TF32 tensor cores are off, so this is true float32 math,
the same arithmetic tidytensor's WGSL kernels do."""
import sys
import time

import torch

torch.backends.cuda.matmul.allow_tf32 = False
sizes = [int(s) for s in (sys.argv[1] if len(sys.argv) > 1 else "1024,2048,4096").split(",")]
print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}")
for n in sizes:
    a = torch.randn(n, n, device="cuda")
    b = torch.randn(n, n, device="cuda")
    reps = max(1, min(64, int((4096 / n) ** 3))) * 4
    samples = []
    for s in range(6):
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(reps):
            c = a @ b
        torch.cuda.synchronize()
        if s:
            samples.append(time.perf_counter() - t)
    secs = sorted(samples)[len(samples) // 2]
    print(f"RESULT torch_matmul{n} {2 * n**3 * reps / secs / 1e9:.1f} GFLOP/s ({reps} products per sample)")
