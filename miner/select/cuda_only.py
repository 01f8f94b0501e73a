"""Packages that exist only as CUDA builds. A CPU machine can neither build nor import them, so a
smoke run that meets one needs a GPU: no repair installs them, and the outcome says so."""

from __future__ import annotations

import re

# tiny-cuda-nn, the Gaussian splatting rasterisers, FlashAttention, Mamba's scan kernels,
# nvdiffrast, the point-cloud and sparse-convolution kernels, Deformable DETR's attention op.
CUDA_ONLY_MODULES = frozenset(
    "tinycudann diff_gaussian_rasterization simple_knn flash_attn causal_conv1d "
    "selective_scan_cuda mamba_ssm nvdiffrast pointnet2_ops knn_cuda spconv "
    "MultiScaleDeformableAttention".split()
)
CUDA_ONLY = re.compile(rf"No module named '?(?:{'|'.join(sorted(CUDA_ONLY_MODULES))})\b")
