"""Chains its children: each one's output is the next one's input."""

from .Container import Container


class Sequential(Container):
    """Lua's ``nn.Sequential``; ``output`` is the last child's, ``gradInput`` the first's."""

    def __len__(self):
        return len(self.modules)

    def add(self, module):
        super().add(module)
        self._alias_ends()
        return self

    def insert(self, module, index=None):
        """Inserts ``module`` at 0-based ``index`` (default: at the end)."""
        index = len(self.modules) if index is None else index
        super().add(module)  # type check
        self.modules.pop()
        self.modules.insert(index, module)
        self._alias_ends()
        return self

    def remove(self, index=-1):
        """Removes the child at 0-based ``index`` (default: the last)."""
        del self.modules[index]
        self._alias_ends()
        return self

    def _alias_ends(self):
        if self.modules:
            self.gradInput = self.modules[0].gradInput
            self.output = self.modules[-1].output
        else:
            self.gradInput = self.gradInput.new_empty(0)
            self.output = self.output.new_empty(0)

    def updateOutput(self, input):
        current = input
        for m in self.modules:
            current = m.updateOutput(current)
        self.output = current
        return self.output

    def _backwards(self, input, gradOutput, step):
        """Walks the children last to first; ``step(m, m_input, grad)`` returns the
        gradient for the child before (each child's input is its predecessor's output)."""
        grad = gradOutput
        for i in range(len(self.modules) - 1, -1, -1):
            m_input = self.modules[i - 1].output if i > 0 else input
            grad = step(self.modules[i], m_input, grad)
        return grad

    def updateGradInput(self, input, gradOutput):
        self.gradInput = self._backwards(input, gradOutput, lambda m, x, g: m.updateGradInput(x, g))
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        def step(m, x, g):
            m.accGradParameters(x, g, scale)
            return m.gradInput

        self._backwards(input, gradOutput, step)

    def backward(self, input, gradOutput, scale=1):
        self.gradInput = self._backwards(input, gradOutput, lambda m, x, g: m.backward(x, g, scale))
        return self.gradInput

    def accUpdateGradParameters(self, input, gradOutput, lr):
        def step(m, x, g):
            m.accUpdateGradParameters(x, g, lr)
            return m.gradInput

        self._backwards(input, gradOutput, step)

    def __repr__(self):
        return self._repr_children("nn.Sequential", "->")
