// torch.eq, torch.ne, torch.lt, torch.le, torch.gt, torch.ge: element-wise comparison of two
// broadcast operands, or of one with the scalar `other`. The result is a bool tensor, which Lumen
// holds as 0/1 floats. Each runs on the pnnx.Expression evaluator as one call (eq(@0,@1), ...).
#include "layer/arithmetic/expression.hpp"
#include "layer/layer_registry.hpp"

namespace lumen {

// A comparison, as one call of the expression language.
using Comparison = ElementwiseCall<>;

LUMEN_REGISTER_LAYER(Comparison, "torch.eq", "torch.ne", "torch.lt", "torch.le", "torch.gt",
                     "torch.ge");

}  // namespace lumen
