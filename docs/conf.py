"""Sphinx configuration: one site for every torch-* package."""

import os
import sys

import matplotlib

import torch

matplotlib.use("Agg")  # the tutorials draw their figures off-screen
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "_ext"))

project = "torch from scratch"
author = "the torch-from-scratch contributors"
copyright = "2026, the torch-from-scratch contributors"  # noqa: A001  (Sphinx's name)
release = str(torch.__version__)
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.doctest",
    "sphinx_gallery.gen_gallery",
    "apiref",
]
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_theme_options = {"description": "PyTorch, written from scratch", "fixed_sidebar": True}
html_show_copyright = True
html_show_sphinx = True

autodoc_typehints = "none"
autodoc_preserve_defaults = True  # show `pickle_module=pickle`, not the module's repr
napoleon_google_docstring = True
napoleon_numpy_docstring = False

# Tutorials: every script of tutorials/ runs at build time (CPU, Agg) and becomes a page of
# docs/tutorials/ (generated; see .gitignore) with its printed output and figures.
sphinx_gallery_conf = {
    "examples_dirs": "../tutorials",
    "gallery_dirs": "tutorials",
    "filename_pattern": r".*\.py$",
    "ignore_pattern": r"(^|/)_",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "matplotlib_animations": False,
    "show_memory": False,
    "min_reported_time": 1,
    "abort_on_example_error": False,
    "only_warn_on_example_error": False,
}

# Every doctest starts from the same state.
doctest_global_setup = """
import numpy as np
import torch
torch.manual_seed(0)
"""
doctest_test_doctest_blocks = ""  # only `.. doctest::` directives, not docstring examples
