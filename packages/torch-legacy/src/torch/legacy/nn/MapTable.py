import copy

from .ParallelTable import ParallelTable


class MapTable(ParallelTable):
    """Applies one module to every entry of the input list: clones of ``module`` that
    share its parameters and gradients (made as needed) handle entries 1, 2, ...."""

    def __init__(self, module=None):
        super().__init__()
        self.module = None
        if module is not None:
            self.add(module)

    def add(self, module):
        super().add(module)
        self.module = module
        self.modules = [module]
        return self

    def _extend(self, n):
        """Makes sure there are ``n`` clones sharing the module's parameters."""
        params = self.module.parameters()
        shared = [t for group in params for t in group] if params else []
        while len(self.modules) < n:
            memo = {id(t): t for t in shared}
            self.modules.append(copy.deepcopy(self.module, memo))

    def _pairs(self, input):
        self._extend(len(input))
        return zip(self.modules, input)

    def parameters(self):
        return self.module.parameters() if self.module is not None else None

    def zeroGradParameters(self):
        if self.module is not None:
            self.module.zeroGradParameters()

    def updateParameters(self, learningRate):
        if self.module is not None:
            self.module.updateParameters(learningRate)

    def clearState(self):
        self.modules = self.modules[:1]
        return super().clearState()

    def __repr__(self):
        inner = repr(self.module).replace("\n", "\n  ")
        return f"nn.MapTable {{\n  {inner}\n}}"
