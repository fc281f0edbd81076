"""torch.legacy: Lua-Torch ``nn`` and ``optim`` and ``.t7`` files, for porting Lua code.

Needs only torch-core (the torch-legacy wheel). Filled in by later issues.
"""

__version__ = "0.1.0"
