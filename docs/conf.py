"""Sphinx configuration: one site for every torch-* package."""

import torch

project = "torch from scratch"
author = "the torch-from-scratch contributors"
release = str(torch.__version__)
version = ".".join(release.split(".")[:2])

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.doctest"]
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_theme_options = {"description": "PyTorch, written from scratch", "fixed_sidebar": True}

autodoc_default_options = {"members": False}
autodoc_typehints = "none"
napoleon_google_docstring = True
napoleon_numpy_docstring = False

# Every doctest starts from the same state.
doctest_global_setup = """
import numpy as np
import torch
torch.manual_seed(0)
"""
doctest_test_doctest_blocks = ""  # only `.. doctest::` directives, not docstring examples
