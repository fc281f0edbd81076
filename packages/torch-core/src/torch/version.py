__version__ = "0.1.0"
cuda = None  # the CUDA version this build targets: none (CPU only so far)
hip = None
