from .Concat import Concat


class DepthConcat(Concat):
    """A Concat whose children's outputs may differ in size outside ``dimension``: each is
    zero-padded to the largest, centred at ``floor((max - size) / 2)`` in every dimension."""

    def _windows(self, output, m):
        """The part of a padded output (or gradient) that holds ``m.output``."""
        view = output
        for d in range(m.output.dim()):
            if d != self.dimension:
                start = (self.outputSize[d] - m.output.size(d)) // 2
                view = view.narrow(d, start, m.output.size(d))
        return view

    def _join(self, outputs):
        shape = list(outputs[0].shape)
        for o in outputs[1:]:
            if o.dim() != len(shape):
                return super()._join(outputs)  # reports the mismatch
            shape = [max(a, b) for a, b in zip(shape, o.shape)]
        shape[self.dimension] = sum(o.size(self.dimension) for o in outputs)
        self.outputSize = shape
        out = outputs[0].new_zeros(shape)
        offset = 0
        for m, o in zip(self.modules, outputs):
            size = o.size(self.dimension)
            self._windows(out.narrow(self.dimension, offset, size), m).copy_(o)
            offset += size
        return out

    def _slice(self, gradOutput, offset, size, m):
        return self._windows(gradOutput.narrow(self.dimension, offset, size), m)
